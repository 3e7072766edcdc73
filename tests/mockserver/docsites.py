"""Documentation sites for the docs-mode tests and the benchmarks (dict route tables for :class:`MockServer`).

``generated_site`` builds a Sphinx-shaped tree of any size, ``change_site`` one page per docs generator
with version markers and change pages; ``bind`` fills in the server's base URL once its port is known.
"""

from __future__ import annotations

from tests.mockserver.server import Route


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


# -- a documentation site with version markers and change pages, one page per generator -----------------------------
BUILD_DATE = "2026-10-07"
_BUILD_META = f"<meta name='date' content='{BUILD_DATE}'>"
_WORDS = "This paragraph explains the frobnicator's configuration in enough words to be real documentation content."

SPHINX_MARKERS = f"""<div class='body' role='main'><section id='frob-api'><h1>frob API<a class='headerlink' href='#frob-api'>¶</a></h1>
<p>{_WORDS}</p>
<dl class='py function'><dt class='sig sig-object py' id='frob.connect'><span class='sig-prename descclassname'>frob.</span><span class='sig-name descname'>connect</span>(<em>host</em>, <em>timeout=None</em>)<a class='headerlink' href='#frob.connect'>¶</a></dt>
<dd><p>Open a connection to the frobnicator daemon and return a session.</p>
<div class='versionadded'><p><span class='versionmodified added'>New in version 2.1.</span></p></div>
<div class='versionchanged'><p><span class='versionmodified changed'>Changed in version 2.3: </span>Added the <em>timeout</em> parameter.</p></div>
</dd></dl>
<dl class='py function'><dt class='sig sig-object py' id='frob.stream'><span class='sig-prename descclassname'>frob.</span><span class='sig-name descname'>stream</span>(<em>channel</em>)</dt>
<dd><p>Stream frames from a channel as an asynchronous iterator.</p>
<div class='versionadded'><p><span class='versionmodified added'>Added in version 3.0.</span></p></div>
</dd></dl>
<p>Sessions can be pooled with <code>frob.Pool</code>, which reuses idle connections between calls.</p>
<div class='versionadded'><p><span class='versionmodified added'>Added in version 3.0.</span></p></div>
<div class='deprecated-removed'><p><span class='versionmodified'>Deprecated since version 2.5, will be removed in version 4.0: </span>Use <code>frob.connect()</code> instead of <code>frob.open()</code>.</p></div>
<div class='versionremoved'><p><span class='versionmodified removed'>Removed in version 3.0: </span>The <code>frob.legacy</code> module.</p></div>
</section></div>"""

MKDOCS_MARKERS = f"""<div class='md-container'><main class='md-main'><div class='md-content'><article class='md-content md-content__inner md-typeset'>
<h1 id='settings'>Settings</h1><p>{_WORDS}</p>
<h2 id='retries'>retries</h2>
<p><span class='mdx-badge'><span class='mdx-badge__icon'><a href='../changelog/#2.2.0' title='Minimum version'>v</a></span><span class='mdx-badge__text'><a href='../changelog/#2.2.0'>2.2.0</a></span></span></p>
<p>Number of times a failed frobnication is retried before the error is raised to the caller.</p>
<div class='admonition info'><p class='admonition-title'>New in 0.95</p><p>Dependencies can now be declared on the router and apply to every route of it.</p></div>
<p>Added in v2.4: the <code>backoff</code> setting waits exponentially longer between retries.</p>
</article></div></main></div>"""

DOCUSAURUS_MARKERS = f"""<div class='main-wrapper'><article><div class='theme-doc-markdown markdown'><header><h1>Plugins</h1></header><p>{_WORDS}</p>
<h2 class='anchor' id='hooks'>Hooks<a class='hash-link' href='#hooks'>\u200b</a></h2>
<div class='theme-admonition theme-admonition-info alert alert--info admonition_xJq3'><div class='admonitionHeading_Gvgb'><span class='admonitionIcon_Rf37'></span>Added in v2.3</div>
<div class='admonitionContent_BuS1'><p>Plugins can register <code>onBuildEnd</code> hooks that run once the site is built.</p></div></div>
<p><span class='badge badge--warning'>Deprecated since v2.4</span> The <code>onPostBuild</code> hook: use <code>onBuildEnd</code>.</p>
</div></article></div>"""

CHANGELOG_MD = """# Changelog

All notable changes to this project are documented in this file.

## [Unreleased]

### Added
- Work in progress that nobody released yet, so it carries no version at all.

## [3.0.0] - 2026-04-20

### Added
- `frob.stream()` streams frames from a channel as an asynchronous iterator.

### Removed
- The `frob.legacy` module, deprecated since 2.5, is gone.

## [2.5.0] - 2025-11-03

### Deprecated
- `frob.open()`: use `frob.connect()`, which takes the same arguments.

### Fixed
- Connections no longer leak when the daemon restarts during a handshake.

## 2.4.0 (2025-06-12)

### Changed
- Retries now back off exponentially instead of waiting one second each time.
"""

RELEASES_HTML = """<div class='application-main'><main><div class='container'>
<section aria-labelledby='hd-1'><h2 class='sr-only' id='hd-1'>v3.0.0</h2><div class='Box-body'>
<span class='f1 text-bold'><a href='/frob/frob/releases/tag/v3.0.0'>v3.0.0</a></span>
<relative-time datetime='2026-04-20T10:00:00Z' class='no-wrap'>Apr 20, 2026</relative-time>
<div class='markdown-body'><ul><li>Streams: <code>frob.stream()</code> iterates over the frames of a channel.</li><li>The deprecated <code>frob.legacy</code> module was removed.</li></ul></div></div></section>
<section aria-labelledby='hd-2'><h2 class='sr-only' id='hd-2'>v2.5.0</h2><div class='Box-body'>
<span class='f1 text-bold'><a href='/frob/frob/releases/tag/v2.5.0'>v2.5.0</a></span>
<time datetime='2025-11-03T09:00:00Z'>Nov 3, 2025</time>
<div class='markdown-body'><ul><li><code>frob.open()</code> is deprecated in favour of <code>frob.connect()</code>.</li></ul></div></div></section>
</div></main></div>"""

WHATSNEW_HTML = f"""<div class='body' role='main'><section id='whats-new-in-frob-3-0'><h1>What’s New In Frob 3.0</h1>
<p>Frob 3.0 was released on March 5, 2026. {_WORDS}</p>
<section id='summary'><h2>Summary – Release highlights</h2><ul>
<li>New streaming API: <code>frob.stream()</code> iterates over channel frames.</li>
<li>Connection pools are now shared between threads by default.</li></ul></section>
<section id='deprecated'><h2>Deprecated</h2><ul><li><code>frob.open()</code> is deprecated; use <code>frob.connect()</code>.</li></ul></section>
<section id='removed'><h2>Removed</h2><ul><li>The <code>frob.legacy</code> module, deprecated since 2.5, was removed.</li></ul></section>
</section></div>"""


def change_site(prefix: str = "/docs/") -> dict[str, Route]:
    """One site, one generator per page: Sphinx / MkDocs-Material / Docusaurus markers, a Keep-a-Changelog
    ``CHANGELOG.md`` (served as markdown), a GitHub-like releases page and a What's New page. Most pages
    carry one build date (``BUILD_DATE``), as a docs build stamps them."""
    ctype = "text/html; charset=utf-8"
    pages = {
        "api.html": html("frob API — Frob docs", SPHINX_MARKERS, _BUILD_META),
        "settings/": html("Settings - Frob", MKDOCS_MARKERS, _BUILD_META),
        "plugins.html": html("Plugins | Frob", DOCUSAURUS_MARKERS, _BUILD_META),
        "whatsnew/3.0.html": html("What’s New In Frob 3.0 — Frob docs", WHATSNEW_HTML, _BUILD_META),
        "releases": html("Releases · frob/frob", RELEASES_HTML),
    }
    for i in range(4):  # plain pages of the same build
        pages[f"guide{i}.html"] = html(f"Guide {i} — Frob docs", f"<div role='main'><h1>Guide {i}</h1><p>{_WORDS}</p><p>{_WORDS}</p></div>", _BUILD_META)
    links = "".join(f"<li><a href='{prefix}{p}'>{p}</a></li>" for p in [*pages, "CHANGELOG.md"])
    routes: dict[str, Route] = {"/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n")}
    routes[prefix] = (200, ctype, html("Frob docs", f"<div role='main'><h1>Frob</h1><p>{_WORDS}</p><ul>{links}</ul></div>", _BUILD_META))
    for path, body in pages.items():
        routes[prefix + path] = (200, ctype, body)
    routes[prefix + "CHANGELOG.md"] = (200, "text/markdown; charset=utf-8", CHANGELOG_MD.encode())
    return routes
