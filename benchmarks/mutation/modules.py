"""The modules ``make mutation`` breaks, each with the tests that reach it.

Only fast tests are listed (no browser, no live server, no file of many MiB): every mutant runs them, so a
module's run stays within minutes. A rule these tests do not reach is a rule the suite does not guard.
"""

DOMAIN = "tests/campaigns/domain"
PROJECTION_TESTS = (
    f"{DOMAIN}/test_projection.py",
    f"{DOMAIN}/test_queue_projection.py",
    f"{DOMAIN}/test_incremental_projection.py",
    f"{DOMAIN}/test_findings_projection.py",
    f"{DOMAIN}/test_attempts.py",
)
KEY_TESTS = ("tests/results/store/test_keys.py", "tests/results/viewers/test_addresses.py")

# module path -> the test files that reach it
MODULES: dict[str, tuple[str, ...]] = {
    "campaigns/domain/projection/queue.py": PROJECTION_TESTS,
    # The whole of tests/campaigns/domain reaches more of it, at 40 s a mutant: too slow for this run.
    "campaigns/domain/projection/reasons.py": (f"{DOMAIN}/test_reasons.py", *PROJECTION_TESTS),
    "campaigns/domain/projection/readers.py": (f"{DOMAIN}/test_readers.py", *PROJECTION_TESTS),
    "campaigns/domain/projection/findings.py": (
        f"{DOMAIN}/test_findings_projection.py",
        f"{DOMAIN}/test_findings_cases.py",
        f"{DOMAIN}/diagnosis",
    ),
    "campaigns/wording/findings.py": ("tests/campaigns/wording/test_wording_findings.py",),
    "campaigns/wording/queue.py": (
        "tests/campaigns/wording/test_wording_queue.py",
        f"{DOMAIN}/test_queue_projection.py",
    ),
    "results/store/keys.py": KEY_TESTS,
    "results/store/addresses.py": KEY_TESTS,
    "results/store/access.py": (
        "tests/results/store/test_access.py",
        "tests/results/test_volume_place_access.py",
        "tests/campaigns/cluster/test_redaction.py",
    ),
    # The fastest files first: a hand-made mutant's run stops at its first failure.
    "results/formats/alto.py": (
        "tests/results/viewers/test_alto_reading.py",
        "tests/results/viewers/test_alto_ceilings.py",
        "tests/results/viewers/test_alto.py",
    ),
    "results/formats/runlog.py": (
        "tests/results/viewers/test_runlog_rules.py",
        "tests/results/viewers/test_runlog.py",
        "tests/results/viewers/test_log_edges.py",
    ),
    "results/viewers/manifest.py": ("tests/results/viewers/test_manifest.py", "tests/results/viewers/test_iiif.py"),
}
