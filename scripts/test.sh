#!/usr/bin/env bash
# The test command: installs what the tests need (into .venv/), starts their services, runs pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"
export PYTHON="$PWD/.venv/bin/python"
# Redis for the distributed-crawl tests (Debian's redis-server, loopback only).
REDIS_PORT=${SKILL3_TEST_REDIS_PORT:-6390}
if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no --daemonize yes >/dev/null
fi
export SKILL3_TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
# The real-model tier: llama.cpp serving Gemma 3 270M on loopback.
SKILL3_REAL_LLM_URL=$(bash scripts/real-llm.sh)
export SKILL3_REAL_LLM_URL
export SKILL3_CHROMIUM=${SKILL3_CHROMIUM:-/usr/bin/chromium}
status=0
# Lint and type check (configured in pyproject.toml); a finding fails the run, after the tests.
checks=$(date +%s)
"$PWD/.venv/bin/ruff" check . || status=1
"$PWD/.venv/bin/mypy" || status=1
echo "lint and type check: $(( $(date +%s) - checks )) s"
start=$(date +%s)
# One worker per core (pytest-xdist); a file's tests stay on one worker (module-scoped crawls run once).
"$PYTHON" -m pytest -n "${SKILL3_TEST_WORKERS:-auto}" --dist loadfile "$@" || status=$?
echo "test suite: $(( $(date +%s) - start )) s"
exit $status
