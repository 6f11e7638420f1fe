"""The page layout renders in a real browser."""

import pytest

pytestmark = pytest.mark.browser


def test_healthz_renders_in_chromium(page, live_server):
    page.goto(live_server.url + "/healthz")
    assert page.locator("body").inner_text().strip() == "ok"
