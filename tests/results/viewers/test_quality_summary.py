"""The run log's summary names the predicted quality of a volume's pages and the model that scored it."""

import json
import re

from devstack.content import manifest_json
from devstack.content_json import QUALITY_MODEL, QUALITY_MODEL_REVISION


def summary_of(results_client, volume):
    page = results_client.get("/log", {"log": volume["log"], "manifest": volume["manifest"]}).content.decode()
    return page[page.index('<section class="log-summary"') :].split("</section>")[0]


def test_a_scored_volume_names_its_quality_and_the_model_and_revision_that_scored_it(
    results_client,
    store,
    volume,
):
    manifest = json.loads(store.get(volume["base"] + "/manifest.json"))
    summary = summary_of(results_client, volume)
    facts = re.sub(r"<[^>]+>", "", summary)
    mean = f"{manifest['quality']['mean']:.2f}"
    assert f"Predicted quality{mean} (" in facts and "on average over 3 pages" in facts
    assert "A prediction from 0 to 1 of bow_f1: the expected bag-of-words F1" in facts
    assert f"Scored by{QUALITY_MODEL} at revision {QUALITY_MODEL_REVISION[:12]}…" in facts
    assert f'title="{QUALITY_MODEL_REVISION}"' in summary
    lowest = manifest["quality"]["lowest"][0]["page"]
    assert re.search(rf'<a href="/alto\?src=[^"]+{lowest}\.xml">{lowest}</a>', summary)
    assert '<th scope="col">Predicted quality</th>' in summary


def test_an_unscored_volume_says_nothing_about_quality(results_client, store, volume):
    unscored = manifest_json("V1", "p", pages=4, failed_pages=[3], with_quality=False)
    store.put(volume["base"] + "/manifest.json", unscored)
    summary = summary_of(results_client, volume)
    assert "3 ok · 1 failed" in summary
    assert "quality" not in summary.lower() and "Scored by" not in summary
