"""Loopback documentation sites for the docs-mode tests and the benchmarks.

:class:`SiteServer` serves a dict of routes (or a directory) on 127.0.0.1 in a
thread and counts every request by path, so tests assert what the crawl did.
"""

from __future__ import annotations

import mimetypes
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

Route = tuple[int, str, bytes]  # status, content type, body


class SiteServer:
    def __init__(self, routes: dict[str, Route] | None = None, root: str | Path | None = None, delay: float = 0.0):
        self.routes = dict(routes or {})
        self.root = Path(root) if root else None
        self.delay = delay
        self.hits: Counter[str] = Counter()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                path = urlsplit(self.path).path
                with server._lock:
                    server.hits[path] += 1
                if server.delay:
                    time.sleep(server.delay)
                status, ctype, body = server.lookup(path)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def lookup(self, path: str) -> Route:
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
                return 404, "text/plain", b"not found"
            if f.is_file():
                ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
                if ctype.startswith("text/"):
                    ctype += "; charset=utf-8"
                return 200, ctype, f.read_bytes()
        return 404, "text/plain", b"not found"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def page_hits(self) -> Counter[str]:
        """Hits on pages only (robots.txt, sitemaps, llms.txt left out)."""
        return Counter({p: n for p, n in self.hits.items() if not p.endswith((".xml", ".txt"))})


def html(title: str, body: str, head: str = "") -> bytes:
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>{head}</head><body>{body}</body></html>".encode()


def sphinx_page(i: int, n: int, prefix: str = "/docs/") -> bytes:
    """A Sphinx-shaped page with prose, one code block and links to its tree children and neighbours."""
    links = [c for c in (2 * i + 1, 2 * i + 2, i - 1, i + 1, (i * 7919) % n) if 0 <= c < n and c != i]
    nav = "".join(f"<li><a href='{prefix}p{c}.html'>Page {c}</a></li>" for c in links)
    paras = "".join(
        f"<p>Paragraph {k} of page {i}: the widget API call number {i * 31 + k} configures the frobnicator "
        f"for release {i % 17}.{k} and explains how settings interact with the scheduler.</p>"
        for k in range(6)
    )
    body = (
        "<div class='related'><ul><li><a href='/docs/'>Home</a></li></ul></div>"
        "<div class='document'><div class='documentwrapper'><div class='bodywrapper'>"
        f"<div class='body' role='main'><section id='p{i}'><h1>Page {i}<a class='headerlink' href='#p{i}'>¶</a></h1>"
        f"{paras}<div class='highlight-python notranslate'><div class='highlight'><pre><span></span>"
        f"<span class='k'>def</span> <span class='nf'>f{i}</span>(x):\n    return x  <span class='c1'># {i} &lt;ok&gt;</span>\n</pre></div></div>"
        f"<ul class='simple'>{nav}</ul></section></div></div></div>"
        "<div class='sphinxsidebar'><a href='/docs/ja/p0.html'>日本語</a></div></div>"
    )
    return html(f"Page {i} — Demo docs", body, "<link rel='stylesheet' href='/docs/_static/pygments.css'>")


def generated_site(n: int, prefix: str = "/docs/", sitemap: bool = False) -> dict[str, Route]:
    routes: dict[str, Route] = {"/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n")}
    ctype = "text/html; charset=utf-8"
    for i in range(n):
        routes[f"{prefix}p{i}.html"] = (200, ctype, sphinx_page(i, n, prefix))
    routes[prefix] = (200, ctype, html("Demo docs", f"<div role='main'><h1>Demo</h1>{'<p>Start here for the demo documentation index: it lists the guides, the reference and the tutorials.</p>' * 3}<a href='{prefix}p0.html'>Begin</a></div>"))
    if sitemap:
        urls = "".join(f"<url><loc>SITE{prefix}p{i}.html</loc><lastmod>2026-0{1 + i % 9}-15</lastmod></url>" for i in range(n))
        routes["/sitemap.xml"] = (200, "application/xml", f"<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{urls}</urlset>".encode())
    return routes


def bind(routes: dict[str, Route], base: str) -> dict[str, Route]:
    """Replace the ``SITE`` placeholder with the server's base URL once the port is known."""
    return {p: (s, c, b.replace(b"SITE", base.encode())) for p, (s, c, b) in routes.items()}
