#!/usr/bin/env bash
# run.sh [CASE...]: the held-out delta cases (cases.json beside this script) with the development set's own scorer
# (DELTA_DEV, default: delta-dev in the shared folder beside the checkout: run_case.sh, score.py, serve_static.py). cwd: the project checkout. Exit 0 iff every case passed.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DEV="${DELTA_DEV:-$(dirname "$ROOT")/shared/delta-dev}"
[ -f "$DEV/run_case.sh" ] || { echo "run.sh: no $DEV/run_case.sh (set DELTA_DEV to the development set's folder)"; exit 2; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
for f in run_case.sh score.py serve_static.py; do cp "$DEV/$f" "$T/"; done
cp "$HERE/cases.json" "$T/cases.json"
cases=("$@"); [ ${#cases[@]} -gt 0 ] || mapfile -t cases < <(python3 -c "import json;[print(k) for k in json.load(open('$T/cases.json')) if not k.startswith('_')]")
fails=0; rows=()
for c in "${cases[@]}"; do
  out=$(bash "$T/run_case.sh" "$c" 2>&1); rc=$?
  echo "$out"; [ $rc -eq 0 ] || fails=$((fails + 1))
  rows+=("$(printf '%-5s %s' "$([ $rc -eq 0 ] && echo pass || echo FAIL)" "$(echo "$out" | tail -n 1)")")
done
echo; echo "=== held-out summary (${#cases[@]} cases, $fails failed)"; printf '%s\n' "${rows[@]}"
[ $fails -eq 0 ]
