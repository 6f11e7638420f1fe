"""The run log viewer (/log) and the ALTO page viewer (/alto), served under ``results.viewer_urls``.

Both read results files in-process with the person's own store session (``results.store.reader``), and only
addresses under the results base (``results.store.addresses``). Every failure is a sentence on the page.

    reading.py    reading the address a request names (``reads``, ``Target``), problem pages, links
    log.py        the run log: its parts (tail, around a line, earlier), live polling, search and find
    log_edges.py  pure: lines read later join the stretch at the page's edge (polls, "show earlier")
    manifest.py   the volume's summary from its manifest.json, shown on the log page
    alto.py       the ALTO page: drawing its lines, the page's neighbours, its plain text
    iiif.py       the page image and the strip of pages, from the volume's iiif.json

Parsing is elsewhere and pure: ``results.formats.runlog`` for run logs, ``results.formats.alto`` for ALTO files.
"""
