"""The one loopback HTTP server of the tests: a route table served on 127.0.0.1 in a thread.

A route table is either a dict ``path -> (status, content type, body)`` (plus an optional ``root``
directory served as files) or a callable ``(server, host, path, query, body) -> (status, headers,
payload)`` for name-based virtual hosts, counters and scripted answers. Every request is recorded
(``seen``: host, path, query, headers, time, body; ``hits``: a counter by path), so tests assert what
the crawler or the client did.
"""

from __future__ import annotations

import mimetypes
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterable, Union
from urllib.parse import parse_qs, urlsplit

Route = tuple[int, str, bytes]  # status, content type, body
Reply = tuple[int, dict[str, str], Union[bytes, str, Iterable[bytes]]]  # status, headers, payload (chunks: streamed)
Routes = Union[dict[str, Route], Callable[..., Reply]]

NOT_FOUND_ROUTE: Route = (404, "text/plain", b"not found")


@dataclass
class Seen:
    host: str
    path: str
    query: dict
    headers: dict
    t: float
    body: bytes = b""
    method: str = "GET"


class MockServer:
    """Serve ``routes`` (and/or the files under ``root``) on an ephemeral loopback port.

    ``delay`` slows every answer (crawls that must last a while). Use as a context manager or with
    ``start()`` / ``stop()``. ``routes`` may be replaced before the first request (``bind`` needs the
    port first)."""

    def __init__(self, routes: Routes | None = None, root: str | Path | None = None, delay: float = 0.0, name: str = "") -> None:
        self.routes: Routes = routes if routes is not None else {}
        self.root = Path(root) if root else None
        self.delay = delay
        self.name = name
        self.seen: list[Seen] = []
        self.hits: Counter[str] = Counter()
        self.counters: dict[str, int] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                u = urlsplit(self.path)
                host = (self.headers.get("Host") or "").split(":")[0].lower()
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                seen = Seen(host, u.path, parse_qs(u.query), dict(self.headers.items()), time.monotonic(), body, self.command)
                server._local.request = seen
                with server._lock:
                    server.seen.append(seen)
                    server.hits[u.path] += 1
                if server.delay:
                    time.sleep(server.delay)
                status, headers, payload = server.answer(host, u.path, parse_qs(u.query), body)
                if isinstance(payload, str):
                    payload = payload.encode("utf-8")
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                if not isinstance(payload, bytes):  # an iterator of chunks, each sent as it comes (a slow drip)
                    self.end_headers()
                    for chunk in payload:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                    return
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _handle
            do_POST = _handle

        class Quiet(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:  # a client that hung up (e.g. an oversized page)
                pass

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.port: int = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def request(self) -> Seen:
        """The request being answered (in a route callable, on the handler's thread)."""
        return self._local.request

    def answer(self, host: str, path: str, query: dict, body: bytes) -> Reply:
        if callable(self.routes):
            return self.routes(self, host, path, query, body)
        status, ctype, payload = self.lookup(path)
        return status, {"Content-Type": ctype}, payload

    def lookup(self, path: str) -> Route:
        """The dict table's answer for ``path``, then a file under ``root``, else 404."""
        assert isinstance(self.routes, dict)
        if path in self.routes:
            return self.routes[path]
        if self.root is not None:
            rel = path.lstrip("/")
            f = (self.root / rel) if rel else self.root
            if f.is_dir():
                f = f / "index.html"
            try:
                f.resolve().relative_to(self.root.resolve())
            except ValueError:
                return NOT_FOUND_ROUTE
            if f.is_file():
                ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
                if ctype.startswith("text/"):
                    ctype += "; charset=utf-8"
                return 200, ctype, f.read_bytes()
        return NOT_FOUND_ROUTE

    def start(self) -> "MockServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "MockServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def paths(self, host: str | None = None) -> list[str]:
        return [s.path for s in self.seen if host is None or s.host == host]

    def count(self, key: str) -> int:
        """Bump and return a named counter (routes that answer differently the n-th time)."""
        with self._lock:
            self.counters[key] = self.counters.get(key, 0) + 1
            return self.counters[key]

    def page_hits(self) -> Counter[str]:
        """Hits on pages only (robots.txt, sitemaps, llms.txt left out)."""
        return Counter({p: n for p, n in self.hits.items() if not p.endswith((".xml", ".txt"))})
