"""Hand-made mutants of the rules mutmut cannot reach: those kept at module level (patterns, limits, tables).

Each breaks one rule the way a careless edit would: the module, the text as it stands (it must occur exactly
once, so a mutant that no longer applies is reported rather than silently skipped), the text put in its place,
and the tests to run (the module's own, ``modules.py``, unless named).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    module: str
    original: str
    replacement: str
    why: str
    tests: tuple[str, ...] = ()


KEYS = "results/store/keys.py"
ADDRESSES = "results/store/addresses.py"
QUEUE = "campaigns/domain/projection/queue.py"
REASONS = "campaigns/domain/projection/reasons.py"
ALTO = "results/formats/alto.py"
RUNLOG = "results/formats/runlog.py"

MUTANTS: tuple[Mutant, ...] = (
    # --- the results key rules ----------------------------------------------------------------------
    Mutant(KEYS, "MAX_KEY_BYTES = 1024", "MAX_KEY_BYTES = 1025", "a key one byte over the store's limit accepted"),
    Mutant(KEYS, "MAX_KEY_BYTES = 1024", "MAX_KEY_BYTES = 1023", "a key of the store's full length refused"),
    Mutant(KEYS, 'r"%(?![0-9A-Fa-f]{2})"', 'r"%(?![0-9A-Fa-f])"', "a half escape such as %4 accepted"),
    Mutant(KEYS, 'r"%(?![0-9A-Fa-f]{2})"', 'r"%(?![0-9A-F]{2})"', "lower-case escapes refused"),
    Mutant(KEYS, r'r"[\x00-\x1f\x7f]"', r'r"[\x00-\x1f]"', "DEL accepted"),
    Mutant(KEYS, r'r"[\x00-\x1f\x7f]"', r'r"[\x00-\x1e\x7f]"', "U+001F accepted"),
    Mutant(KEYS, r'r"[\x00-\x1f\x7f]"', r'r"[\x01-\x1f\x7f]"', "NUL accepted"),
    Mutant(KEYS, r'r"[\x00-\x1f\x7f]"', r'r"[\x00-\x20\x7f]"', "a space refused"),
    Mutant(KEYS, "LEGACY_PREFIXES = (LEGACY_LOG_PREFIX,)", "LEGACY_PREFIXES = ()", "the older run logs refused"),
    # --- the viewers' address rules -----------------------------------------------------------------
    Mutant(ADDRESSES, r're.compile(r"[\x00-\x20\x7f\\]")', r're.compile(r"[\x00-\x1f\\]")', "DEL and space accepted"),
    Mutant(ADDRESSES, 're.compile(r"%(2f|5c)", re.IGNORECASE)', 're.compile(r"%(2f|5c)")', "%2F accepted"),
    Mutant(ADDRESSES, 'r"%(0[0-9a-f]|1[0-9a-f]|7f)"', 'r"%(0[0-9a-f]|1[0-9a-e])"', "%1F and %7F accepted"),
    Mutant(ADDRESSES, 'DEFAULT_PORTS = {"http": 80, "https": 443}', 'DEFAULT_PORTS = {"http": 80}', "https port"),
    # --- reading the queue ----------------------------------------------------------------------------
    Mutant(QUEUE, "timedelta(minutes=3)", "timedelta(minutes=2)", "Kueue called silent a minute early"),
    Mutant(QUEUE, "timedelta(minutes=3)", "timedelta(minutes=10)", "Kueue's silence noticed minutes late"),
    Mutant(
        QUEUE,
        '{"no_workload_yet", "not_looked_at", "waiting", "kueue_silent"}',
        '{"no_workload_yet", "waiting", "kueue_silent"}',
        "not_looked_at no longer timed",
    ),
    Mutant(
        QUEUE,
        '{"no_workload_yet", "not_looked_at", "waiting", "kueue_silent"}',
        '{"no_workload_yet", "not_looked_at", "waiting"}',
        "kueue_silent no longer timed",
    ),
    Mutant(
        QUEUE,
        '{"no_workload_yet", "not_looked_at", "waiting", "kueue_silent"}',
        '{"not_looked_at", "waiting", "kueue_silent"}',
        "no_workload_yet no longer timed",
    ),
    Mutant(
        QUEUE,
        '{"no_workload_yet", "not_looked_at", "waiting", "kueue_silent"}',
        '{"no_workload_yet", "not_looked_at", "kueue_silent"}',
        "waiting no longer timed",
    ),
    # --- pod reasons ------------------------------------------------------------------------------------
    Mutant(
        REASONS,
        'POD_REASON_KINDS = {"Evicted": "evicted", "DeadlineExceeded": "deadline"}',
        'POD_REASON_KINDS = {"DeadlineExceeded": "deadline"}',
        "an evicted pod not told apart",
    ),
    Mutant(
        REASONS,
        'POD_REASON_KINDS = {"Evicted": "evicted", "DeadlineExceeded": "deadline"}',
        'POD_REASON_KINDS = {"Evicted": "evicted"}',
        "the time budget not told apart",
    ),
    Mutant(
        REASONS, "MESSAGE_JSON_MOST = 16 * 1024", "MESSAGE_JSON_MOST = 16", "a wrapper's JSON message no longer read"
    ),
    # --- ALTO -------------------------------------------------------------------------------------------
    Mutant(ALTO, "MAX_ALTO_BYTES = 16 * 1024 * 1024", "MAX_ALTO_BYTES = 32 * 1024 * 1024", "a larger file read"),
    Mutant(ALTO, "COORDINATE_LIMIT = 1e7", "COORDINATE_LIMIT = 1e308", "huge coordinates not pulled in"),
    Mutant(ALTO, "MAX_NUMBER_CHARS = 32", "MAX_NUMBER_CHARS = 100_000", "a number of any length scanned"),
    Mutant(ALTO, 'UNITS = {"pixel": "px", "mm10": "mm", "inch1200": "in"}', 'UNITS = {"pixel": "px"}', "units"),
    Mutant(ALTO, r'r"alto/ns-v(\d)#"', r'r"alto/ns-v([34])#"', "ALTO v2 files not known by their namespace"),
    # --- run logs ---------------------------------------------------------------------------------------
    Mutant(RUNLOG, r'r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"', r'r"[\x00-\x08\x0b-\x1f]"', "DEL and C1 controls shown"),
    Mutant(
        RUNLOG,
        '_LEVEL = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"',
        '_LEVEL = r"DEBUG|INFO|WARN|WARNING|ERROR|CRITICAL|FATAL"',
        "WARNING read as WARN",
    ),
    Mutant(
        RUNLOG,
        'QUIET_KINDS = frozenset({"plain", "http", "model", "resume"})',
        'QUIET_KINDS = frozenset({"plain", "http", "model"})',
        "resume lines no longer quiet",
    ),
    Mutant(RUNLOG, "HTTP_FOLD_MIN = 2", "HTTP_FOLD_MIN = 1", "a single HTTP line folded away"),
)
