"""People and their sessions: logging in, the session, device cookies, rate limits and their counters."""
