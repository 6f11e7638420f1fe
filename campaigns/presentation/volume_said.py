"""What the campaign says of one volume, for the pages that show that volume alone (its run log today).

The same account as the volume's row and the campaign's card, never a second one: the row's sentence, the
findings about this volume, and the campaign's finding that holds the volume back (its queue, its model
cache, or the results address its pages are refused under). Each is a :class:`Sentence`; the viewer shows
the archivist's text, with the operator's detail and commands one click away.
"""

from __future__ import annotations

from campaigns.models import Campaign, Sentence, Volume
from campaigns.models.findings import Finding
from campaigns.wording.findings import finding_sentence
from campaigns.wording.states import HELD_AREAS, WARMUP_AREAS, held_by
from campaigns.wording.volumes import volume_sentence

RESULTS_OTHER_ADDRESS = "results.other_address"  # the viewers are refused for this volume's campaign


def volume_said(campaign: Campaign, volume_id: str) -> list[Sentence]:
    """The sentences the campaign's page says of ``volume_id``, the volume's own first; none for a volume
    that is done or not started (its row says nothing a log page needs)."""
    volume = next((v for v in campaign.volumes.notable() if v.id == volume_id), None)
    said = [volume_sentence(volume)] if volume is not None else []
    said += [finding_sentence(finding) for finding in _findings_for(campaign, volume, volume_id)]
    return [sentence for sentence in said if sentence.text]


def _findings_for(campaign: Campaign, volume: Volume | None, volume_id: str) -> list[Finding]:
    held = held_by(campaign)
    waits_for_cache = volume is not None and (
        volume.waiting_for_cache or (volume.reason is not None and volume.reason.kind == "warmup_marker")
    )
    found = []
    for finding in campaign.findings:
        if finding.subject.volume:
            mine = finding.subject.volume == volume_id
        else:
            mine = (
                finding is held
                or (waits_for_cache and finding.area in WARMUP_AREAS)
                or finding.code == RESULTS_OTHER_ADDRESS
            )
        if mine and (finding.area not in HELD_AREAS or finding is held):
            found.append(finding)
    return found
