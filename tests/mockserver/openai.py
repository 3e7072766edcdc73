"""An OpenAI-compatible chat API as a route table for :class:`MockServer` (streaming SSE and plain JSON).

Scripted: each POST ``…/chat/completions`` takes the next entry of ``script`` (or calls / returns
``default``) — a string (the reply), or a dict ``{"status": 429|500|404|400, "message": ...}``.
``GET …/models`` lists one model (the "auto" probe needs a 2xx JSON model list). Every POST (path,
headers, JSON body) is recorded in ``requests``.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Callable, Union

if TYPE_CHECKING:
    from tests.mockserver.server import MockServer, Reply

Answer = Union[str, dict]

_JSON = {"Content-Type": "application/json"}


class OpenAIRoutes:
    def __init__(self, default: Callable[[dict], Answer] | Answer | None = None, model: str = "stub-model") -> None:
        self.script: list[Answer] = []
        self.default = default
        self.model = model
        self.requests: list[dict] = []
        self._lock = threading.Lock()

    def __call__(self, srv: MockServer, host: str, path: str, query: dict, raw: bytes) -> Reply:
        if srv.request.method == "GET":
            if path.rstrip("/").endswith("/models"):
                return 200, _JSON, json.dumps({"object": "list", "data": [{"id": self.model, "object": "model"}]})
            return 404, _JSON, b'{"error": {"message": "not found"}}'
        body = json.loads(raw or b"{}")
        with self._lock:
            self.requests.append({"path": path, "headers": srv.request.headers, "body": body})
            if self.script:
                reply = self.script.pop(0)
            elif callable(self.default):
                reply = self.default(body)
            else:
                reply = self.default if self.default is not None else "ok"
        if not path.endswith("/chat/completions"):
            return 404, _JSON, b'{"error": {"message": "no such route"}}'
        if isinstance(reply, dict):
            status = reply["status"]
            err = {"error": {"message": reply.get("message", f"error {status}"), "type": "stub", "code": reply.get("code")}}
            return status, {**_JSON, "retry-after-ms": "5"}, json.dumps(err)
        model = body.get("model", self.model)
        if body.get("stream"):
            chunks = [reply[i : i + 40] for i in range(0, len(reply), 40)] or [""]
            events = []
            for c in chunks:
                ev = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                      "choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]}
                events.append(b"data: " + json.dumps(ev).encode() + b"\n\n")
            end = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            events.append(b"data: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n")
            return 200, {"Content-Type": "text/event-stream"}, b"".join(events)
        resp = {"id": "r1", "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}}
        return 200, _JSON, json.dumps(resp)


def llm_routes(reply: str) -> OpenAIRoutes:
    """A chat API that always answers ``reply``."""
    return OpenAIRoutes(reply, model="stub")
