"""Each contract rule, written once in core.contract, read the same way by every reader."""

from __future__ import annotations

from campaigns.domain.projection import campaign_key as projection_campaign_key
from campaigns.domain.projection import parse_volumes_txt
from campaigns.domain.projection.volume_parts import volume_lines
from core import contract, kubectl
from devstack import kube_samples as o
from results.viewers.volume_place import _fill_campaign, place_of_key


def test_a_part_has_at_most_six_digits_and_the_stem_as_its_campaign_label():
    assert contract.campaign_key("maps-1900-part2", "maps-1900") == ("maps-1900", 2)
    assert contract.campaign_key("maps-1900-part123456", "maps-1900") == ("maps-1900", 123456)
    assert contract.campaign_key("maps-1900-part1234567", "maps-1900") == ("maps-1900-part1234567", 0)
    assert contract.campaign_key("maps-1900-part2", "maps") == ("maps-1900-part2", 0)
    assert contract.campaign_key("maps-1900-part2", "") == ("maps-1900-part2", 0)
    assert contract.part_of("letters-part03") == ("letters", 3)
    assert contract.part_of("letters-partx") is None
    assert projection_campaign_key is contract.campaign_key


def test_the_breadcrumb_names_the_campaign_the_projection_groups_a_job_into():
    volumes = [("C1", "https://x/m")]
    for job, label in (("maps-part7", "maps"), ("maps-part1234567", "maps"), ("maps-part2", "other")):
        place = place_of_key("htr-batch/status/logs/swe-lines-v2/C1.txt")
        _fill_campaign(place, [o.campaign_record(job, volumes, campaign=label)])
        assert place.campaign == contract.campaign_key(job, label)[0]


TRICKY = "A1\tsrc-a\n\n  B2 \tsrc-b\r\nbad id\tsrc\nC3\n\tno-id\nB2\tagain\n"


def test_every_reader_of_volumes_txt_reads_the_same_lines():
    parsed = parse_volumes_txt(TRICKY)
    lazy = volume_lines(TRICKY, 100)
    assert sorted(parsed) == [0, 2, 3, 4, 5, 6]
    assert {i for i, line in parsed.items() if line.malformed} == {3, 4, 5} == set(lazy.malformed)
    for index, line in parsed.items():
        assert (lazy.ident(index), lazy.source(index)) == (line.id, line.source)
    assert parsed[2].id == "B2" and parsed[2].source == "src-b"
    assert contract.volume_line_index(TRICKY, "B2") == 2  # the first line that runs it
    assert contract.volume_line_index(TRICKY, "C3") is None  # malformed: runs nothing
    assert contract.volume_line_index(TRICKY, "A") is None
    assert contract.format_volumes_txt([("A1", "src-a")]) == "A1\tsrc-a\n"


def test_the_results_key_layout():
    assert contract.results_prefix("ns", "p") == "ns/p/"
    assert contract.progress_key("ns", "p", "v") == "ns/p/v/progress.json"
    assert contract.alto_key("ns", "p", "v", "0012") == "ns/p/v/alto/0012.xml"
    assert contract.run_log_key("ns", "p", "v") == "ns/status/logs/p/v.txt"
    assert contract.legacy_run_log_key("p", "v") == "status/logs/p/v.txt"
    assert contract.volume_of_key("ns/p/v/alto/0012.xml") == ("ns", "p", "v")
    assert contract.volume_of_key(contract.run_log_key("ns", "p", "v")) == ("ns", "p", "v")
    assert contract.volume_of_key("ns/status/x/y.json") is None


def test_kubectl_lines_name_the_namespace_only_when_there_is_one():
    assert kubectl.kubectl("get", "clusterqueue", "cq") == "kubectl get clusterqueue cq"
    assert kubectl.volume_commands("ns", "j", 3)[0] == (
        "kubectl -n ns get pods -l batch.kubernetes.io/job-name=j,batch.kubernetes.io/job-completion-index=3"
    )


def test_a_record_whose_volumes_txt_is_not_text_holds_no_volumes():
    for mangled in ([], {"a": 1}, 7, None):
        assert len(volume_lines(mangled, 100)) == 0
        assert parse_volumes_txt(mangled) == {}


def test_the_wording_names_a_part_as_the_projection_groups_it():
    from campaigns.wording.words import campaign_label

    assert campaign_label("maps-1900-part12345") == "maps-1900 (part 12345)"
    assert campaign_label("maps-1900-part1234567") == "maps-1900-part1234567"


def test_kubectl_lines_are_built_only_by_core_kubectl():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    builders = []
    for package in ("campaigns", "results", "htrbrowser"):
        for path in (root / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                first = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else node
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    if first.value.startswith("kubectl "):
                        builders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert builders == []
