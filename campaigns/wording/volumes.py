"""A volume row's sentence: its failure (retrying, final, or behind it while it runs again) or its state."""

from __future__ import annotations

from campaigns.models import Sentence, Volume
from campaigns.wording.reasons import FINAL_ADVICE, reason_sentence, running_again_sentence

# A problem row whose volume has no sentence at all (the card never shows an empty row).
NO_SENTENCE = "Stopped; the run log may say why."


def volume_sentence(volume: Volume, namespace: str = "", held: bool = False) -> Sentence:
    """The sentence for one volume row: its failure (retrying or final) or its plain state.

    ``held`` (or ``volume.held``): the campaign itself is queued or paused, so a pending volume waits for
    the campaign.
    """
    namespace = namespace or volume.namespace
    held = held or volume.held
    if volume.reason is not None and volume.state == "active" and not volume.waiting_for_cache:
        return running_again_sentence(volume, namespace)
    if volume.reason is not None and volume.state in ("failed", "active", "pending", "unknown"):
        final = volume.state == "failed"
        return reason_sentence(volume.reason, final=final, volume=volume, namespace=namespace)
    if volume.malformed and volume.state not in ("done", "active"):
        return Sentence(
            f"The campaign's volume list has no readable line {volume.index + 1}, so this volume's name is not known "
            "here and it may not run. If it is missing from the campaign file, add it to a new campaign.",
            detail=f"volumes.txt line {volume.index + 1}: expected '<volume id><TAB><source>'",
            tone="warn",
        )
    if volume.state == "done":
        return Sentence("Done.", tone="ok")
    if volume.state == "active" and volume.waiting_for_cache:
        return Sentence(
            "Waiting for the model cache to be filled; it starts by itself once it is. Nothing to do.",
            detail=f"warmup-wait is waiting for /data/warmup/{volume.pipeline}.done",
            tone="idle",
        )
    if volume.state == "active":
        return Sentence("Being processed now.", tone="info")
    if volume.state == "pending" and held:
        return Sentence("Not started: the whole campaign is held back, and its state above says why.", tone="idle")
    if volume.state == "pending":
        return Sentence("Waiting for a free slot; it starts by itself.", tone="idle")
    if volume.state == "failed":
        return Sentence(
            f"Failed, and what would have said why is gone. {FINAL_ADVICE} Its run log may tell more.",
            tone="bad",
        )
    return Sentence("State not known: the campaign's own record is gone or did not report this volume.", tone="idle")
