"""A real loopback OpenAI-compatible server for end-to-end tests (streaming SSE and plain JSON).

Scripted: each POST /v1/chat/completions takes the next entry of ``script`` (or calls
``default``) — a string (the reply), or a dict ``{"status": 429|500|404|400, "message": ...}``.
Every request (path, headers, JSON body) is recorded in ``requests``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


class StubLLM:
    def __init__(self, default: Callable[[dict], str | dict] | str | None = None):
        self.script: list[str | dict] = []
        self.default = default
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, body: bytes, ctype="application/json", extra=None):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, json.dumps({"object": "list", "data": [{"id": "stub-model", "object": "model"}]}).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    if stub.script:
                        reply = stub.script.pop(0)
                    elif callable(stub.default):
                        reply = stub.default(body)
                    else:
                        reply = stub.default if stub.default is not None else "ok"
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, b'{"error": {"message": "no such route"}}')
                if isinstance(reply, dict):
                    status = reply["status"]
                    err = {"error": {"message": reply.get("message", f"error {status}"), "type": "stub", "code": reply.get("code")}}
                    return self._send(status, json.dumps(err).encode(), extra={"retry-after-ms": "5"})
                model = body.get("model", "stub-model")
                if body.get("stream"):
                    chunks = [reply[i : i + 40] for i in range(0, len(reply), 40)] or [""]
                    out = b""
                    for c in chunks:
                        ev = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                              "choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]}
                        out += b"data: " + json.dumps(ev).encode() + b"\n\n"
                    end = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                    out += b"data: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n"
                    return self._send(200, out, ctype="text/event-stream")
                resp = {"id": "r1", "object": "chat.completion", "created": 0, "model": model,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}}
                self._send(200, json.dumps(resp).encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "StubLLM":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith("/chat/completions")]
