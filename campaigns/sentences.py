"""The campaign wording now lives in ``campaigns.wording``, by subject.

Only the projection and ``volume_list`` still read these four from here, until they import the
wording themselves (their files are being changed for the shared contract meanwhile); nothing else
should.
"""

from campaigns.wording.queue import queue_sentence
from campaigns.wording.states import campaign_sentence
from campaigns.wording.volumes import volume_sentence
from campaigns.wording.warmup import warmup_sentence

__all__ = ["campaign_sentence", "queue_sentence", "volume_sentence", "warmup_sentence"]
