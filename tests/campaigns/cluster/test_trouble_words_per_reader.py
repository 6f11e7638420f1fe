"""The cluster's trouble is met once, by a board's thread, and told to every reader: its words are kept lazy and
said in the language of the page that shows them, never in the language of whoever met the trouble first."""

from __future__ import annotations

import urllib3
from django.utils import translation
from django.utils.translation import gettext_lazy

from campaigns.cluster import kube, reading
from tests.campaigns.cluster.test_kube import NS
from tests.campaigns.some_swedish import pretend_swedish

ANSWERED = "The cluster's API answered {status} ({reason}) instead of the campaigns."
SLOW = (
    "The cluster is too slow to answer. Its API server took the connection but did not answer within "
    "{seconds} seconds."
)


def test_an_answer_met_in_one_language_is_said_in_each_readers(monkeypatch):
    pretend_swedish(monkeypatch, {ANSWERED: "Klustrets API svarade {status} ({reason}) i stället för kampanjerna."})
    with translation.override("en"):  # the board's thread, in the site's language
        trouble = kube.answered(500, "Internal Server Error")
    with translation.override("sv"):
        assert trouble.sentence == "Klustrets API svarade 500 (Internal Server Error) i stället för kampanjerna."
    with translation.override("en"):
        assert trouble.sentence == "The cluster's API answered 500 (Internal Server Error) instead of the campaigns."
    assert trouble.cause == kube.BROKEN and trouble.status == 500


def test_the_timeout_in_a_sentence_is_a_number_of_the_readers_locale(monkeypatch, settings):
    settings.HTRFLOW_KUBE_TIMEOUT = 0.5
    pretend_swedish(monkeypatch, {SLOW: "Klustret svarar för långsamt: inget svar inom {seconds} sekunder."})
    with translation.override("en"):
        slow = kube._connection_trouble(urllib3.exceptions.ReadTimeoutError(None, "/", "read timed out"))
    assert slow.cause == kube.SLOW
    with translation.override("sv"):
        assert slow.sentence == "Klustret svarar för långsamt: inget svar inom 0,5 sekunder."
    with translation.override("en"):
        assert slow.sentence.endswith("did not answer within 0.5 seconds.")


def test_a_page_reads_the_trouble_in_its_own_language(monkeypatch, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    pretend_swedish(monkeypatch, {"The cluster has not been read yet.": "Klustret har inte lästs än."})
    with translation.override("en"):
        met = kube.ClusterUnavailable(gettext_lazy("The cluster has not been read yet."))

    def unreadable(namespace):
        raise met

    monkeypatch.setattr(reading, "read_namespace", unreadable)
    with translation.override("sv"):
        _campaign, swedish = reading.find_campaign(None, NS, "any-campaign", None)
    with translation.override("en"):
        _campaign, english = reading.find_campaign(None, NS, "any-campaign", None)
    assert swedish.problems == ["Klustret har inte lästs än."]
    assert english.problems == ["The cluster has not been read yet."]
    assert all(isinstance(problem, str) for problem in swedish.problems)  # joined into one sentence by the views
