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
ACCESS = "results/store/access.py"
MANIFEST = "results/viewers/manifest.py"
QUEUE = "campaigns/domain/projection/queue.py"
REASONS = "campaigns/domain/projection/reasons.py"
ALTO = "results/formats/alto.py"
RUNLOG = "results/formats/runlog.py"
QUEUE_WORDING = "campaigns/wording/queue.py"
READERS = "campaigns/domain/projection/readers.py"
FINDINGS_WORDING = "campaigns/wording/findings.py"
FINDINGS = "campaigns/domain/projection/findings.py"

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
    Mutant(ADDRESSES, r'r"[\x00-\x20\x7f\\]"', r'r"[\x00-\x20\x7f]"', "a raw backslash accepted"),
    Mutant(ADDRESSES, r'r"[\x00-\x20\x7f\\]"', r'r"[\x01-\x20\x7f\\]"', "a raw NUL let through to the key rules"),
    Mutant(ADDRESSES, r'r"[\x00-\x20\x7f\\]"', r'r"[\x00-\x21\x7f\\]"', "an exclamation mark refused"),
    Mutant(ADDRESSES, 'r"%(2f|5c)"', 'r"%(2f)"', "an encoded backslash let through"),
    Mutant(ADDRESSES, 'r"%(0[0-9a-f]|1[0-9a-f]|7f)"', 'r"%(1[0-9a-f]|7f)"', "%00 to %0F let through"),
    Mutant(ADDRESSES, 'r"%(0[0-9a-f]|1[0-9a-f]|7f)"', 'r"%(0[0-9a-f]|1[0-9a-f]|7f|20)"', "an encoded space refused"),
    Mutant(
        ADDRESSES,
        'DEFAULT_PORTS = {"http": 80, "https": 443}',
        'DEFAULT_PORTS = {"http": 8080, "https": 443}',
        "http's default port taken as 8080",
    ),
    Mutant(
        ADDRESSES,
        'segments=("results",), url="/results"',
        'segments=(), url=""',
        "a site-relative address read outside this site's /results",
    ),
    # --- who may see which campaigns (results/store/access.py) -----------------------------------------------
    Mutant(ACCESS, "READS_PER_PROBE = 2", "READS_PER_PROBE = 1", "a probe's listing not paid for"),
    Mutant(
        ACCESS,
        "(budget.BUDGET_READS - READS_PER_PROBE) // READS_PER_PROBE",
        "budget.BUDGET_READS // READS_PER_PROBE",
        "one prefix more probed than the budget leaves after the namespace's probe",
    ),
    Mutant(ACCESS, "RETRY_SECONDS = 15.0", "RETRY_SECONDS = 30.0", "a store that failed asked again late"),
    Mutant(ACCESS, "RETRY_SECONDS = 15.0", "RETRY_SECONDS = 0.0", "a store that failed asked again at once"),
    Mutant(ACCESS, "MOST_ACCOUNTS = 10_000", "MOST_ACCOUNTS = 10_001", "one account more kept"),
    Mutant(ACCESS, "MOST_ACCOUNTS = 10_000", "MOST_ACCOUNTS = 9_999", "one account fewer kept"),
    Mutant(ACCESS, "EVERYTHING = Access(everywhere=True)", "EVERYTHING = Access()", "store-accounts sees nothing"),
    Mutant(ACCESS, "known: bool = True", "known: bool = False", "a proof that found nothing taken as no proof"),
    Mutant(ACCESS, "ended: bool = False", "ended: bool = True", "every proof says the session ended"),
    Mutant(ACCESS, "everywhere: bool = False", "everywhere: bool = True", "every proof sees everything"),
    Mutant(ACCESS, "retry_at: float = 0.0", "retry_at: float = 1e12", "a fresh proof never renewed"),
    # --- the run log's manifest summary (results/viewers/manifest.py) --------------------------------------
    Mutant(MANIFEST, "MANIFEST_LIMIT = 4 * 1024 * 1024", "MANIFEST_LIMIT = 8 * 1024 * 1024", "a larger file read"),
    Mutant(MANIFEST, "MANIFEST_VALUES_MAX = 500_000", "MANIFEST_VALUES_MAX = 5_000_000", "more values parsed"),
    Mutant(MANIFEST, "PAGES_LISTED = 10_000", "PAGES_LISTED = 10_001", "one page more listed than the cap"),
    Mutant(MANIFEST, "PAGES_LISTED = 10_000", "PAGES_LISTED = 9_999", "the last page within the cap left out"),
    Mutant(MANIFEST, r'r"^[0-9]{1,6}\Z"', r'r"^[0-9]{1,7}\Z"', "a seven-digit page id linked"),
    Mutant(MANIFEST, r'r"^[0-9]{1,6}\Z"', r'r"^[0-9]{2,6}\Z"', "a one-digit page id not linked"),
    Mutant(MANIFEST, r'r"^[0-9]{1,6}\Z"', r'r"^[0-9]{1,6}$"', "a page id ending in a line end linked"),
    Mutant(MANIFEST, r'r"^[0-9]{1,6}\Z"', r'r"^\d{1,6}\Z"', "a page id of non-ASCII digits linked"),
    Mutant(MANIFEST, r'r"^[0-9]{1,6}\Z"', r'r"^[0-9]{1,6}"', "a page id with more after its digits linked"),
    Mutant(MANIFEST, '("ok", "failed", "skipped")', '("ok", "failed")', "skipped pages counted as unknown"),
    Mutant(MANIFEST, '("ok", "failed", "skipped")', '("ok", "skipped")', "failed pages counted as unknown"),
    Mutant(MANIFEST, '("ok", "failed", "skipped")', '("failed", "skipped")', "pages done counted as unknown"),
    Mutant(MANIFEST, '("ok", "failed", "skipped")', '("ok", "failed", "skipped", "")', "an empty status known"),
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
    # The exact edges and the classes themselves, run against the fast tests that hold them (test_reasons.py).
    Mutant(
        REASONS,
        "MESSAGE_JSON_MOST = 16 * 1024",
        "MESSAGE_JSON_MOST = 16 * 1024 - 1",
        "a JSON message of exactly 16 KiB read as text",
        ("tests/campaigns/domain/test_reasons.py",),
    ),
    Mutant(
        REASONS,
        "MESSAGE_JSON_MOST = 16 * 1024",
        "MESSAGE_JSON_MOST = 16 * 1024 + 1",
        "a JSON message one character past 16 KiB parsed",
        ("tests/campaigns/domain/test_reasons.py",),
    ),
    Mutant(
        REASONS,
        'POD_REASON_KINDS = {"Evicted": "evicted", "DeadlineExceeded": "deadline"}',
        'POD_REASON_KINDS = {"Evicted": "deadline", "DeadlineExceeded": "evicted"}',
        "an eviction and the time budget told for each other",
        ("tests/campaigns/domain/test_reasons.py",),
    ),
    # --- ALTO -------------------------------------------------------------------------------------------
    Mutant(ALTO, "MAX_ALTO_BYTES = 16 * 1024 * 1024", "MAX_ALTO_BYTES = 32 * 1024 * 1024", "a larger file read"),
    Mutant(ALTO, "COORDINATE_LIMIT = 1e7", "COORDINATE_LIMIT = 1e308", "huge coordinates not pulled in"),
    Mutant(ALTO, "MAX_NUMBER_CHARS = 32", "MAX_NUMBER_CHARS = 100_000", "a number of any length scanned"),
    Mutant(ALTO, 'UNITS = {"pixel": "px", "mm10": "mm", "inch1200": "in"}', 'UNITS = {"pixel": "px"}', "units"),
    Mutant(ALTO, r'r"alto/ns-v(\d)#"', r'r"alto/ns-v([34])#"', "ALTO v2 files not known by their namespace"),
    # The page's ceilings (issue 41): each is held at its value by a fast test just past it, or at least kept
    # from cutting a dense page; raising MAX_WORDS or MAX_ELEMENTS is guarded only by test_alto_bounds.py.
    Mutant(ALTO, "MAX_LINES = 20_000", "MAX_LINES = 20_001", "a line past the page's ceiling kept"),
    Mutant(ALTO, "MAX_LINES = 20_000", "MAX_LINES = 1_000", "a long page cut short"),
    Mutant(ALTO, "MAX_WORDS = 100_000", "MAX_WORDS = 10_000", "a dense page's words cut short"),
    Mutant(ALTO, "MAX_ELEMENTS = 500_000", "MAX_ELEMENTS = 20_000", "a dense page not read to its end"),
    Mutant(ALTO, "TEXT_CHARS_MAX = 500_000", "TEXT_CHARS_MAX = 500_001", "a character past the ceiling kept"),
    Mutant(ALTO, "TEXT_CHARS_MAX = 500_000", "TEXT_CHARS_MAX = 499_999", "text cut a character early"),
    Mutant(ALTO, "POINTS_KEPT_MAX = 100_000", "POINTS_KEPT_MAX = 100_001", "a point past the page's ceiling kept"),
    Mutant(ALTO, "POINTS_KEPT_MAX = 100_000", "POINTS_KEPT_MAX = 99_999", "an outline boxed a point early"),
    Mutant(ALTO, "OUTLINE_POINTS_MAX = 500", "OUTLINE_POINTS_MAX = 501", "an outline of 501 points kept whole"),
    Mutant(ALTO, "OUTLINE_POINTS_MAX = 500", "OUTLINE_POINTS_MAX = 499", "an outline of 500 points simplified"),
    Mutant(ALTO, "ID_CHARS_MAX = 100", "ID_CHARS_MAX = 101", "an ID kept past its length"),
    Mutant(ALTO, "COORDINATE_LIMIT = 1e7", "COORDINATE_LIMIT = 1e6", "coordinates of a large page pulled in"),
    Mutant(ALTO, r'r"[-+]?(?:\d+(?:', r'r"(?:\d+(?:', "a signed coordinate refused"),
    Mutant(ALTO, r"|\.\d+)(?:[eE]", r")(?:[eE]", "a coordinate such as .5 refused"),
    Mutant(ALTO, r"(?:\.\d*)?|", r"(?:\.\d+)?|", "a coordinate such as 2. refused"),
    Mutant(ALTO, r'(?:[eE][-+]?\d+)?")', r'(?:[e][-+]?\d+)?")', "an exponent written E refused"),
    Mutant(ALTO, r'(?:[eE][-+]?\d+)?")', r'(?:[eE]\d+)?")', "a signed exponent refused"),
    Mutant(ALTO, r'(?:[eE][-+]?\d+)?")', r'(?:[eE][-+]?\d*)?")', "an exponent without digits accepted"),
    # --- run logs ---------------------------------------------------------------------------------------
    Mutant(RUNLOG, r'r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"', r'r"[\x00-\x08\x0b-\x1f]"', "DEL and C1 controls shown"),
    # (The order WARN|WARNING was tried here: equivalent, as the pattern backtracks to WARNING.)
    Mutant(
        RUNLOG,
        '_LEVEL = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"',
        '_LEVEL = r"DEBUG|INFO|WARNING|ERROR|CRITICAL|FATAL"',
        "WARN not read as a warning",
    ),
    Mutant(
        RUNLOG,
        'QUIET_KINDS = frozenset({"plain", "http", "model", "resume"})',
        'QUIET_KINDS = frozenset({"plain", "http", "model"})',
        "resume lines no longer quiet",
    ),
    Mutant(RUNLOG, "HTTP_FOLD_MIN = 2", "HTTP_FOLD_MIN = 1", "a single HTTP line folded away"),
    # The rest of the run log's rules (issue 41).
    Mutant(RUNLOG, r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|", "|", "OSC codes (titles, links) shown"),
    Mutant(RUNLOG, r'|\x9b[0-?]*[ -/]*[@-~]")', '")', "the 8-bit CSI code shown"),
    Mutant(RUNLOG, r"\x1b\[[0-?]*[ -/]*[@-~]|", r"\x1b\[[0-?]*[@-~]|", "a code's intermediate byte shown"),
    Mutant(RUNLOG, r"\x08\x0b-\x1f\x7f-\x9f]", r"\x09\x0b-\x1f\x7f-\x9f]", "a tab shown as a symbol"),
    Mutant(RUNLOG, r"\x08\x0b-\x1f\x7f-\x9f]", r"\x08\x0c-\x1f\x7f-\x9f]", "a vertical tab kept raw"),
    Mutant(RUNLOG, r"\x1b\r\x9b{INVISIBLE}", r"\x1b\r{INVISIBLE}", "a match split by an 8-bit code missed"),
    Mutant(RUNLOG, r"(?:[.,]\d{1,9})?", r"(?:[.,]\d{1,6})?", "a time in nanoseconds not read"),
    Mutant(RUNLOG, r"(?:Z|[+-]\d{2}:?\d{2})?", r"(?:Z)?", "a time's offset not read"),
    Mutant(RUNLOG, "|CRITICAL|FATAL", "|CRITICAL", "FATAL not read as an error"),
    Mutant(RUNLOG, r"\n]{1,200}\]", r"\n]{1,201}\]", "an overlong volume id read"),
    Mutant(RUNLOG, r"pages \(\d{1,12} processed, \d{1,12} failed\) in", "pages in", "COMPLETE counts"),
    Mutant(RUNLOG, r'r"\bpermanent failure', 'r"permanent failure', "impermanent failure ends the run"),
    Mutant(
        RUNLOG,
        r'r"\btransient failure in [a-z]{1,60}: ")',
        r'r"\btransient failure in [a-z]{1,61}: ")',
        "a retry of an overlong stage name read",
    ),
    Mutant(RUNLOG, r"resume: \d{1,12} done", r"resume: \d{1,13} done", "an overlong resume count read"),
    Mutant(RUNLOG, 'r"HTTP Request: "', 'r"HTTP Request"', "a line mentioning HTTP Request folded"),
    Mutant(RUNLOG, "|checkpoint|processor|tokenizer)", ")", "checkpoints and tokenizers not model loading"),
    Mutant(RUNLOG, r"\bwarm-?up\b", r"\bwarm-up\b", "warmup not model loading"),
    Mutant(RUNLOG, "|^During handling of the above exception|", "|", "a chained traceback split"),
    Mutant(RUNLOG, r"|\s*\^+\s*$|", "|", "a traceback's caret line split from it"),
    Mutant(RUNLOG, "|Interrupt|Exit|Warning)", ")", "KeyboardInterrupt or SystemExit split"),
    Mutant(RUNLOG, "CLASSIFY_CHARS = 4096", "CLASSIFY_CHARS = 4097", "a line classified past its head"),
    Mutant(RUNLOG, "SEARCH_LIMIT = 500", "SEARCH_LIMIT = 501", "a search result past its limit"),
    Mutant(RUNLOG, "MARKS_PER_LINE = 100", "MARKS_PER_LINE = 101", "a match marked past the limit"),
    Mutant(RUNLOG, r"(?P<page>\d{4,9})", r"(?P<page>\d{3,9})", "page 012 read as a page"),
    Mutant(RUNLOG, r"(?:missing|failed)=\[", r"(?:missing)=\[", "a verify error's failed pages"),
    Mutant(RUNLOG, r'_PAGE_ID = re.compile(r"(?<!\d)\d{4,9}(?!\d)")', r'_PAGE_ID = re.compile(r"(?<!\d)\d{1,9}(?!\d)")',
           "short ids"),
    Mutant(RUNLOG, r'_PAGE_ID = re.compile(r"(?<!\d)\d{4,9}(?!\d)")', r'_PAGE_ID = re.compile(r"\d{4,9}")',
           "a ten-digit number read as a page of nine"),
    Mutant(RUNLOG, "FAILED_PAGES_LISTED = 200", "FAILED_PAGES_LISTED = 201", "a page listed past 200"),
    Mutant(RUNLOG, "FIND_LINES_LIMIT = 5000", "FIND_LINES_LIMIT = 5001", "a found line past 5000"),
    # --- the queue's words (campaigns/wording/queue.py) ----------------------------------------------------
    Mutant(QUEUE_WORDING, "        False,\n    ),", "        True,\n    ),", "commands for a Workload not made yet"),
    Mutant(QUEUE_WORDING, '"Admitted by the queue."), "ok")', '"Admitted by the queue."), "idle")', "admitted not ok"),
    Mutant(QUEUE_WORDING, '    "paused": QueueWords(', '    "paused-in-git": QueueWords(', "paused in git unknown"),
    Mutant(
        QUEUE_WORDING,
        'an operator can look at its Workload."), "idle"',
        'an operator can look at its Workload."), "bad"',
        "an unknown queue kind said as trouble",
    ),
    Mutant(QUEUE_WORDING, 'SOMEONE_ELSE = gettext_lazy("another campaign")', "SOMEONE_ELSE = ''", "one hidden unsaid"),
    Mutant(QUEUE_WORDING, '    "Preempted": pgettext_lazy(', '    "Pre-empted": pgettext_lazy(', "preemption unsaid"),
    Mutant(
        QUEUE_WORDING,
        '"PodsReadyTimeout": pgettext_lazy("queue stopped it because", "its volumes did not get going in time")',
        '"PodsReadyTimeout": pgettext_lazy("queue stopped it because", "it was paused")',
        "a slow start said as a pause",
    ),
    Mutant(QUEUE_WORDING, '"never_fits": _never_fits,', '"never_fits": _inadmissible,', "never fits said as set-up"),
    Mutant(QUEUE_WORDING, '    "evicted": _evicted,\n', "", "an eviction said as an unknown reason"),
    # --- what ends a Job (campaigns/domain/projection/readers.py) -------------------------------------------
    Mutant(READERS, '("Complete", "SuccessCriteriaMet")', '("Complete",)', "SuccessCriteriaMet not an end"),
    Mutant(READERS, '("Complete", "SuccessCriteriaMet")', '("SuccessCriteriaMet",)', "Complete not an end"),
    Mutant(READERS, '("Failed", "FailureTarget")', '("Failed",)', "FailureTarget not a failure"),
    Mutant(READERS, '("Failed", "FailureTarget")', '("FailureTarget",)', "Failed not a failure"),
    Mutant(READERS, '("Failed", "FailureTarget")', '("FailureTarget", "Failed")', "FailureTarget read before Failed"),
    # --- which checks run (campaigns/domain/projection/findings.py) ---------------------------------------------
    Mutant(FINDINGS, '_NOT_KUEUES = ("paused", "admitted")', '_NOT_KUEUES = ("admitted",)', "paused asked of Kueue"),
    Mutant(FINDINGS, '_NOT_KUEUES = ("paused", "admitted")', '_NOT_KUEUES = ("paused",)', "admitted asked of Kueue"),
    # --- the findings' words (campaigns/wording/findings.py): who acts, and each code's derived names -------
    Mutant(FINDINGS_WORDING, "\n    NOBODY: gettext_lazy(", '\n    "nobody-x": gettext_lazy(', "nobody unsaid"),
    Mutant(FINDINGS_WORDING, "\n    OPERATOR: gettext_lazy(", '\n    "operator-x": gettext_lazy(', "operator unsaid"),
    Mutant(FINDINGS_WORDING, "\n    AUTHOR: gettext_lazy(", '\n    "author-x": gettext_lazy(', "author unsaid"),
    Mutant(
        FINDINGS_WORDING,
        '    "warmup.placement_differs": _differences,\n',
        "",
        "warmup.placement_differs: names not derived",
    ),
    Mutant(FINDINGS_WORDING, '    "cache.rwo_other_node": _rwo,\n', "", "cache.rwo_other_node: names not derived"),
    Mutant(FINDINGS_WORDING, '    "warmup.waiting": _waiting,\n', "", "warmup.waiting: names not derived"),
    Mutant(FINDINGS_WORDING, '    "warmup.failed": _warmup_failed,\n', "", "warmup.failed: names not derived"),
    Mutant(
        FINDINGS_WORDING, '    "queue.untolerated_taint": _taints,\n', "", "queue.untolerated_taint: names not derived"
    ),
    Mutant(FINDINGS_WORDING, '    "queue.node_affinity": _mismatches,\n', "", "queue.node_affinity: names not derived"),
    Mutant(
        FINDINGS_WORDING,
        '    "queue.no_matching_flavor": _no_flavor,\n',
        "",
        "queue.no_matching_flavor: names not derived",
    ),
    Mutant(
        FINDINGS_WORDING, '    "queue.waiting_for_quota": _quota,\n', "", "queue.waiting_for_quota: names not derived"
    ),
    Mutant(
        FINDINGS_WORDING, '    "queue.exceeds_max_quota": _exceeds,\n', "", "queue.exceeds_max_quota: names not derived"
    ),
    Mutant(FINDINGS_WORDING, '    "kueue.down": _kueue_pods,\n', "", "kueue.down: names not derived"),
    Mutant(FINDINGS_WORDING, '    "model.not_in_cache": _models,\n', "", "model.not_in_cache: names not derived"),
)
