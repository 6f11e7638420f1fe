"""Cards and the overview: what the views show, built from a campaign and a progress report (no I/O)."""
