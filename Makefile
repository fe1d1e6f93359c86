# The two set-up commands: `make run` and `make test` (see README).
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PG_URL ?= postgres://postgres@127.0.0.1:5432/sotasite
# The page cache tests run against this Redis database as well as per-process memory.
REDIS_TEST_URL ?= redis://127.0.0.1:6379/3

.PHONY: help run test test-quick lint check test-sqlite test-postgres postgres redis chromium serve \
	static lock npm pwc-client
.DEFAULT_GOAL := help

# Every install is uv.lock's exact set (`make lock` refreshes it). uv itself comes
# from PyPI at this pinned version, in a venv of its own beside the project's.
UV_VERSION := 0.13.9
UV := .tools/bin/uv
# uv must use the Python that .python-version selects, never fetch one of its own.
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)

$(UV):
	python3 -m venv .tools
	.tools/bin/python -m pip install --quiet 'uv==$(UV_VERSION)'

# python3 is 3.12 here because .python-version selects it (pyenv).
# Bytecode is compiled at install: where PYTHONDONTWRITEBYTECODE is set, every
# process (each load, its reader, each web worker) compiled Django from source
# again: `manage.py check` took 1.7-2.0 s, against 0.55 with bytecode.
$(STAMP): pyproject.toml uv.lock | $(UV)
	python3 -c 'import sys; assert sys.version_info >= (3, 12), "Python 3.12+ needed"'
	test -x $(PY) || python3 -m venv --without-pip $(VENV)
	$(UV) sync --locked --extra dev --python python3 --compile-bytecode
	touch $(STAMP)

# paperswithcode-client, which tests/api/test_pwc_client.py drives, pins httpx and
# pydantic versions that clash with the site's: it has a project and lock of its
# own (tests/pwc_client/), installed beside the site's venv, never at test time.
PWC_CLIENT_VENV := $(VENV)/pwc-client
PWC_CLIENT := $(PWC_CLIENT_VENV)/.installed

$(PWC_CLIENT): tests/pwc_client/pyproject.toml tests/pwc_client/uv.lock | $(UV)
	UV_PROJECT_ENVIRONMENT=$(abspath $(PWC_CLIENT_VENV)) \
		$(UV) sync --locked --project tests/pwc_client --python python3
	touch $(PWC_CLIENT)

pwc-client: $(PWC_CLIENT) ## Install paperswithcode-client from tests/pwc_client/uv.lock, for its test

# After an edit to pyproject.toml: the lock follows it, other pins kept. Commit uv.lock.
# LOCK_ARGS=--upgrade moves everything, --upgrade-package NAME one (see README).
lock: | $(UV) ## Refresh uv.lock after an edit to pyproject.toml (LOCK_ARGS=--upgrade moves all)
	$(UV) lock $(LOCK_ARGS)
	$(UV) lock --project tests/pwc_client

# The port `make run` serves on: `make run PORT=8001`.
PORT ?= 8000

run: $(STAMP) ## Install, migrate, load the seeds and serve on 127.0.0.1:8000 (PORT=8001 for another port)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py loaddata fixtures/areas.json
	$(PY) manage.py load_seeds
	SOTASITE_STATIC_MANIFEST=1 $(PY) manage.py collectstatic --noinput --verbosity 0
	$(VENV)/bin/gunicorn sotasite.wsgi --config gunicorn.conf.py --bind 127.0.0.1:$(PORT) --access-logfile -

# The checks .pre-commit-config.yaml runs on a commit's files, here on every file.
# django-upgrade reads only the files it is given: git lists them, new ones too.
DJANGO_TARGET := 6.1

lint: $(STAMP) ## ruff (lint and format), djhtml, django-upgrade, mypy, makemigrations --check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/djhtml --check templates
	git ls-files -z --cached --others --exclude-standard '*.py' \
		| xargs -0 $(VENV)/bin/django-upgrade --target-version $(DJANGO_TARGET) --check
	$(VENV)/bin/mypy
	$(PY) manage.py makemigrations --check --dry-run

check: $(STAMP) ## Django's deploy checks with production settings
	SOTASITE_PRODUCTION=1 SOTASITE_SECRET_KEY=check-only-$$(date +%s)-a-long-random-enough-string-for-django \
	SOTASITE_ALLOWED_HOSTS=example.org $(PY) manage.py check --deploy --fail-level WARNING

# Whitenoise serves STATIC_ROOT, so the tests need it collected as a deploy would.
static: $(STAMP) ## Collect static files, as a deploy would
	SOTASITE_STATIC_MANIFEST=1 $(PY) manage.py collectstatic --noinput --verbosity 0

# Browser tests drive Debian's chromium; install it when it is missing.
chromium: ## Install Debian's chromium for the browser tests when it is missing
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

# The accessibility test runs axe-core (package-lock.json pins it) inside each page.
# npm ci again only when the lock is newer than what node_modules holds.
NODE_STAMP := node_modules/.package-lock.json

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

npm: $(NODE_STAMP) ## Install axe-core (package-lock.json) for the accessibility test

postgres: ## Start the local PostgreSQL server when it is down
	pg_isready -h 127.0.0.1 -p 5432 -q || pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	for i in $$(seq 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done

# The shared page cache (REDIS_URL in production); started when it is down.
redis: ## Start the local Redis server (the shared page cache) when it is down
	redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || redis-server --daemonize yes \
		--bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
		--dir /var/lib/redis --logfile /var/log/redis/ci.log
	for i in $$(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done

test-sqlite: $(STAMP) $(PWC_CLIENT) chromium static redis $(NODE_STAMP) ## The whole suite on SQLite, browser tests included
	SOTASITE_TEST_REDIS_URL=$(REDIS_TEST_URL) $(PY) -m pytest

# Tests that reach no database ran in test-sqlite already: conftest.py leaves them out here.
test-postgres: $(STAMP) $(PWC_CLIENT) chromium static postgres redis $(NODE_STAMP) ## The tests that reach a database, on PostgreSQL
	SOTASITE_TEST_REDIS_URL=$(REDIS_TEST_URL) DATABASE_URL=$(PG_URL) $(PY) -m pytest

test: lint check test-sqlite test-postgres ## Everything CI runs: lint, deploy checks, SQLite and PostgreSQL

# The newcomer's loop: no browser, server, child process or service, on SQLite whatever
# DATABASE_URL says (the cache's Redis variants skip). Under two minutes.
test-quick: $(STAMP) static ## The quick tests: database-free and SQLite unit tests, no browser or server
	env -u DATABASE_URL -u SOTASITE_TEST_REDIS_URL $(PY) -m pytest -q -m "not browser and not slow"

help: ## List the targets, one line each
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) \
		| sed -E 's/^([a-zA-Z_-]+):.*## (.*)/\1\t\2/' | expand -t 16
