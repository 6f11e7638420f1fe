"""Every sentence a person reads on a campaign page, by subject; nothing here decides or reads anything.

The domain (the projection and a campaign's volume list) and the presentation (``cards``,
``overview``, the views) both call these; they import only ``campaigns.models`` and the standard
library, so wording sits between the two and no import goes back up.

- ``words``     the pieces every sentence is made of: stages, ages, counts, quoted messages, names
- ``reasons``   why a volume stopped: each failure class, retrying and final, and running again
- ``volumes``   a volume row's sentence: its failure or its plain state
- ``warmup``    the model-cache warm-up chip
- ``queue``     why a queued or paused campaign is not running
- ``states``    the campaign's state chip: its phase with its reason
- ``progress``  a running volume's progress line, and what the results store answered instead
- ``quality``   what a predicted quality score means, and which volumes a figure covers
- ``notes``     a card's notes: its page tally, failed pages, volumes the account may not read
- ``lists``     the campaign list: filter labels, the live region's announcement
- ``banners``   the banner over a page showing an older state of the cluster
- ``pace``      when a running campaign may finish or that it stalled, and the pace chart's words

This package's ``__init__`` imports nothing: ``campaigns.models`` reads ``wording.quality`` (through
``campaigns.domain.quality``), which must not pull in the modules that read ``campaigns.models``.
"""
