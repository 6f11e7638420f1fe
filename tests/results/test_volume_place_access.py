"""The viewers name the campaign that ran a volume (breadcrumbs, Job, kubectl lines) only to a person
who may see that campaign: a page that says a file is not there must not tell a hidden campaign's name."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from results.accounts.session import ResultsSession
from results.store import access
from results.viewers.volume_place import find_place
from tests.campaigns.web.test_views import add_campaign, prepared_cluster
from tests.fixtures.kube import settled

KEY = "htr-batch/status/logs/swe-lines-v2/C1.txt"


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


def request_as(reads_namespace):
    request = RequestFactory().get("/log")
    request.results_session = ResultsSession("someone", "AKEXAMPLE", "secret", issued_at=0,
                                             reads_namespace=reads_namespace)
    return request


@pytest.mark.parametrize(("reads_namespace", "named"), [(True, True), (False, False), (None, False)])
def test_the_campaign_is_named_only_to_whoever_may_see_it(cluster, settings, reads_namespace, named):
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    access.clear_cache()
    add_campaign(cluster, "hidden-parish", volume_ids=["C1", "C2"], completed="0")
    settled()
    place = find_place(KEY, request_as(reads_namespace))
    assert place.volume == "C1"
    assert (place.campaign == "hidden-parish") is named
    assert bool(place.commands) is named


def test_a_proof_that_covers_the_pipeline_names_it(cluster, settings):
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    access.clear_cache()
    add_campaign(cluster, "own-parish", volume_ids=["C1"], completed="0")
    settled()
    request = request_as(False)
    proved = access.Access(readable=frozenset({"htr-batch/swe-lines-v2/"}), proved_at=access._clock())
    access._proofs.put(access._key_of("AKEXAMPLE", "secret"), proved)
    assert find_place(KEY, request).campaign == "own-parish"
