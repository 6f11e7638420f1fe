"""The diagnosis: the troubleshooting guide's *Check* steps done by the product, each answering with a
:class:`~campaigns.models.findings.Finding` (or None when its cause does not hold).

Pure: plain API dicts in, data out, no I/O, no Django, no sentences (``campaigns.wording`` words the
findings). One module per cause; the codes are in :mod:`campaigns.domain.diagnosis.codes`, every fix
step in :mod:`campaigns.domain.diagnosis.commands`.

- ``warmup.marker_missing``: a Complete warm-up whose marker the pods did not find (placement, claim,
  directory, ReadWriteOnce node, replaced claim, in that order);
- ``wait``: the marker wait limit and the pods waiting in ``warmup-wait``;
- ``queue.queue_finding``: Kueue's QuotaReserved reason and message, matched against ResourceFlavors;
- ``kueue_health.kueue_health``: Kueue's controller, checked before any Workload reason;
- ``results.results_address``: the address a campaign publishes under against the site's;
- ``failures.model_not_in_cache``: an error that says the model is not in the offline cache;
- ``cache.model_cache``: a pipeline's model cache, with the guide's debug pod.

The projection sits above this package and imports it; nothing here imports the projection.
"""
