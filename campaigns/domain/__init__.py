"""Pure campaign logic: the projection of cluster objects into campaigns, quality, re-run files, ranges.

No I/O here and no words: it imports only the models and core (campaigns.wording sits above it)."""
