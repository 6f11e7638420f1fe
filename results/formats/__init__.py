"""The contract's files read as they are written: run logs and ALTO pages (pure parsing, no I/O)."""
