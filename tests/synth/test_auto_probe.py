"""``--llm-provider auto``: only a 2xx JSON model list at ``GET /models`` counts as a model server.

A real loopback HTTP server answers each case (a proxy's 403, a login page, a redirect, ...)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from synth.llm.base import resolve_auto, served_models


class _Answer:
    def __init__(self, status: int, body: bytes, ctype: str = "application/json"):
        self.status, self.body, self.ctype = status, body, ctype


@pytest.fixture
def server():
    answer = {"now": _Answer(200, b"{}")}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            a = answer["now"]
            self.send_response(a.status)
            self.send_header("Content-Type", a.ctype)
            self.send_header("Content-Length", str(len(a.body)))
            if 300 <= a.status < 400:
                self.send_header("Location", "/login")
            self.end_headers()
            self.wfile.write(a.body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield answer, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


MODELS = json.dumps({"object": "list", "data": [{"id": "m1", "object": "model"}]}).encode()

CASES = [
    # status, body, content type, provider, served
    (200, MODELS, "application/json", "openai", ["m1"]),
    (200, b'{"object": "list", "data": []}', "application/json", "openai", []),
    (403, b'{"error": "forbidden by proxy policy"}', "application/json", "extractive", []),
    (401, b'{"error": "unauthorized"}', "application/json", "extractive", []),
    (404, b"not found", "text/plain", "extractive", []),
    (407, b"proxy authentication required", "text/plain", "extractive", []),
    (302, b"", "text/html", "extractive", []),
    (200, b"<html><body>Sign in</body></html>", "text/html", "extractive", []),
    (200, b'{"status": "ok"}', "application/json", "extractive", []),
    (200, b'[{"id": "m1"}]', "application/json", "extractive", []),
    (503, MODELS, "application/json", "extractive", []),
]


@pytest.mark.parametrize("status, body, ctype, provider, served", CASES)
def test_auto_needs_a_2xx_json_model_list(server, status, body, ctype, provider, served):
    answer, url = server
    answer["now"] = _Answer(status, body, ctype)
    got, reason = resolve_auto(url)
    assert got == provider
    assert (reason is None) == (provider == "openai")
    if reason:
        assert url in reason and "\n" not in reason
    assert served_models(url) == served
