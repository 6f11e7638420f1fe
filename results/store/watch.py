"""Every call to the results store, counted by outcome and watched for outages.

`results.store.s3` routes each S3 call through `watched`: the outcome goes to the metrics, and when the
store stops answering (unreachable, timing out, failing on its side) one WARNING says so with the
sentence people are shown; one more says when it answers again.
"""

from __future__ import annotations

import logging
from functools import wraps

from botocore.exceptions import BotoCoreError, ClientError
from django.utils import translation

from core import metrics
from core.outages import Outage
from results.store.outcomes import Outcome, is_not_modified, outcome_of

OUTAGE_OUTCOMES = {Outcome.UNREACHABLE, Outcome.TIMEOUT}
store_outage = Outage("results store", logging.getLogger("results.store.s3"))


def watched(call):
    @wraps(call)
    def watching(*args, **kwargs):
        try:
            answer = call(*args, **kwargs)
        except (ClientError, BotoCoreError) as error:
            _count_failure(error)
            raise
        metrics.store_call(metrics.OK)
        store_outage.working()
        return answer

    return watching


def _count_failure(error) -> None:
    if isinstance(error, ClientError) and is_not_modified(error):
        metrics.store_call("not_modified")
        store_outage.working()
        return
    outcome = outcome_of(error)
    metrics.store_call(outcome.outcome.value)
    if outcome.outcome in OUTAGE_OUTCOMES:
        with translation.override("en"):  # the server log's words, whoever's request met the outage
            sentence = outcome.sentence
        store_outage.failing(sentence, outcome=outcome.outcome.value)
    else:
        store_outage.working()
