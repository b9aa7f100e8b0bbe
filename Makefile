# Developer commands. The README's quick start uses `make run` and `make test`.
PY ?= python3
PIP := $(PY) -m pip

.PHONY: install install-test chromium run test lint format bench-build bench-retrieval bench-ask bench-rank eval

install:
	$(PIP) install -q -e .

# Test needs: Python extras, and Debian's Chromium for the browser test (never a downloaded browser).
install-test: install chromium
	$(PIP) install -q -e ".[test]"

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

run: install
	$(PY) -m streamlit run app.py

test: install-test
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(PY) -m pytest -q

lint:
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

format:
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

bench-build:
	$(PY) bench/build_kb.py

bench-retrieval:
	$(PY) bench/retrieval.py

bench-ask:
	$(PY) bench/ask_latency.py

bench-rank:
	$(PY) bench/rank_accuracy.py

eval:
	meddiag eval ../shared/data/phenopackets-dev.jsonl --baseline
