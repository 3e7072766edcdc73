#!/usr/bin/env bash
# Install everything skill3 and its tests need on a fresh Debian/Ubuntu machine (run as root or with sudo).
# Everything Python goes into the project's own virtual environment, .venv/ (a stock system Python is
# "externally managed", PEP 668, and refuses `pip install`). Idempotent: re-running skips what is there.
# Afterwards: .venv/bin/skill3, .venv/bin/scrapy (or `source .venv/bin/activate`).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
need_apt=""
# python3-venv: Debian and Ubuntu ship venv's ensurepip separately.
for pkg in chromium redis-server python3.11-doc git python3-venv wget; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt="$need_apt $pkg"
done
if [ -n "$need_apt" ]; then
  $SUDO apt-get update -q
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -q --no-install-recommends $need_apt
fi
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
