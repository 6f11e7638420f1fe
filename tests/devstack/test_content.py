"""The devstack's invented results: pages, ALTO/PAGE XML, bucket JSON, run logs and the IIIF image server."""

import io
import json
import re
from datetime import UTC, datetime

import defusedxml.ElementTree as SafeET
import pytest
import requests
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from devstack import content
from devstack.images import ImageServer, parse_size

VOLUME = "C0074512"
PIPELINE = "swe-lines-v2"
START = datetime(2026, 12, 2, 10, 14, 3, tzinfo=UTC)
TIMEOUT = (3, 30)

# Key order of the wrapper's files, as in the contract's samples.
PROGRESS_KEYS = [
    "stage", "pages_total", "pages_done", "pages_failed", "last_page", "last_error", "errors",
    "viewer_published", "started_at", "updated_at",
]  # fmt: skip
MANIFEST_KEYS = [
    "volume", "pipeline_id", "pipeline_sha256", "pipeline_yaml", "htrflow_version", "image_digest", "pages",
    "pages_ok", "pages_failed", "results", "source_manifest", "page_sources", "page_source_digests", "canvas_ids",
    "max_image_width", "bytes_fetched", "wall_seconds", "gpu_stall_seconds", "pages_per_second", "viewer_url",
]  # fmt: skip
QUALITY_KEYS = ["mean", "min", "scored", "model", "revision", "target", "lowest"]  # contracts §4
# The running sample, byte for byte.
RUNNING_PROGRESS = (
    '{"stage": "stream", "pages_total": 412, "pages_done": 137, "pages_failed": 1, "last_page": "0138", '
    '"last_error": {"page": "0044", "error": "page 0044: htrflow\'s Segmentation (model Riksarkivet/yolov9-regions-1) '
    'worker thread died; the page is marked failed and the pipeline is rebuilt"}, "errors": 0, "viewer_published": '
    'true, "started_at": "2026-09-24T08:02:11+00:00", "updated_at": "2026-09-24T08:31:47+00:00"}'
)

LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: ")
COMPLETE = re.compile(
    r"\[(?P<volume>[^\]]+)\] COMPLETE (?P<pages>\d+) pages \((?P<processed>\d+) processed, (?P<failed>\d+) failed\) "
    r"in (?P<seconds>[\d.]+)s, viewer: (?P<viewer>\S+)$"
)
PERMANENT = re.compile(r"permanent failure in (?P<stage>\w+): (?P<error>.+) — (?P<advice>.+)$")
TRANSIENT_LAST = re.compile(r"transient failure in (?P<stage>\w+) on the last attempt: (?P<error>.+)$")
TRANSIENT = re.compile(r"transient failure in (?P<stage>\w+): (?P<error>.+)$")
RESUME = re.compile(r"\[(?P<volume>[^\]]+)\] resume: (?P<done>\d+) done, (?P<todo>\d+) to process$")


def alto_ns(version):
    return {"a": content.ALTO_NAMESPACES[version]}


def polygon_contains(polygon, x, y):
    """Ray casting; points on an edge count as inside."""
    inside = False
    for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if min(y0, y1) <= y <= max(y0, y1) and min(x0, x1) <= x <= max(x0, x1):
            cross = (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)
            if abs(cross) < 1e-9:
                return True
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def hyphenated_lines():
    """A page with a word broken across two lines of one entry, and those two lines."""
    for page_no in range(1, 60):
        layout = content.page_layout(VOLUME, page_no)
        for block in layout.blocks:
            for line, following in zip(block.lines, block.lines[1:], strict=False):
                if line.hyphen:
                    return layout, line, following
    raise AssertionError("no hyphenated word in 59 pages")


# ---- page layout -------------------------------------------------------------------------------------------


def test_the_same_page_is_built_the_same_every_time():
    content.page_layout.cache_clear()
    first = content.alto_xml(content.page_layout(VOLUME, 7))
    content.page_layout.cache_clear()
    assert content.alto_xml(content.page_layout(VOLUME, 7)) == first
    assert content.page_xml(content.page_layout(VOLUME, 7)) == content.page_xml(content.page_layout(VOLUME, 7))


def test_different_pages_and_volumes_read_differently():
    texts = {content.page_layout(v, n).text for v in (VOLUME, "C0074513") for n in (1, 2)}
    assert len(texts) == 4


@pytest.mark.parametrize("page_no", [1, 2, 9, 40, 10001])
def test_a_page_is_portrait_and_holds_15_to_30_lines(page_no):
    layout = content.page_layout(VOLUME, page_no)
    assert 1500 <= layout.width <= 1700 and 2100 <= layout.height <= 2300
    assert (layout.width, layout.height) == content.page_size(VOLUME, page_no)
    assert 15 <= len(layout.lines) <= 30
    assert all(len(line.words) >= 1 for line in layout.lines)


def test_line_polygons_are_wavy_and_wrap_every_word_box():
    for page_no in (1, 2, 3):
        for line in content.page_layout(VOLUME, page_no).lines:
            polygon = list(line.polygon)
            assert 8 <= len(polygon) <= 16
            assert len({y for _, y in polygon}) > 2, "a polygon should not be a plain rectangle"
            for word in line.words:
                x, y, w, h = word.box
                for corner in ((x, y), (x + w, y), (x + w, y + h), (x, y + h)):
                    assert polygon_contains(polygon, *corner), (line.id, word.text, corner)


def test_baselines_run_inside_their_line_polygons():
    for line in content.page_layout(VOLUME, 4).lines:
        assert all(polygon_contains(list(line.polygon), x, y) for x, y in line.baseline[1:-1])


def test_confidences_are_mostly_high_with_a_few_poor_lines():
    layouts = [content.page_layout(VOLUME, n) for n in range(1, 6)]
    for layout in layouts:
        poor = [line for line in layout.lines if line.confidence < 0.65]
        assert len(poor) in (1, 2, 3)
        assert all(0.3 <= w.confidence <= 0.6 for line in poor for w in line.words)
    words = [w for layout in layouts for line in layout.lines for w in line.words]
    assert sum(0.85 <= w.confidence <= 0.99 for w in words) / len(words) > 0.75


def test_a_word_broken_across_lines_carries_the_whole_word_on_both_parts():
    _, line, following = hyphenated_lines()
    first, second = line.words[-1], following.words[0]
    assert first.subs_type == "HypPart1" and second.subs_type == "HypPart2"
    assert first.subs_content == second.subs_content == first.text + second.text
    assert line.text.endswith("-")


def test_text_reads_like_a_swedish_parish_register():
    text = "\n".join(content.page_layout(VOLUME, n).text for n in range(1, 8))
    assert "Anno" in text and "Församling" in text
    assert re.search(r"\b(födde|död|vigde|utflyttad)\b", text)
    assert re.search(r"\w+(son|dotter)\b", text)


# ---- ALTO and PAGE XML ------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [2, 3, 4])
def test_alto_has_the_stated_structure(version):
    layout = content.page_layout(VOLUME, 2)
    root = SafeET.fromstring(content.alto_xml(layout, version))
    ns = alto_ns(version)
    assert root.tag == f"{{{content.ALTO_NAMESPACES[version]}}}alto"
    assert root.findtext("a:Description/a:MeasurementUnit", namespaces=ns) == "pixel"
    assert root.findtext("a:Description/a:sourceImageInformation/a:fileName", namespaces=ns) == layout.image_filename
    page = root.find("a:Layout/a:Page", ns)
    assert (int(page.get("WIDTH")), int(page.get("HEIGHT"))) == (layout.width, layout.height)
    space = page.find("a:PrintSpace", ns)
    assert (space.get("WIDTH"), space.get("HEIGHT")) == (str(layout.width), str(layout.height))
    lines = space.findall("a:TextBlock/a:TextLine", ns)
    assert len(lines) == len(layout.lines)
    for element, line in zip(lines, layout.lines, strict=True):
        points = element.find("a:Shape/a:Polygon", ns).get("POINTS").split(" ")
        assert [tuple(map(int, p.split(","))) for p in points] == list(line.polygon)
        strings = element.findall("a:String", ns)
        assert [s.get("CONTENT") for s in strings] == [w.text for w in line.words]
        for string in strings:
            assert {"HPOS", "VPOS", "WIDTH", "HEIGHT", "CONTENT", "WC"} <= set(string.keys())
            assert 0 < float(string.get("WC")) < 1


def test_alto_4_writes_baselines_as_points_and_older_versions_as_a_number():
    layout = content.page_layout(VOLUME, 2)
    v4 = SafeET.fromstring(content.alto_xml(layout, 4)).find(".//a:TextLine", alto_ns(4)).get("BASELINE")
    v2 = SafeET.fromstring(content.alto_xml(layout, 2)).find(".//a:TextLine", alto_ns(2)).get("BASELINE")
    assert re.fullmatch(r"\d+,\d+( \d+,\d+)+", v4)
    assert re.fullmatch(r"\d+", v2)


def test_alto_marks_hyphenated_words_with_hyp_and_subs_content():
    layout, hyphenated, _ = hyphenated_lines()
    root = SafeET.fromstring(content.alto_xml(layout))
    ns = alto_ns(4)
    line = next(el for el in root.iter(f"{{{ns['a']}}}TextLine") if el.get("ID") == hyphenated.id)
    children = list(line)
    assert children[-1].tag.endswith("HYP") and children[-1].get("CONTENT") == "-"
    last = children[-2]
    assert last.get("SUBS_TYPE") == "HypPart1" and last.get("SUBS_CONTENT").startswith(last.get("CONTENT"))
    continuation = [s for s in root.iter(f"{{{ns['a']}}}String") if s.get("SUBS_TYPE") == "HypPart2"]
    assert any(s.get("SUBS_CONTENT") == last.get("SUBS_CONTENT") for s in continuation)


def test_alto_can_write_points_the_older_way_with_spaces():
    root = SafeET.fromstring(content.alto_xml(content.page_layout(VOLUME, 2), 3, points_style="spaces"))
    points = root.find(".//a:TextLine/a:Shape/a:Polygon", alto_ns(3)).get("POINTS")
    assert "," not in points and len(points.split(" ")) % 2 == 0


@pytest.mark.parametrize(("unit", "per_inch"), [("mm10", 254), ("inch1200", 1200)])
def test_alto_in_other_measurement_units_converts_coordinates(unit, per_inch):
    layout = content.page_layout(VOLUME, 2)
    root = SafeET.fromstring(content.alto_variant(layout, unit))
    ns = alto_ns(4)
    assert root.findtext(".//a:MeasurementUnit", namespaces=ns) == unit
    factor = per_inch / layout.dpi
    assert int(root.find(".//a:Page", ns).get("WIDTH")) == round(layout.width * factor)
    first = root.find(".//a:String", ns)
    assert int(first.get("HPOS")) == round(layout.lines[0].words[0].hpos * factor)


def test_alto_variants_for_odd_pages():
    layout = content.page_layout(VOLUME, 2)
    ns = alto_ns(4)
    empty = SafeET.fromstring(content.alto_variant(layout, "empty"))
    assert empty.find(".//a:Page", ns) is not None and empty.find(".//a:TextLine", ns) is None
    outside = SafeET.fromstring(content.alto_variant(layout, "outside"))
    width, height = layout.width, layout.height

    def off_page(line):
        right = int(line.get("HPOS")) + int(line.get("WIDTH"))
        bottom = int(line.get("VPOS")) + int(line.get("HEIGHT"))
        return right > width or bottom > height

    stray = [line for line in outside.iter(f"{{{ns['a']}}}TextLine") if off_page(line)]
    assert len(stray) == 1


def test_hostile_alto_keeps_markup_as_escaped_text():
    raw = content.alto_variant(content.page_layout(VOLUME, 2), "hostile", 2)
    assert b"<script>" not in raw and b"<img" not in raw
    contents = [s.get("CONTENT") for s in SafeET.fromstring(raw).iter(f"{{{content.ALTO_NAMESPACES[2]}}}String")]
    assert "<script>alert(1)</script>" in contents
    assert '"><img src=x onerror=alert(2)>' in contents


def test_page_xml_has_regions_lines_coords_baselines_and_text():
    layout = content.page_layout(VOLUME, 5)
    root = SafeET.fromstring(content.page_xml(layout))
    ns = {"p": content.PAGE_NAMESPACE}
    page = root.find("p:Page", ns)
    assert (page.get("imageWidth"), page.get("imageHeight")) == (str(layout.width), str(layout.height))
    lines = root.findall("p:Page/p:TextRegion/p:TextLine", ns)
    assert len(lines) == len(layout.lines)
    for element, line in zip(lines, layout.lines, strict=True):
        assert element.find("p:Coords", ns).get("points") == " ".join(f"{x},{y}" for x, y in line.polygon)
        assert element.find("p:Baseline", ns).get("points")
        assert element.findtext("p:TextEquiv/p:Unicode", namespaces=ns) == line.text


# ---- bucket JSON ------------------------------------------------------------------------------------------


def test_progress_matches_the_wrappers_bytes():
    text = content.progress_json(
        "stream",
        pages_total=412,
        pages_done=137,
        pages_failed=1,
        last_page=138,
        last_error={
            "page": "0044",
            "error": "page 0044: htrflow's Segmentation (model Riksarkivet/yolov9-regions-1) worker thread died; "
            "the page is marked failed and the pipeline is rebuilt",
        },
        viewer_published=True,
        started_at=datetime(2026, 9, 24, 8, 2, 11, tzinfo=UTC),
        updated_at="2026-09-24T08:31:47+00:00",
    )
    assert text == RUNNING_PROGRESS


@pytest.mark.parametrize("stage", ["stream", "verify", "publish", "done", "failed"])
def test_progress_keys_follow_the_samples(stage):
    record = json.loads(content.progress_json(stage, pages_total=3, started_at=START, updated_at=START))
    assert list(record) == PROGRESS_KEYS


@pytest.mark.parametrize("stage", ["setup", "resume", "load"])
def test_progress_before_the_page_count_is_known_has_no_total(stage):
    text = content.progress_json(stage, started_at=START, updated_at=START)
    assert list(json.loads(text)) == [k for k in PROGRESS_KEYS if k != "pages_total"]


def test_progress_is_one_line_and_keeps_non_ascii_text():
    text = content.progress_json(
        "failed", pages_total=0, errors=1, last_error={"page": "0001", "error": "sidan saknas: Församling"},
        started_at=START, updated_at=START, quality=content.progress_quality(VOLUME, 3),
    )  # fmt: skip
    assert "\n" not in text and "Församling" in text and '", "' in text
    assert json.loads(text)["quality"]["scored"] == 3


def test_manifest_keys_and_results_follow_the_sample():
    record = json.loads(content.manifest_json(VOLUME, PIPELINE, pages=40, failed_pages=[3, 17], skipped_pages=[1]))
    assert list(record) == MANIFEST_KEYS + ["quality"]
    assert list(record["quality"]) == QUALITY_KEYS
    assert record["pages"] == 40 and record["pages_ok"] == 38 and record["pages_failed"] == 2
    results = record["results"]
    assert list(results) == [f"{n:04d}" for n in range(1, 41)]
    assert results["0001"]["status"] == "skipped"
    assert results["0003"]["status"] == "failed" and results["0003"]["error"]
    assert results["0002"]["status"] == "ok" and 0 < results["0002"]["quality"] <= 1
    assert record["viewer_url"] == f"{content.DEFAULT_RESULTS_URL}/htr-batch/{PIPELINE}/{VOLUME}/iiif.json"
    lowest = [entry["quality"] for entry in record["quality"]["lowest"]]
    assert lowest == sorted(lowest) and lowest[0] == record["quality"]["min"]


def test_progress_quality_is_the_manifest_block_without_its_target():
    block = content.progress_quality(VOLUME, [1, 2, 4, 5, 6, 7, 8])
    assert list(block) == [k for k in QUALITY_KEYS if k != "target"]
    assert block["scored"] == 7 and len(block["lowest"]) == 5
    assert block["lowest"][0]["quality"] == block["min"]
    assert all(entry["page"] != "0003" for entry in block["lowest"])  # page 3 was not scored
    assert content.progress_quality(VOLUME, []) is None


def test_manifest_without_quality_leaves_the_block_out():
    record = json.loads(content.manifest_json(VOLUME, PIPELINE, pages=4, failed_pages=[3], with_quality=False))
    assert list(record) == MANIFEST_KEYS
    assert "quality" not in record["results"]["0001"]


def test_iiif_manifest_canvases_paint_the_page_and_point_at_its_alto():
    base = "http://127.0.0.1:9999"
    record = json.loads(content.iiif_json("vol 1", PIPELINE, pages=[1, 2, 3], image_base=base))
    assert record["type"] == "Manifest" and len(record["items"]) == 3
    canvas = record["items"][1]
    assert (canvas["width"], canvas["height"]) == content.page_size("vol 1", 2)
    annotation = canvas["items"][0]["items"][0]
    assert annotation["motivation"] == "painting" and annotation["target"] == canvas["id"]
    assert annotation["body"]["service"][0] == {"id": f"{base}/iiif/vol%201/2", "type": "ImageService3",
                                                "profile": "level1"}  # fmt: skip
    assert canvas["seeAlso"][0]["id"] == f"{content.DEFAULT_RESULTS_URL}/htr-batch/{PIPELINE}/vol%201/alto/0002.xml"


# ---- run logs ---------------------------------------------------------------------------------------------


def last_line(text):
    return text.rstrip("\n").rsplit("\n", 1)[-1]


def test_a_complete_log_ends_with_the_complete_line():
    log = content.run_log(VOLUME, PIPELINE, pages=23, failed_pages=[3, 12], start=START)
    match = COMPLETE.search(last_line(log))
    assert match and match["volume"] == VOLUME
    assert (match["pages"], match["processed"], match["failed"]) == ("23", "23", "2")
    assert match["viewer"] == f"{content.DEFAULT_RESULTS_URL}/htr-batch/{PIPELINE}/{VOLUME}/iiif.json"
    resume = [RESUME.search(line) for line in log.splitlines() if RESUME.search(line)]
    assert [(m["done"], m["todo"]) for m in resume] == [("0", "23")]


def test_log_lines_look_like_python_logging_with_frequent_http_requests():
    log = content.run_log(VOLUME, PIPELINE, pages=30, failed_pages=[5], start=START)
    lines = log.splitlines()
    logged = [line for line in lines if LOG_LINE.match(line)]
    continuation = [line for line in lines if not LOG_LINE.match(line)]
    assert continuation and continuation[0] == "Traceback (most recent call last):"
    assert len(logged) > 0.8 * len(lines)
    assert sum("HTTP Request: GET https://" in line and '"HTTP/1.1 200 OK"' in line for line in lines) >= 30
    assert any(" WARNING " in line for line in logged) and any(" ERROR " in line for line in logged)
    assert "\x1b[" in log and "<script>alert(1)</script>" in log
    assert lines[0].startswith("2026-12-02 10:14:03,")


def test_permanent_failure_ends_the_log_with_stage_error_and_advice():
    log = content.run_log(VOLUME, PIPELINE, pages=12, outcome="permanent", stage="setup", start=START)
    match = PERMANENT.search(last_line(log))
    assert match and match["stage"] == "setup" and "HTTP 404" in match["error"]
    assert "resume:" not in log


def test_transient_failure_on_the_last_attempt_says_so():
    log = content.run_log(VOLUME, PIPELINE, pages=12, outcome="transient-last", stage="stream", start=START,
                          error="upload failed: UploadOutage")  # fmt: skip
    match = TRANSIENT_LAST.search(last_line(log))
    assert match and match["stage"] == "stream" and match["error"].startswith("upload failed: UploadOutage")


def test_a_transient_failure_that_will_be_retried():
    log = content.run_log(VOLUME, PIPELINE, pages=12, outcome="transient", stage="load", start=START)
    line = last_line(log)
    assert TRANSIENT.search(line)["stage"] == "load" and not TRANSIENT_LAST.search(line)


def test_a_running_log_has_no_ending_and_stops_midway():
    log = content.run_log(VOLUME, PIPELINE, pages=20, outcome="running", pages_done=7, start=START)
    assert "page 0007 ok" in log and "page 0008" not in log
    assert not any(p.search(log) for p in (COMPLETE, PERMANENT, TRANSIENT))


def test_a_resumed_attempt_skips_the_pages_already_done():
    log = content.run_log(VOLUME, PIPELINE, pages=20, resumed=15, attempt=2, start=START)
    resume = RESUME.search(next(line for line in log.splitlines() if "resume:" in line))
    assert (resume["done"], resume["todo"]) == ("15", "5")
    assert "page 0015" not in log and "page 0016 ok" in log
    assert COMPLETE.search(last_line(log))["processed"] == "5"


def test_the_writer_gives_the_same_log_in_pieces_as_at_once():
    def writer():
        return content.RunLogWriter(VOLUME, PIPELINE, pages_total=12, start=START, failed_pages=[4])

    whole = writer()
    at_once = whole.opening() + whole.pages(1, 12) + whole.ending("complete")
    pieces = writer()
    in_pieces = pieces.opening() + pieces.pages(1, 5) + pieces.pages(6, 12) + pieces.ending("complete")
    assert in_pieces == at_once
    assert at_once == content.run_log(VOLUME, PIPELINE, pages=12, failed_pages=[4], start=START)


def test_the_writer_can_stamp_pages_at_the_simulators_time():
    writer = content.RunLogWriter(VOLUME, PIPELINE, pages_total=5, start=START)
    writer.opening()
    later = datetime(2026, 12, 2, 11, 0, 0, tzinfo=UTC)
    chunk = writer.pages(1, 2, at=later)
    assert last_line(chunk).startswith("2026-12-02 11:00:0")


def test_a_big_log_fills_almost_4_mib_and_still_ends_complete():
    log = content.big_run_log()
    size = len(log.encode("utf-8"))
    assert 3.8 * 1024 * 1024 < size <= content.LOG_LIMIT
    assert COMPLETE.search(last_line(log))


# ---- image server -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def images():
    with ImageServer() as server:
        server.register_volume(VOLUME, 3)
        server.register_volume("vol 1", 1)
        yield server


def fetch(server, path):
    return requests.get(server.url + path, timeout=TIMEOUT, allow_redirects=False)


def test_info_json_describes_the_page(images):
    answer = fetch(images, f"/iiif/{VOLUME}/2/info.json")
    assert answer.status_code == 200
    info = answer.json()
    assert (info["width"], info["height"]) == content.page_size(VOLUME, 2)
    assert info["id"] == f"{images.url}/iiif/{VOLUME}/2" and info["type"] == "ImageService3"
    assert answer.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize(
    ("size", "expected"),
    [("200,", lambda w, h: (200, round(h * 200 / w))), (",150", lambda w, h: (round(w * 150 / h), 150)),
     ("!120,120", lambda w, h: (round(w * 120 / h), 120)), ("pct:10", lambda w, h: (round(w / 10), round(h / 10)))],
)  # fmt: skip
def test_page_images_come_as_jpeg_of_the_asked_size(images, size, expected):
    answer = fetch(images, f"/iiif/{VOLUME}/1/full/{size}/0/default.jpg")
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "image/jpeg"
    picture = Image.open(io.BytesIO(answer.content))
    assert picture.format == "JPEG"
    assert picture.size == expected(*content.page_size(VOLUME, 1))


def test_a_percent_encoded_volume_id_is_decoded(images):
    assert fetch(images, "/iiif/vol%201/1/full/60,/0/default.jpg").status_code == 200


def test_a_repeated_request_gets_the_same_bytes_from_the_cache(images):
    first = fetch(images, f"/iiif/{VOLUME}/3/full/90,/0/default.jpg").content
    assert fetch(images, f"/iiif/{VOLUME}/3/full/90,/0/default.jpg").content == first
    assert (VOLUME, 3, "full", "90,", "jpg") in images.responses.items


def test_the_render_cache_is_bounded():
    server = ImageServer(cache_images=2)
    server.register_volume(VOLUME, 1)
    for width in (40, 50, 60):
        server.image(VOLUME, 1, "full", f"{width},")
    assert len(server.rendered.items) == 2


@pytest.mark.parametrize(
    ("path", "status"),
    [(f"/iiif/{VOLUME}/4/info.json", 404), ("/iiif/C9999999/1/info.json", 404), (f"/iiif/{VOLUME}/0/info.json", 404),
     (f"/iiif/{VOLUME}/1/full/huge/0/default.jpg", 400), (f"/iiif/{VOLUME}/1/full/max/90/default.jpg", 400),
     ("/manifests/C9999999/manifest.json", 404), ("/etc/passwd", 404), (f"/iiif/{VOLUME}/1", 303)],
)  # fmt: skip
def test_unknown_or_bad_requests_get_a_plain_answer(images, path, status):
    answer = fetch(images, path)
    assert answer.status_code == status
    if status != 303:
        assert answer.headers["Content-Type"].startswith("text/plain") and answer.text


def test_head_answers_the_headers_without_a_body(images):
    answer = requests.head(f"{images.url}/iiif/{VOLUME}/1/full/50,/0/default.jpg", timeout=TIMEOUT)
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "image/jpeg"
    assert int(answer.headers["Content-Length"]) > 0 and answer.content == b""


def test_the_source_manifest_lists_every_registered_page(images):
    manifest = fetch(images, f"/manifests/{VOLUME}/manifest.json").json()
    assert manifest["id"] == f"{images.url}/manifests/{VOLUME}/manifest.json"
    services = [c["items"][0]["items"][0]["body"]["service"][0]["id"] for c in manifest["items"]]
    assert services == [f"{images.url}/iiif/{VOLUME}/{n}" for n in (1, 2, 3)]


def test_ink_lies_inside_the_line_polygons_and_not_in_the_margins(images):
    layout = content.page_layout(VOLUME, 2)
    picture = Image.open(io.BytesIO(fetch(images, f"/iiif/{VOLUME}/2/full/600,/0/default.jpg").content))
    grey = picture.convert("L")
    scale = picture.width / layout.width
    lines_mask = Image.new("L", picture.size, 0)
    draw = ImageDraw.Draw(lines_mask)
    for line in layout.lines:
        draw.polygon([(x * scale, y * scale) for x, y in line.polygon], fill=255, outline=255, width=3)
    dark = grey.point(lambda v: 255 if v < 100 else 0)
    dark_pixels = dark.histogram()[255]
    outside = ImageChops.subtract(dark, lines_mask).histogram()[255]
    assert dark_pixels > 2000
    assert outside <= dark_pixels * 0.002
    for line in layout.lines:
        x, y, w, h = (round(v * scale) for v in line.box)
        assert dark.crop((x, y, x + w + 1, y + h + 1)).getbbox() is not None, f"no ink on line {line.id}"


@given(st.integers(1, 3000), st.integers(1, 3000), st.sampled_from(["max", "{a},", ",{b}", "!{a},{b}", "pct:{p}"]),
       st.integers(1, 4000), st.integers(1, 4000), st.integers(1, 100))  # fmt: skip
def test_a_size_never_exceeds_its_region(region_w, region_h, pattern, a, b, p):
    w, h = parse_size(pattern.format(a=a, b=b, p=p), region_w, region_h)
    assert 0 < w <= region_w
    assert 0 < h <= region_h


def test_a_log_writer_continues_after_the_last_time_already_written():
    from devstack.content_log import RunLogWriter, last_log_time, log_time

    written = "2026-12-02 14:48:38,120 INFO x: b\n  traceback body\n2026-12-02 14:48:30,000 INFO x: a\n"
    latest = last_log_time(written)
    assert latest == datetime(2026, 12, 2, 14, 48, 38, 120000, tzinfo=UTC)
    assert last_log_time("no times here\n") is None
    writer = RunLogWriter("C1", "p", pages_total=5, start=datetime(2026, 12, 2, 14, 48, 35, tzinfo=UTC))
    writer.continue_after(latest)
    text = writer.pages(1, 2, at=datetime(2026, 12, 2, 14, 48, 36, tzinfo=UTC))
    times = re.findall(r"^(\S+ \S+) ", text, re.MULTILINE)
    assert times and times == sorted(times) and times[0] > log_time(latest)
