"""What a person reaches by URL: the gate, the list and detail pages, the read API, the re-run file.

Thin views: they read (cluster, store), present (presentation) and render; the gate wraps them all."""
