"""The page image and the strip of pages from a volume's IIIF manifest (results/viewers/iiif.py): only
http(s) images, through the image service at a bounded size when there is one."""

import pytest

from results.store.addresses import SITE_OWN_RESULTS
from results.viewers import iiif
from results.viewers.iiif import thumbnails


def canvas(body, width=1000):
    return {"width": width, "height": 1400, "items": [{"items": [{"body": body}]}]}


@pytest.mark.parametrize(
    "body, expected",
    [
        (
            {"id": "https://img/x.jpg", "service": [{"id": "https://img/iiif/1", "type": "ImageService3"}]},
            "https://img/iiif/1/full/1000,/0/default.jpg",
        ),
        (
            {"id": "https://img/x.jpg", "service": {"@id": "https://img/iiif2/1/", "@type": "ImageService2"}},
            "https://img/iiif2/1/full/1000,/0/default.jpg",
        ),
        ({"id": "https://img/x.jpg"}, "https://img/x.jpg"),
        ({"type": "Choice", "items": [{"id": "https://img/a.jpg"}, {"id": "https://img/b.jpg"}]}, "https://img/a.jpg"),
        ({"id": "javascript:alert(1)"}, ""),
        ({"id": "data:image/png;base64,AAAA"}, ""),
        ({"id": "https://img/x.jpg", "service": [{"id": "javascript:alert(1)"}]}, "https://img/x.jpg"),
        ("not a body", ""),
    ],
)
def test_the_page_image_comes_from_the_canvas_service_or_its_image(body, expected):
    assert iiif.image_of(canvas(body))[0] == expected


def test_large_canvases_ask_the_image_service_for_a_bounded_width():
    url = iiif.image_of(canvas({"service": [{"id": "https://img/s"}]}, width=9000))[0]
    assert url == f"https://img/s/full/{iiif.IMAGE_WIDTH},/0/default.jpg"


def test_a_canvas_without_an_image_service_gives_its_own_thumbnail_or_its_image():
    def canvas(body, **extra):
        return {"items": [{"items": [{"body": body}]}], **extra}

    canvases = [
        canvas({"id": "https://img.example/1.jpg"}, thumbnail=[{"id": "https://img.example/1-small.jpg"}]),
        canvas({"id": "https://img.example/2.jpg"}),
        canvas({"id": "https://img.example/3.jpg", "service": [{"id": "https://iiif.example/3/"}]}),
        "not a canvas",
    ]
    strip = thumbnails(canvases, SITE_OWN_RESULTS, "htr-batch/p/V1", 4)
    assert [t["picture"] for t in strip] == [
        "https://img.example/1-small.jpg",
        "https://img.example/2.jpg",
        "https://iiif.example/3/full/,96/0/default.jpg",
        "",
    ]
    assert strip[3]["url"] == "/alto?src=%2Fresults%2Fhtr-batch%2Fp%2FV1%2Falto%2F0004.xml"
