"""Change pages and version markers as different generators print them — small pages written for the tests.

Each class of structure the extraction reads comes in at least two spellings (generators' markup);
``PAGES`` maps a name to ``(url, html)``. ``page_html`` wraps a body in a generator's page chrome.
"""

from __future__ import annotations

WORDS = "This paragraph explains the frobnicator's configuration in enough words to be real documentation content."
LEAD = f"<p class='lead'>{WORDS} {WORDS}</p>"  # enough prose for the page to be kept, before its first heading


def sphinx(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title} — Acme docs</title></head><body>"
            "<div class='related'><ul><li><a href='index.html'>Acme docs</a></li></ul></div>"
            f"<div class='document'><div class='documentwrapper'><div class='bodywrapper'><div class='body' role='main'>{LEAD}{body}"
            "</div></div></div></div></body></html>")


def rtd(title: str, body: str) -> str:
    """Sphinx with a theme whose permalinks are an icon font's private-use glyph."""
    return (f"<!DOCTYPE html><html><head><title>{title} — Acme</title></head><body><nav class='wy-nav-side'><p>{WORDS}</p></nav>"
            f"<div class='rst-content'><div role='main' class='document'><div itemprop='articleBody'>{LEAD}{body}</div></div></div></body></html>")


def mkdocs(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><title>{title} - Acme</title></head><body><div class='md-container'><main class='md-main'>"
            f"<div class='md-content'><article class='md-content__inner md-typeset'>{LEAD}{body}</article></div></main></div></body></html>")


def docusaurus(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><title>{title} | Acme</title></head><body><nav><p>{WORDS}</p></nav><div class='main-wrapper'>"
            f"<article><div class='theme-doc-markdown markdown'>{LEAD}{body}</div></article></div></body></html>")


def plain(title: str, body: str) -> str:
    """No known generator (Hugo, javadoc, hand-written): the generic extractor reads it."""
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body><header><p>Acme site</p></header><main>{LEAD}{body}</main></body></html>"


def text_page(title: str, text: str) -> str:
    """A page whose content is one block of plain text."""
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body><pre>{text}</pre></body></html>"


def hpl(level: int, text: str, anchor: str, glyph: str = "¶", cls: str = "headerlink") -> str:
    """A heading with a theme's permalink after it."""
    return f"<h{level} id='{anchor}'>{text}<a class='{cls}' href='#{anchor}' title='Permalink'>{glyph}</a></h{level}>"


# -- release dates ---------------------------------------------------------------------------------------------------

DATE_PAGES = {
    # a date in the section title, the version before it; an icon-font permalink glyph (private use)
    "sphinx-heading-date": ("https://docs.acme.dev/changelog.html", rtd("Changelog", (
        hpl(1, "Changelog", "changelog", "\uf0c1")
        + hpl(2, "Acme 2.3.0 (March 4, 2024)", "v230", "\uf0c1") + "<ul><li><p>New <code>frob.stream()</code> iterates frames.</p></li></ul>"
        + hpl(2, "Acme 2.2.0 (2023-11-20)", "v220", "\uf0c1") + "<ul><li><p>Connection pools are shared between threads.</p></li></ul>"))),
    # the date before the version, a "#" permalink (MkDocs, Hugo)
    "mkdocs-date-first": ("https://acme.dev/news/", mkdocs("News", (
        "<h1 id='news'>News</h1>"
        + hpl(2, "2024-03-04 (2.3.0)", "230", "#") + "<ul><li>Streams: <code>frob.stream()</code> iterates frames.</li></ul>"
        + hpl(2, "2023-11-20 (2.2.0)", "220", "#") + "<ul><li>Pools are shared between the threads now.</li></ul>"))),
    "hugo-date-dash-version": ("https://acme.dev/blog/updates/", plain("Updates", (
        f"<h1>Updates</h1><p>{WORDS}</p>"
        "<h2 id='a'>2024-03-04 — v2.3.0 <a class='anchor' href='#a'>§</a></h2><p>The streaming API is out for everybody to use now.</p>"
        "<h2 id='b'>2023-11-20 — v2.2.0 <a class='anchor' href='#b'>§</a></h2><p>Connection pools are shared between all threads.</p>"))),
    # "What's new in X (date)" as the page's title and first heading (Docusaurus, a zero-width permalink)
    "docusaurus-whatsnew-title-date": ("https://acme.dev/docs/whats-new", docusaurus("What's new in 2.3.0 (March 4, 2024)", (
        "<header><h1>What's new in 2.3.0 (March 4, 2024)</h1></header>"
        "<h2 class='anchor' id='streams'>Streams<a class='hash-link' href='#streams'>\u200b</a></h2>"
        "<p>The new <code>frob.stream()</code> call iterates over a channel's frames.</p>"))),
    # a page about one release, named by structure only: "Acme Release 2.3.0 On 2024-03-04"
    "plain-one-release-title": ("https://acme.dev/posts/2024/acme-230/", plain("Acme Release 2.3.0 On 2024-03-04", (
        "<h1>Acme Release 2.3.0 On 2024-03-04</h1>"
        "<p>The streaming API lets clients iterate over frames without buffering them.</p>"
        "<ul><li>New <code>frob.stream()</code> iterates the frames of a channel.</li>"
        "<li>Pools are shared between threads by default now.</li></ul>"))),
    # a post about one release: its heading names the version, the <time> or date line under it the day
    "docusaurus-blog-release-post": ("https://acme.dev/blog/2024/03/04/acme-2-3", docusaurus("Announcing Acme 2.3", (
        "<header><h1 class='title'>Announcing Acme 2.3</h1><div class='meta'><time datetime='2024-03-04T00:00:00.000Z'>"
        "March 4, 2024</time> · 4 min read</div></header>"
        "<p>Acme 2.3 brings the streaming API: <code>frob.stream()</code> iterates over a channel's frames.</p>"))),
    "hugo-post-is-out": ("https://acme.dev/posts/acme-230/", plain("Acme 2.3.0 is out", (
        "<article><h1>Acme 2.3.0 is out</h1><p class='byline'>Published: March 4, 2024</p>"
        "<p>The streaming API lets clients iterate over frames without buffering them.</p></article>"))),
    "hugo-release-dateline": ("https://acme.dev/news/acme-2-3-0/", plain("Acme 2.3.0 | Acme", (
        "<article><h1>Acme 2.3.0</h1><p class='date'>March 4, 2024</p>"
        "<p>The streaming API lets clients iterate over frames without buffering them.</p></article>"))),
    # a date in a field list under the version heading (docutils field list), and "Released: …" lines
    # a page per release headed by a bare major number ("Release 15"), its title nested in wrappers, the date in a
    # field after the table of contents (DocBook-like)
    "docbook-release-major": ("https://acme.dev/docs/appendix-r7.html", plain("R.7. Release 15", (
        "<div class='sect1'><div class='titlepage'><div><div><h2 class='title'>R.7. Release 15</h2></div></div></div>"
        "<div class='toc'><dl class='toc'><dt><a href='#r7-1'>R.7.1. Overview</a></dt><dt><a href='#r7-2'>R.7.2. Changes</a></dt></dl></div>"
        "<p><strong>Release date: </strong>2024-03-04</p><div class='sect2'><div class='titlepage'><div><div>"
        "<h3 class='title'>R.7.1. Overview</h3></div></div></div><p>Acme 15 contains many new features, including:</p>"
        "<ul><li><p>Support for the <code>MERGE</code> command.</p></li><li><p>Structured log output in JSON.</p></li></ul></div></div>"))),
    "sphinx-field-list": ("https://docs.acme.dev/releases/2.3.html", sphinx("Acme 2.3 release notes", (
        "<section id='acme-2-3'><h1>Acme 2.3.0<a class='headerlink' href='#acme-2-3'>¶</a></h1>"
        "<dl class='field-list simple'><dt class='field-odd'>Release date<span class='colon'>:</span></dt>"
        "<dd class='field-odd'><p>March 4, 2024</p></dd><dt class='field-even'>Author<span class='colon'>:</span></dt>"
        "<dd class='field-even'><p>The Acme team</p></dd></dl>"
        "<p>Streams arrive: <code>frob.stream()</code> iterates over the frames of a channel.</p></section>"))),
    "keepachangelog-released-line": ("https://acme.dev/CHANGELOG/", mkdocs("Changelog", (
        "<h1 id='changelog'>Changelog</h1>"
        "<h2 id='230'>2.3.0</h2><p>Released: March 4, 2024</p><h3 id='added'>Added</h3><ul><li>The <code>frob.stream()</code> call for frames.</li></ul>"
        "<h2 id='220'>2.2.0</h2><p><em>release-date: 2023-11-20 10:15 A.M UTC+1:00</em></p><h3 id='changed'>Changed</h3>"
        "<ul><li>Pools are shared between threads by default.</li></ul>"))),
    # a date-only sub-heading under the release's heading
    "sphinx-date-subheading": ("https://docs.acme.dev/releases/v2.3.0.html", sphinx("What’s new in Acme 2.3.0", (
        "<section id='whats-new'><h1>What’s new in Acme 2.3.0<a class='headerlink' href='#whats-new'>¶</a></h1>"
        "<section id='mar-4-2024'><h2>Mar 4, 2024<a class='headerlink' href='#mar-4-2024'>¶</a></h2>"
        "<section id='new'><h3>New features<a class='headerlink' href='#new'>¶</a></h3>"
        "<ul><li><p><code>frob.stream()</code> iterates over the frames of a channel.</p></li></ul></section></section></section>"))),
    # a sentence under the heading; a first paragraph that names another release is not this one's date
    "plain-sentence-dates": ("https://acme.dev/releases/", plain("Acme releases", (
        "<h1>Acme releases</h1>"
        "<h2>Acme 2.3.0</h2><p>This release was published on 4 March 2024 and brings the streaming API.</p>"
        "<ul><li>New <code>frob.stream()</code> iterates frames.</li></ul>"
        "<h2>Acme 2.2.1</h2><p>Unlike 2.2.0, which was released on 20 November 2023, this patch needs no migration.</p>"
        "<ul><li>Fixed a leak in the handshake code path.</li></ul>"
        "<h2>Acme 2.2.0</h2><p>Connection pools are shared between threads from now on.</p>"))),
    # <time datetime> under the heading
    "hugo-time": ("https://acme.dev/releases/", plain("Releases", (
        "<h1>Releases</h1><article><h2>v2.3.0</h2><p><time datetime='2024-03-04T09:00:00Z'>4 March</time></p>"
        "<p>The streaming API is now available to everybody.</p></article>"
        "<article><h2>v2.2.0</h2><p><time datetime='2023-11-20'>20 November</time></p><p>Pools are shared now between threads.</p></article>"))),
    # a table of versions and dates (two spellings: Sphinx table, a plain HTML table with thead)
    "sphinx-version-table": ("https://docs.acme.dev/history.html", sphinx("Release history", (
        "<section id='history'><h1>Release history<a class='headerlink' href='#history'>¶</a></h1>"
        "<table class='docutils align-default'><thead><tr class='row-odd'><th class='head'><p>Version</p></th>"
        "<th class='head'><p>Release date</p></th><th class='head'><p>Notes</p></th></tr></thead><tbody>"
        "<tr><td><p>2.3.0</p></td><td><p>2024-03-04</p></td><td><p>Streams: <code>frob.stream()</code> iterates frames.</p></td></tr>"
        "<tr><td><p>2.2.0</p></td><td><p>2023-11-20</p></td><td><p>Pools are shared between threads.</p></td></tr>"
        "</tbody></table></section>"))),
    "plain-version-table": ("https://acme.dev/download/", plain("Download Acme", (
        f"<h1>Download Acme</h1><p>{WORDS}</p><table><thead><tr><th>Release</th><th>Released</th><th>Support ends</th></tr></thead>"
        "<tbody><tr><td>v2.3.0</td><td>Mar 4, 2024</td><td>2026-03-04</td></tr><tr><td>v2.2.0</td><td>Nov 20, 2023</td><td>2025-11-20</td></tr>"
        "</tbody></table>"))),
    # a page about one release whose version and date are only in a field table beside labels
    "plain-field-table": ("https://acme.dev/notes/spring/", plain("Spring release", (
        "<h1>Spring release</h1><table class='infobox'><tr><th>Version</th><td>2.3.0</td></tr>"
        "<tr><th>Release date</th><td>4 March 2024</td></tr></table>"
        "<p>The spring release brings the streaming API and shared connection pools.</p>"
        "<ul><li>New <code>frob.stream()</code> iterates over the frames of a channel.</li></ul>"))),
}

# -- plain-text change logs ------------------------------------------------------------------------------------------

NEWS_RST = """Acme news
=========

2.3.0 (2024-03-04)
------------------

New features:

* ``frob.stream()`` iterates over the frames of a channel
  without buffering them.
* Pools are shared between threads by default.

2.2.0 (2023-11-20)
------------------

* Fixed a leak in the handshake code path when the daemon restarts.
"""

NEWS_PLAIN = """Acme -- history of user-visible changes

Version 2.3.0
Released: March 4, 2024
  - frob.stream() iterates over the frames of a channel.
  - Pools are shared between threads by default.

Version 2.2.0
Released: November 20, 2023
  - Fixed a leak in the handshake code path when the daemon restarts.
"""

TEXT_PAGES = {
    "pre-rst-news": ("https://acme.dev/NEWS.html", text_page("NEWS", NEWS_RST)),
    "pre-plain-news": ("https://acme.dev/history.html", text_page("Acme history", NEWS_PLAIN)),
}

# -- markers ---------------------------------------------------------------------------------------------------------

MARKER_PAGES = {
    # "Added in: vX" with a colon, and a History table (version + changes columns) per API
    "node-history": ("https://acme.dev/api/fs.html", plain("File system | Acme", (
        f"<h1>File system</h1><p>{WORDS}</p>"
        "<h3 id='fs_readfile'><code>fs.readFile(path[, options], callback)</code></h3>"
        "<details class='changelog'><summary>History</summary><table><tbody>"
        "<tr><th>Version</th><th>Changes</th></tr>"
        "<tr><td>v10.0.0</td><td><p>The <code>callback</code> parameter is no longer optional.</p></td></tr>"
        "<tr><td>v7.0.0</td><td><p>The <code>path</code> parameter can be a URL object.</p></td></tr>"
        "<tr><td>v0.1.29</td><td><p><span>Added in: v0.1.29</span></p></td></tr>"
        "</tbody></table></details><p>Reads the entire contents of a file asynchronously.</p>"
        "<h3 id='fs_stat'><code>fs.statfs(path[, options], callback)</code></h3>"
        "<p>Added in: v19.6.0</p><p>Returns information about the mounted file system.</p>"))),
    # a lone "Added in:" in its own metadata box right after a flat heading: the section it opens is the entry
    "metadata-box-after-heading": ("https://acme.dev/api/probe.html", plain("Probe | Acme", (
        f"<h2>Probe runner<span><a class='mark' href='#probe-runner' id='probe-runner'>#</a></span></h2>"
        "<!--introduced_in=v9.0.0--><div class='api_meta'><span>Added in: v9.0.0, v8.4.0</span></div>"
        "<blockquote><p>Stability: 1 - Experimental</p></blockquote>"
        f"<p>The <code>acme:probe</code> module runs health probes. {WORDS}</p>"))),
    # members of an enum in a table, each description ending with a "Since:" label (gtk-doc-like)
    "member-table-trailing-since": ("https://acme.dev/ref/AcmeFlags.html", plain("AcmeFlags", (
        f"<h1>AcmeFlags</h1><p>{WORDS}</p><h3>enum AcmeFlags</h3><table><tbody>"
        "<tr><td><p><a name='ACME-FLAGS-NONE:CAPS'></a>ACME_FLAGS_NONE</p></td><td><p>No flags.</p></td><td> </td></tr>"
        "<tr><td><p><a name='ACME-DEFAULT-FLAGS:CAPS'></a>ACME_DEFAULT_FLAGS</p></td><td><p>Default flags. Since: 2.74</p></td><td> </td></tr>"
        "<tr><td><p><a name='ACME-IS-SERVICE:CAPS'></a>ACME_IS_SERVICE</p></td><td><p>Run as a service.</p></td><td> </td></tr>"
        "</tbody></table>"))),
    "sphinx-history-table": ("https://docs.acme.dev/api.html", sphinx("API", (
        "<section id='api'><h1>API<a class='headerlink' href='#api'>¶</a></h1>"
        "<dl class='py function'><dt class='sig sig-object py' id='acme.connect'><span class='sig-prename descclassname'>acme.</span>"
        "<span class='sig-name descname'>connect</span>(<em>host</em>)<a class='headerlink' href='#acme.connect'>¶</a></dt>"
        "<dd><p>Open a connection to the daemon.</p><table class='docutils'><thead><tr><th>Version</th><th>Change</th></tr></thead>"
        "<tbody><tr><td>2.3</td><td>Deprecated the <em>retry</em> argument.</td></tr><tr><td>2.0</td><td>Added the <em>host</em> argument.</td></tr>"
        "</tbody></table></dd></dl></section>"))),
    # "Since:" fields of a definition list (class level and member level), javadoc-like
    "javadoc-since": ("https://acme.dev/api/acme/util/HexCodec.html", plain("HexCodec (Acme API)", (
        "<div class='header'><h1 title='Class HexCodec' class='title'>Class HexCodec</h1></div>"
        "<section class='class-description' id='class-description'><div class='type-signature'>public final class HexCodec</div>"
        "<div class='block'>Converts between bytes and hexadecimal strings, in either case.</div>"
        "<dl class='notes'><dt>Since:</dt><dd>17</dd></dl></section>"
        "<section class='details'><ul class='details-list'><li><section class='detail' id='toHex(byte[])'><h3>toHex</h3>"
        "<div class='member-signature'>public String toHex(byte[] bytes)</div><div class='block'>Formats bytes as hex digits.</div>"
        "<dl class='notes'><dt>Since:</dt><dd>18</dd></dl></section></li></ul></section>"))),
    # a since label inside a function heading (two spellings: a module reference, a crate-like page)
    "since-span-heading": ("https://acme.dev/lib/lists.html", plain("lists", (
        "<h1>lists</h1><p>List processing functions for the Acme runtime.</p>"
        "<article class='func'><h4 id='enumerate-1' class='func-head'><span class='title-name'>enumerate(List1) -&gt; List2</span>"
        "<div class='title-since'><span class='since'>ACME 25.0</span></div></h4>"
        "<div class='desc'><p>Returns List1 with each element paired with its index.</p></div></article>"))),
    "since-span-title": ("https://acme.dev/std/vec/struct.Vec.html", plain("Vec in acme::vec", (
        "<h1>Struct Vec</h1><p>A contiguous growable array type.</p>"
        "<h4 id='method.push_within_capacity' class='code-header'>pub fn push_within_capacity(&amp;mut self, value: T)"
        "<span class='since' title='Stable since Acme version 1.72.0'>1.72.0</span></h4>"
        "<p>Appends an element if there is sufficient spare capacity.</p>"))),
    # "X+" badges and data attributes
    "plus-badges": ("https://acme.dev/docs/config/", mkdocs("Config", (
        f"<h1 id='config'>Config</h1><p>{WORDS}</p>"
        "<h2 id='retries'>retries <span class='badge'>2.3+</span></h2><p>Number of times a failed call is retried.</p>"
        "<dl><dt id='backoff'><code>backoff</code> <sup>v2.4+</sup></dt><dd>Waits exponentially longer between retries.</dd></dl>"
        "<p><span data-version-added='2.5'>streams</span>: frames can be streamed from a channel.</p>"))),
    # tabs labelled as markers select the rows of a list (javadoc-like classes, and ARIA tab panels)
    "tab-rows": ("https://acme.dev/api/new-list.html", plain("New API List (Acme 3)", (
        "<h1>New API</h1><div class='table-tabs' role='tablist'>"
        "<button id='method-tab0' role='tab' class='active-table-tab'>New Methods</button>"
        "<button id='method-tab1' role='tab' class='table-tab'>Added in 3</button>"
        "<button id='method-tab2' role='tab' class='table-tab'>Added in 2</button></div>"
        "<div id='method.tabpanel' role='tabpanel'><div class='summary-table two-column-summary'>"
        "<div class='col-summary-item-name method method-tab1'><a href='acme/HexCodec.html#toHex()'>acme.HexCodec.toHex()</a></div>"
        "<div class='col-last method method-tab1'><div class='block'>Formats bytes as hex digits.</div></div>"
        "<div class='col-summary-item-name method method-tab2'><a href='acme/Pool.html#share()'>acme.Pool.share()</a></div>"
        "<div class='col-last method method-tab2'><div class='block'>Shares the pool between threads.</div></div>"
        "</div></div>"))),
    "aria-tab-panels": ("https://acme.dev/docs/changes/", docusaurus("API changes", (
        "<header><h1>API changes</h1></header><div class='tabs-container'><ul role='tablist'>"
        "<li role='tab' id='tab-30'>Added in 3.0</li><li role='tab' id='tab-29'>Deprecated in 2.9</li></ul>"
        "<div role='tabpanel' aria-labelledby='tab-30'><ul><li><code>frob.stream()</code> iterates frames.</li></ul></div>"
        "<div role='tabpanel' aria-labelledby='tab-29'><ul><li><code>frob.open()</code>: use <code>frob.connect()</code>.</li></ul></div>"
        "</div>"))),
    # a glued product prefix ("go1.21"), a requirement label, a platform badge with a product word
    "pkgdoc-added-in": ("https://pkg.acme.dev/slices", plain("slices package", (
        "<h1>Package slices</h1><h4 id='Concat'>func <a href='#Concat'>Concat</a> <span class='Documentation-sinceVersion'>added in go1.22</span></h4>"
        "<pre>func Concat[S ~[]E, E any](slices ...S) S</pre><p>Concat returns a new slice concatenating the passed in slices.</p>"))),
    "verinfo-at-least": ("https://acme.dev/manual/function.frob-stream.html", plain("frob_stream", (
        "<h1 class='refname'>frob_stream</h1><p class='verinfo'>(Acme 8 &gt;= 8.2.0)</p>"
        "<p class='refpurpose'>frob_stream — Iterates over the frames of a channel</p>"))),
    "platform-badge": ("https://acme.dev/documentation/frob/stream", plain("stream | Acme Developer", (
        "<h1>stream(channel:)</h1><ul class='availability'><li><span class='badge'>AcmeOS 17.0+</span></li></ul>"
        "<p>Iterates over the frames of a channel as they arrive, without buffering.</p>"))),
    # since tags of API generators: a tag block with its own small heading, a definition list of tags
    "typedoc-since-tag": ("https://acme.dev/api/functions/stream.html", plain("stream | Acme API", (
        "<h1>Function stream</h1><section class='tsd-panel'><ul class='tsd-signatures'><li class='tsd-signature'>"
        "stream(channel: string): Frames</li></ul><div class='tsd-comment tsd-typography'><p>Iterates over the frames.</p>"
        "<div class='tsd-tag-since'><h4 class='tsd-anchor-link'>Since</h4><p>2.3.0</p></div></div></section>"))),
    "jsdoc-since-dl": ("https://acme.dev/jsdoc/Pool.html", plain("Class: Pool", (
        "<h2>Class: Pool</h2><h4 class='name' id='share'><span class='type-signature'></span>share<span class='signature'>()</span></h4>"
        "<div class='description'>Shares the pool between threads.</div><dl class='details'>"
        "<dt class='tag-since'>Since:</dt><dd class='tag-since'><ul class='dummy'><li>2.4.0</li></ul></dd></dl>"))),
    # a table of APIs with a "since" column: one marker per row, on the row's API
    "api-table-since": ("https://acme.dev/docs/functions/", plain("Functions", (
        "<h1>Functions</h1><table><thead><tr><th>Function</th><th>Description</th><th>Since</th></tr></thead><tbody>"
        "<tr><td><code>frob.stream()</code></td><td>Iterates over the frames of a channel.</td><td>2.3</td></tr>"
        "<tr><td><code>frob.connect()</code></td><td>Opens a connection to the daemon.</td><td>1.0</td></tr></tbody></table>"))),
    "sphinx-list-table-added": ("https://docs.acme.dev/options.html", sphinx("Options", (
        "<section id='options'><h1>Options<a class='headerlink' href='#options'>¶</a></h1>"
        "<table class='docutils align-default'><thead><tr class='row-odd'><th class='head'><p>Option</p></th>"
        "<th class='head'><p>Added in</p></th><th class='head'><p>Description</p></th></tr></thead><tbody>"
        "<tr class='row-even'><td><p><code class='docutils literal'><span class='pre'>--follow</span></code></p></td><td><p>2.3</p></td>"
        "<td><p>Keep reading frames as they arrive.</p></td></tr></tbody></table></section>"))),
    # changelog sections of a page that is not named like a change page
    "doc-page-changelog-section": ("https://acme.dev/plugins/retry/", mkdocs("Retry plugin", (
        f"<h1 id='retry'>Retry plugin</h1><p>{WORDS}</p><h2 id='usage'>Usage</h2><p>{WORDS}</p>"
        "<h2 id='history'>Changelog</h2><h3 id='v13'>1.3.0</h3><ul><li>Retries back off exponentially now.</li></ul>"))),
    "doc-page-version-sections": ("https://docs.acme.dev/compat.html", sphinx("Compatibility", (
        f"<section id='compat'><h1>Compatibility<a class='headerlink' href='#compat'>¶</a></h1><p>{WORDS}</p>"
        "<section id='v2'><h2>Version 2.0<a class='headerlink' href='#v2'>¶</a></h2><p>The daemon protocol changed to frames.</p></section>"
        "<section id='v1'><h2>Version 1.0<a class='headerlink' href='#v1'>¶</a></h2><p>The first protocol sent whole messages.</p></section>"
        "</section>"))),
}

# -- pages that mention a version and a date without being about a release -----------------------------------------

NOT_RELEASE_PAGES = {
    "blog-post": ("https://acme.dev/blog/scaling/", plain("Scaling Acme 2.3 on March 4, 2024", (
        "<h1>Scaling Acme 2.3 on March 4, 2024</h1><p>We moved the cluster to the new frame protocol over a weekend.</p>"
        "<p>Most of the work went into the connection pools, which we now share between threads.</p>"))),
    "tutorial-numbered": ("https://docs.acme.dev/tutorial/part2.html", sphinx("2.3. Streams", (
        "<section id='streams'><h1><span class='section-number'>2.3. </span>Streams<a class='headerlink' href='#streams'>¶</a></h1>"
        "<p>Streams iterate over the frames of a channel without buffering them.</p>"
        "<section id='s1'><h2><span class='section-number'>2.3.1. </span>Opening<a class='headerlink' href='#s1'>¶</a></h2>"
        "<p>Open a stream with the channel's name and read its frames in a loop.</p></section>"
        "<section id='s2'><h2><span class='section-number'>2.3.2. </span>Closing<a class='headerlink' href='#s2'>¶</a></h2>"
        "<p>Close it when done, or use it as a context manager so it closes itself.</p></section>"
        "<section id='s3'><h2><span class='section-number'>2.3.3. </span>Errors<a class='headerlink' href='#s3'>¶</a></h2>"
        "<p>A broken channel raises an error from the next read of the loop.</p></section></section>"))),
}

# -- entries' path, api and code -------------------------------------------------------------------------------------

FIELDS_PAGE = ("https://docs.acme.dev/whatsnew/2.3.html", sphinx("What’s New In Acme 2.3", (
    "<section id='whats-new'><h1>What’s New In Acme 2.3<a class='headerlink' href='#whats-new'>¶</a></h1>"
    "<section id='improved'><h2>Improved Modules<a class='headerlink' href='#improved'>¶</a></h2>"
    "<section id='frob'><h3>frob<a class='headerlink' href='#frob'>¶</a></h3>"
    "<ul><li><p>Added <code>frob.TaskGroup</code>, an asynchronous context manager holding a group of tasks.</p>"
    "<div class='highlight-python notranslate'><div class='highlight'><pre><span></span>async with frob.TaskGroup() as tg:\n"
    "    tg.create_task(work())\n</pre></div></div></li>"
    "<li><p>Added <code>frob.timeout()</code>, a context manager that cancels what runs too long.</p></li></ul>"
    "<p>The old helper <code>frob.legacy_wait()</code> is replaced by the new timeout manager, for example:</p>"
    "<div class='highlight-python notranslate'><div class='highlight'><pre>async with frob.timeout(10):\n    await work()\n</pre></div></div>"
    "<div class='highlight-python notranslate'><div class='highlight'><pre>" + "x = 1\n" * 800 + "</pre></div></div>"
    "</section></section></section>")))

API_PAGE = ("https://docs.acme.dev/library/frob.html", sphinx("frob — Frames", (
    "<section id='module-frob'><h1>frob — Frames<a class='headerlink' href='#module-frob'>¶</a></h1>"
    f"<p>{WORDS}</p><dl class='py class'><dt class='sig sig-object py' id='frob.TaskGroup'><em class='property'>class </em>"
    "<span class='sig-prename descclassname'>frob.</span><span class='sig-name descname'>TaskGroup</span>"
    "<a class='headerlink' href='#frob.TaskGroup'>¶</a></dt><dd><p>An asynchronous context manager holding a group of tasks.</p>"
    "<div class='highlight-python notranslate'><div class='highlight'><pre>async with frob.TaskGroup() as tg:\n    tg.create_task(work())\n</pre></div></div>"
    "<div class='versionadded'><p><span class='versionmodified added'>New in version 2.3.</span></p></div></dd></dl></section>")))
