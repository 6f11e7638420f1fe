"""The volume list (campaigns.models.volume_list) and projection.volume_parts: objects only for notable volumes."""

from __future__ import annotations

from campaigns.domain.projection import project
from campaigns.domain.projection.volume_parts import volume_lines
from campaigns.models.volume_list import Volumes
from devstack import kube_samples as o
from tests.campaigns.said import said


def parish():
    return next(c for c in project(o.scene(), o.NOW) if c.name == "parish-records-1870")


def test_only_failed_volumes_and_those_with_pods_are_objects_before_anyone_asks():
    campaign = parish()
    notable = campaign.volumes.notable()
    assert {v.state for v in notable} <= {"failed", "active", "pending"}
    assert len(notable) < len(campaign.volumes)
    assert all(v.state != "done" for v in notable)


def test_the_sequence_reads_like_the_whole_list_in_index_order():
    campaign = parish()
    volumes = list(campaign.volumes)
    assert len(volumes) == campaign.counts.total == len(campaign.volumes)
    assert [v.index for v in volumes] == list(range(campaign.counts.total))
    assert sum(1 for v in volumes if v.state == "done") == campaign.counts.done
    assert campaign.volumes[0].id == volumes[0].id and campaign.volumes[-1].id == volumes[-1].id
    assert [v.id for v in campaign.volumes[2:5]] == [v.id for v in volumes[2:5]]


def test_a_volume_made_on_demand_has_its_sentence():
    done = parish().volumes.in_state("done", limit=1)[0]
    assert said(done).text == "Done."


def test_select_pages_the_volumes_of_one_state_and_counts_them_all():
    campaign = parish()
    page, matching = campaign.volumes.select("done", "", 2, 3)
    assert matching == campaign.counts.done
    assert [v.state for v in page] == ["done"] * 3
    every_done = [v for v in campaign.volumes if v.state == "done"]
    assert [v.index for v in page] == [v.index for v in every_done[2:5]]


def test_select_and_find_match_volume_ids_without_regard_to_case():
    campaign = parish()
    wanted = campaign.volumes[3].id
    page, matching = campaign.volumes.select("", wanted.lower(), 0, 10)
    assert matching == 1 and page[0].id == wanted
    assert [v.id for v in campaign.volumes.find(wanted.upper())] == [wanted]


def test_find_prefers_an_exact_id_to_ids_that_contain_it():
    campaign = parish()
    ids = [v.id for v in campaign.volumes]
    prefix = ids[0][:4]
    assert len(campaign.volumes.find(prefix)) == sum(1 for i in ids if prefix.lower() in i.lower())


def test_a_plain_list_becomes_a_sequence_of_the_same_volumes():
    built = [v for v in parish().volumes]
    wrapped = Volumes.of(built)
    assert list(wrapped) == built and wrapped.notable() == built


def test_volume_lines_are_parsed_once_per_text():
    text = o.volumes_txt(o.PARISH_VOLUMES)
    assert volume_lines(text, 100) is volume_lines(text, 100)


def test_trailing_blank_lines_hold_no_volume():
    lines = volume_lines("A1\thttps://x/1\n\nA2\thttps://x/2\n\n\n", 100)
    assert len(lines) == 3 and lines.ident(2) == "A2" and not lines.has(1)


def test_a_malformed_line_is_an_unknown_volume_with_its_words():
    lines = volume_lines("good-1\thttps://x/1\nno tab here\n", 100)
    assert lines.malformed == frozenset({1}) and lines.ident(1) == "no tab here"
