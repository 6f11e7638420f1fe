"""The page image and the strip of pages from a volume's IIIF manifest (results/viewers/iiif.py): only
http(s) images, through the image service at a bounded size when there is one."""

import pytest

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
    strip = thumbnails(canvases)
    assert strip == {
        1: "https://img.example/1-small.jpg",
        2: "https://img.example/2.jpg",
        3: "https://iiif.example/3/full/,96/0/default.jpg",
        4: "",
    }


def test_a_canvas_is_the_page_its_alto_file_names_not_its_place_in_the_list():
    """A volume whose page 2 failed lists canvases for pages 1 and 3: the second canvas is page 3."""

    def canvas(page):
        body = {"id": f"https://img.example/{page}.jpg"}
        see_also = [{"id": f"https://h.example/results/ns/p/V1/alto/{page:04d}.xml"}]
        return {"items": [{"items": [{"body": body}]}], "seeAlso": see_also}

    assert thumbnails([canvas(1), canvas(3)]) == {1: "https://img.example/1.jpg", 3: "https://img.example/3.jpg"}
