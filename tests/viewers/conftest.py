"""Fixtures the viewer tests share."""

import pytest

from devstack.images import ImageServer


@pytest.fixture(scope="module")
def images():
    """The devstack's IIIF image server with one volume, V1, of 4 pages."""
    with ImageServer() as server:
        server.register_volume("V1", pages=4)
        yield server
