"""Pure campaign logic: the projection of cluster objects into campaigns, quality, re-run files, ranges.

No I/O here; it imports only the wording, the models and core."""
