"""What a reader is told of a projected object: its sentence, worded as a page would word it when rendered
(the projection itself holds no sentence)."""

from __future__ import annotations

from campaigns.models import Campaign, QueueState, Sentence, Volume, Warmup
from campaigns.wording.queue import queue_sentence
from campaigns.wording.states import campaign_sentence
from campaigns.wording.volumes import volume_sentence
from campaigns.wording.warmup import warmup_sentence


def said(thing: Campaign | Volume | Warmup | QueueState, namespace: str = "htr-batch") -> Sentence:
    if isinstance(thing, Campaign):
        return campaign_sentence(thing)
    if isinstance(thing, Volume):
        return volume_sentence(thing)
    if isinstance(thing, Warmup):
        return warmup_sentence(thing, namespace)
    if isinstance(thing, QueueState):
        return queue_sentence(thing, namespace)
    raise TypeError(f"nothing is worded for {type(thing).__name__}")
