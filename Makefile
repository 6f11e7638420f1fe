# The two commands: `make demo` starts the product on the devstack, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint messages extract gettext bench bench-archive bench-watch bench-slow bench-slow-store bench-hostile bench-soak mutation screenshots install browser redis clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

# DEMO_ARGS passes options on: `make demo DEMO_ARGS=--kueue-down` starts with Kueue's controller crash-looping.
demo: $(STAMP) messages
	$(PY) -m devstack.demo $(DEMO_ARGS)

# The README's pictures (docs/images/), taken from the demo on a free port with Debian's Chromium.
screenshots: $(STAMP) browser
	$(PY) -m devstack.screenshots

# Browser tests drive Debian's Chromium; install it when it is missing and we may.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing Debian's chromium for the browser tests"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null; \
		elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
			sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null; \
		else \
			echo "Chromium is missing and cannot be installed here: browser tests will say so."; \
		fi; \
	fi

# Limits shared through Redis are tested against Debian's real redis-server; install it likewise.
redis:
	@if [ ! -x /usr/bin/redis-server ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing Debian's redis-server for the shared-limits tests"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
		elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
			sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
		else \
			echo "redis-server is missing and cannot be installed here: the Redis tests will say so."; \
		fi; \
	fi

# The Swedish catalogue (locale/sv/LC_MESSAGES/django.po, djangojs.po) compiled into the .mo files Django reads.
# The .mo files are build output (.gitignore); the image compiles its own (Dockerfile). The throwaway secret only
# satisfies settings, as in the Dockerfile. Without msgfmt the site speaks English only.
messages: $(STAMP) gettext
	@if command -v msgfmt >/dev/null; then \
		DJANGO_SECRET_KEY=catalogue-only $(PY) manage.py compilemessages --ignore=.venv; \
	fi

# The catalogue brought up to date with the code: new sentences added untranslated, changed ones marked fuzzy,
# each with the places it is said (translate them, then `make messages`). tests/test_catalogue.py extracts
# with the same folders left out, so what it finds missing is what this adds.
CATALOGUE_IGNORE := .venv .devstack tests benchmarks devstack staticfiles charts docs requirements*.txt
extract: $(STAMP) gettext
	for domain in django djangojs; do \
		DJANGO_SECRET_KEY=catalogue-only $(PY) manage.py makemessages --locale=sv --domain=$$domain \
			$(foreach pattern,$(CATALOGUE_IGNORE),--ignore='$(pattern)') || exit 1; \
	done

# msgfmt and xgettext come from Debian's gettext; install it when it is missing and we may.
gettext:
	@if ! command -v msgfmt >/dev/null || ! command -v xgettext >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing Debian's gettext for the Swedish catalogue"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
		elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
			sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
		else \
			echo "gettext (msgfmt) is missing and cannot be installed here: the site speaks English only, and the catalogue tests will say so."; \
		fi; \
	fi

# Tests run in parallel (pytest-xdist): most of them wait on sockets, browsers and subprocesses, so on
# two cores 4 workers finish sooner than 2. pytest-randomly shuffles the order on every run and prints
# its seed at the top: `--randomly-seed=N` repeats that order, `-p no:randomly` keeps file order. No test
# may rely on another having run first. `make test TEST_WORKERS=0` runs everything in one process.
TEST_WORKERS ?= 4

test: $(STAMP) browser redis messages
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -n $(TEST_WORKERS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

# Every benchmark but the half-hour soak (run that with `make bench-soak`).
bench: $(STAMP)
	$(PY) -m pytest benchmarks -q -s --ignore=benchmarks/bench_soak.py

# The archive-scale benchmark alone (about four minutes), its figures printed; ARCHIVE_SCALE=5 for five times the archive.
ARCHIVE_SCALE ?= 1
bench-archive: $(STAMP)
	ARCHIVE_SCALE=$(ARCHIVE_SCALE) $(PY) -m pytest benchmarks/bench_archive.py -q -s

# The informers against an API server that misbehaves for a minute at a time (about four minutes).
bench-watch: $(STAMP)
	$(PY) -m pytest benchmarks/bench_watch_backoff.py -q -s

# Pages and probes while 64 clients download slowly, with the image's threads and with 8 (about 3 minutes).
bench-slow: $(STAMP)
	$(PY) -m pytest benchmarks/bench_slow_clients.py -q -s

# Pages, the read API and /healthz while the results store answers every request after 4 s, side by side
# with the store at normal speed (about 3 minutes).
bench-slow-store: $(STAMP)
	$(PY) -m pytest benchmarks/bench_slow_store.py -q -s

# Every viewer and parser of bucket content fed hostile inputs at 1x, 4x and 16x a size near its cap: time,
# tracemalloc peak and growth per request (a few minutes; HOSTILE_BUDGET_SECONDS caps the cost of one size).
bench-hostile: $(STAMP)
	$(PY) -m pytest benchmarks/bench_hostile.py -q -s

# Half an hour at archive scale with tabs, slow downloads and a fault every 3 minutes (SOAK_MINUTES=6 to try it).
SOAK_MINUTES ?= 30

bench-soak: $(STAMP)
	SOAK_MINUTES=$(SOAK_MINUTES) $(PY) -m pytest benchmarks/bench_soak.py -q -s

# Mutation testing of the pure modules (benchmarks/mutation/): mutmut inside functions, the hand-made mutants of
# module-level rules, each module against the tests that reach it; a score per module and every survivor.
# Minutes a module, so not part of `make test`: run it before a change to those modules lands, and put its
# figures in benchmarks/RESULTS.md. MUTATION_MODULES=keys (any part of a path, several with spaces) runs fewer.
MUTATION_MODULES ?=

mutation: $(STAMP)
	$(PY) -m benchmarks.mutation $(foreach module,$(MUTATION_MODULES),--module $(module))

clean:
	rm -rf $(VENV) staticfiles .pytest_cache
