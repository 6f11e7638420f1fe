"""Every sentence a person reads on a campaign page, by subject; nothing here decides or reads anything.

Facts below, words on top: the domain (the projection) records what it read as data — states,
names, counts, datetimes — and never calls these. The presentation (``cards``, ``overview``, the
feed, the read API) calls them when a page, poll, feed entry or API answer is rendered, so each
reader can be given their own words. They import only ``campaigns.models``, ``core`` and the
standard library.

- ``words``     the pieces every sentence is made of: stages, ages, counts, quoted messages, names
- ``reasons``   why a volume stopped: each failure class, retrying and final, and running again
- ``volumes``   a volume row's sentence: its failure or its plain state
- ``warmup``    the model-cache warm-up chip
- ``cache``     a pipeline's model cache under Operator details: each fact's label
- ``queue``     why a queued or paused campaign is not running
- ``states``    the campaign's state chip: its phase with its reason
- ``progress``  a running volume's progress line, and what the results store answered instead
- ``quality``   what a predicted quality score means, and which volumes a figure covers
- ``notes``     a card's notes: its page tally, failed pages, volumes the account may not read
- ``lists``     the campaign list: filter labels, the live region's announcement
- ``banners``   the banner over a page showing an older state of the cluster
- ``pace``      when a running campaign may finish or that it stalled, and the pace chart's words

This package's ``__init__`` imports nothing, so importing one module of it costs only that module.
"""
