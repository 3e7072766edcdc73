#!/usr/bin/env bash
# Install everything skill3 and its tests need on a fresh Debian machine (run as root or with sudo).
# Idempotent: re-running skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
need_apt=""
for pkg in chromium redis-server python3.11-doc git; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt="$need_apt $pkg"
done
if [ -n "$need_apt" ]; then
  $SUDO apt-get update -q
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -q --no-install-recommends $need_apt
fi
PY=${PYTHON:-python3}
"$PY" -m pip install -q --disable-pip-version-check -e '.[test]'
