"""Shared fixtures live in tests/fixtures/, one module per stand-in."""

pytest_plugins = [
    "tests.fixtures.browser",
    "tests.fixtures.kube",
    "tests.fixtures.store",
    "tests.fixtures.scene",
    "tests.fixtures.session",
    "tests.fixtures.serving",
    "tests.fixtures.redis",
    "tests.fixtures.isolation",
]
