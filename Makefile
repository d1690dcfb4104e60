# Two commands do all set-up on a fresh Debian machine (as root): `make demo` and `make test`.
# Both install what is missing: system packages through apt, the virtualenv at .venv, the Python packages.

VENV := .venv
PY := $(VENV)/bin/python
# chromium: browser tests and chart export (kaleido drives it; nothing downloads a browser).
# gettext: compiles the Chinese message catalog. shellcheck: the acceptance kit's scripts are linted in tests. pango: WeasyPrint PDFs. poppler-utils: the tests read PDFs back. fonts-noto-cjk: Chinese provider names.
SYSTEM_PACKAGES := chromium libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz0b poppler-utils fonts-dejavu-core fonts-noto-cjk gettext shellcheck
HOST ?= 127.0.0.1
PORT ?= 8000
MESSAGES := locale/zh_Hans/LC_MESSAGES/django.mo locale/en/LC_MESSAGES/django.mo

.PHONY: demo test setup system-deps lint typecheck pytest worker clean

demo: setup
	$(PY) manage.py migrate --noinput
	CLUSTERSCOUT_DEMO=1 $(PY) manage.py load_demo --host $(HOST) --port $(PORT) --port-file .demo-port
	@echo "Starting the portal at http://$(HOST):$$(cat .demo-port)/ (Ctrl-C stops it)"
	CLUSTERSCOUT_DEMO=1 $(PY) manage.py runserver $(HOST):$$(cat .demo-port)

test: setup lint typecheck pytest

setup: system-deps $(VENV)/.installed $(MESSAGES)

# The compiled message catalogs (English is the source language; Simplified Chinese is translated; the English
# catalog only replaces a few of Django's own messages).
$(MESSAGES): %.mo: %.po
	msgfmt --check --output-file=$@ $<

system-deps:
	@missing=""; \
	for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing="$$missing python3 python3-venv python3-pip"; \
	if [ -n "$$missing" ]; then \
		echo "Installing system packages:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,dev]'
	touch $@

lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck:
	$(VENV)/bin/mypy .

# The suite runs in PYTEST_WORKERS processes (pytest-xdist; 0: one process, no xdist), a test module at a
# time each; each process has its own test database and Redis database (tests/conftest.py). The tests
# marked one_process run after them in one process: schemathesis' generated cases are not run under
# pytest-xdist. Exit status 5 (nothing selected, when PYTEST_ARGS picks tests of only one kind) is not a
# failure.
PYTEST_WORKERS ?= 2
pytest:
ifeq ($(PYTEST_WORKERS),0)
	$(PY) -m pytest $(PYTEST_ARGS)
else
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile -m "not one_process" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(PY) -m pytest -p no:xdist -m one_process $(PYTEST_ARGS) || [ $$? -eq 5 ]
endif

worker:
	$(VENV)/bin/celery -A portal worker -Q default,sizing,parse,pdf -l info

clean:
	rm -rf $(VENV) db.sqlite3 media staticfiles
