"""A volume row's sentence: its failure (retrying, final, or behind it while it runs again) or its state."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.models import Sentence, Volume
from campaigns.wording.reasons import FINAL_ADVICE, reason_sentence, running_again_sentence

# A problem row whose volume has no sentence at all (the card never shows an empty row).
NO_SENTENCE = gettext_lazy("Stopped; the run log may say why.")


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
        return _malformed(volume)
    if volume.state == "done":
        return Sentence(_("Done."), tone="ok")
    if volume.state == "active" and volume.waiting_for_cache:
        return Sentence(
            _("Waiting for the model cache to be filled; it starts by itself once it is. Nothing to do."),
            # Translators: the operator's detail; {container} is a container's name (warmup-wait), {marker} the path
            # of the file it waits for (/data/warmup/swe-lines-v3.done).
            detail=_("{container} is waiting for {marker}").format(
                container="warmup-wait", marker=f"/data/warmup/{volume.pipeline}.done"
            ),
            tone="idle",
        )
    if volume.state == "active":
        return Sentence(_("Being processed now."), tone="info")
    if volume.state == "pending" and held:
        return Sentence(_("Not started: the whole campaign is held back, and its state above says why."), tone="idle")
    if volume.state == "pending":
        return Sentence(_("Waiting for a free slot; it starts by itself."), tone="idle")
    if volume.state == "failed":
        return Sentence(
            # Translators: {final_advice} is a whole sentence: "It has spent its retries, so nothing will run it ...".
            _("Failed, and what would have said why is gone. {final_advice} Its run log may tell more.").format(
                final_advice=FINAL_ADVICE
            ),
            tone="bad",
        )
    return Sentence(_("State not known: the campaign's own record is gone or did not report this volume."), tone="idle")


def _malformed(volume: Volume) -> Sentence:
    """A line of the campaign's volume list that could not be read: the volume's name is not known here."""
    line = volume.index + 1
    return Sentence(
        _(
            # Translators: {line} is a line's number in the campaign's list of volumes, counted from 1.
            "The campaign's volume list has no readable line {line}, so this volume's name is not known here and it "
            "may not run. If it is missing from the campaign file, add it to a new campaign."
        ).format(line=line),
        # Translators: the operator's detail; {file} is the list's file name (volumes.txt), {line} a line's number,
        # {expected} the form each line has, as it is written: '<volume id><TAB><source>'.
        detail=_("{file} line {line}: expected {expected}").format(
            file="volumes.txt", line=line, expected="'<volume id><TAB><source>'"
        ),
        tone="warn",
    )
