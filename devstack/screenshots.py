"""``make screenshots``: the README's pictures of the product, taken from the demo so they stay true.

Run as ``python -m devstack.screenshots [--port N] [--out docs/images]``. It starts the demo on a free
port (the stand-ins and the web app of ``make demo``), logs in through the real login page with the
store account that may read everything, and has Debian's Chromium (through Playwright) take one PNG of
each page in ``PICTURES``. Every wait is on a condition (the server answering, a selector, an address);
the demo is stopped at the end, also when something fails.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, sync_playwright

from devstack.demo import HOST, PROJECT_ROOT, Demo, DemoError

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1280, "height": 800}
WAIT_MS = 30_000  # the longest any one condition is waited for
OUT = PROJECT_ROOT / "docs" / "images"
# The campaign page pictured: one whose card says a finding (its warm-up ran with another placement).
CAMPAIGN = "parish-moves-1830"


def free_port() -> int:
    """A port nothing listens on now (the demo checks it again before it starts)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def log_in(page: Page, base: str, username: str, password: str) -> None:
    """Through the login page, as a person does; waits until the site has moved on."""
    page.goto(f"{base}/login")
    page.fill("#login-username", username)
    page.fill("#login-password", password)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(lambda address: "/login" not in address)


def campaign_list(page: Page, base: str, demo: Demo) -> None:
    page.goto(f"{base}/")
    page.locator("#state-choices").wait_for()
    page.locator("#attention article.card").first.wait_for()


def campaign_page(page: Page, base: str, demo: Demo) -> None:
    page.goto(f"{base}/campaigns/{demo.scene.namespace}/{CAMPAIGN}")
    page.locator("article.card p.reason").first.wait_for()
    page.locator("#volume-rows tr.vol").first.wait_for()


def alto_viewer(page: Page, base: str, demo: Demo) -> None:
    """The first page of a finished volume, reached from its campaign's volume table."""
    succeeded = demo.scene.situations["succeeded"]
    page.goto(f"{base}/campaigns/{demo.scene.namespace}/{succeeded}")
    page.locator("a[id^='pages-of-']").first.click()
    page.wait_for_url(re.compile(r"/alto\?"))
    page.locator("#alto-viewer.image-loaded").wait_for()
    page.locator(".alto-poly").first.wait_for()
    page.wait_for_function(THUMBNAILS_LOADED)


# The page strip's thumbnails load lazily, after the page: the picture waits for every one of them.
THUMBNAILS_LOADED = "() => [...document.querySelectorAll('#page-strip img')].every(i => i.complete && i.naturalWidth)"


@dataclass(frozen=True)
class Picture:
    """One PNG under docs/images/, what it shows (the README's words for it), and what brings its page into view.
    The picture is the top of the window (VIEWPORT)."""

    file: str
    shows: str
    opens: Callable[[Page, str, Demo], None]


PICTURES = (
    Picture("campaign-list.png", "The campaign list: states counted, campaigns in trouble first", campaign_list),
    Picture("campaign-page.png", "A campaign page: the card says what is wrong and who acts", campaign_page),
    Picture("alto-viewer.png", "The ALTO page viewer: each line over the page image, by confidence", alto_viewer),
)


def shrink(path: Path) -> None:
    """At most 256 colours, without dithering: a third of the bytes, and text stays as sharp."""
    with Image.open(path) as taken:
        fewer = taken.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    fewer.save(path, optimize=True)


def take(demo: Demo, out: Path) -> list[Path]:
    base = f"http://{HOST}:{demo.port}"
    account = demo.store.accounts["full"]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
            page.set_default_timeout(WAIT_MS)
            log_in(page, base, account.username, account.password)
            for picture in PICTURES:
                picture.opens(page, base, demo)
                path = out / picture.file
                page.screenshot(path=str(path), animations="disabled", caret="hide")
                shrink(path)
                written.append(path)
                print(f"Wrote {path}", flush=True)
        finally:
            browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devstack.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="port of the demo's web app (default: a free one)")
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the PNGs (default docs/images)")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"Chromium is not installed at {CHROMIUM}: `make test` installs Debian's chromium.", file=sys.stderr)
        return 2
    # The web app inherits this environment: its request lines would bury what this script says.
    os.environ.setdefault("HTRFLOW_LOG_LEVEL", "WARNING")
    demo = Demo(args.port or free_port())
    try:
        demo.start()
        take(demo, args.out)
    except DemoError as error:
        print(f"The demo could not start: {error}", file=sys.stderr)
        return 1
    except PlaywrightError as error:  # a page that did not come as expected: one sentence, not a traceback
        print(f"The pictures could not be taken: {error.message.splitlines()[0]}", file=sys.stderr)
        return 1
    finally:
        demo.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
