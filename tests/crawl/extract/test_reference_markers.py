"""Version markers of API reference pages that were fetched but not read as the topic's releases: a "Since" field
whose value is a sentence, a term that is a whole marker over an empty definition, a marker closing an API section
after its "Parameters" / "Returns" parts, and a page of the APIs new in one release (a list of names)."""

from __future__ import annotations

import json

import pytest

from skill3crawl.extract.content import extract_redacted
from skill3crawl.extract.releases import since_value_version
from tests.mockserver import html

PROSE = "<p>This reference describes the functions of the example library in enough words to be real content.</p>" * 2


def _member(anchor: str, name: str, doc: str) -> str:
    """A member's documentation in flat markup: a title heading, then a box with the signature and the text."""
    return (f"<a id='{anchor}'></a><h2 class='memtitle'>{name}()</h2><div class='memitem'><div class='memproto'>"
            f"<table class='memname'><tr><td class='memname'>void {name}</td><td>(</td><td>int w</td><td>)</td></tr></table>"
            f"</div><div class='memdoc'>{doc}</div></div>")


SENTENCE_FIELD = html("acme_video.h File Reference", "<div class='contents'><h1>acme_video.h File Reference</h1>" + PROSE
                      + _member("a1", "acme_get_size", "<p>Get the size of a window in screen coordinates.</p>"
                                "<dl class='section since'><dt>Since</dt><dd>This function is available since Acme 2.0.0.</dd></dl>")
                      + _member("a2", "acme_get_size_in_pixels", "<p>Get the size of a window in pixels.</p>"
                                "<dl class='params'><dt>Parameters</dt><dd><table><tr><td>w</td><td>the width</td></tr></table></dd></dl>"
                                "<dl class='section since'><dt>Since</dt><dd>This function is available since Acme 2.26.0.</dd></dl>")
                      + "</div>")

TERM_MARKER = html("Acme::Picture Class Reference", "<div class='contents'><h1>Acme::Picture Class Reference</h1>" + PROSE
                   + _member("b1", "get_content_fit", "<p>Returns the fit mode for the content of the picture.</p>"
                             "<dl class='since_4_8'><dt><b><a href='since_4_8.html#x1'>Since acmemm 4.8:</a></b></dt><dd></dd></dl>"
                             "<dl class='section return'><dt>Returns</dt><dd>The content fit mode.</dd></dl>")
                   + _member("b2", "get_can_shrink", "<p>Returns whether the picture respects its contents size.</p>")
                   + "</div>")

CLOSING_LABEL = html("acme-core", "<div class='refentry'><h1>acme-core</h1>" + PROSE
                     + "<div class='refsect2'><a name='acme-set-read-function'></a><h3>acme_set_read_function ()</h3>"
                     "<pre class='programlisting'>void acme_set_read_function (acme_session_t session, acme_read_func func);</pre>"
                     "<p>This function will set a callback to be called when a handshake message is being sent.</p>"
                     "<div class='refsect3'><h4>Parameters</h4><table><tr><td>session</td><td>is a session</td></tr></table></div>"
                     "<p class='since'>Since: 3.7.0</p></div><hr>"
                     "<div class='refsect2'><a name='acme-get-flags'></a><h3>acme_get_flags ()</h3>"
                     "<pre class='programlisting'>int acme_get_flags (acme_session_t session);</pre>"
                     "<p>This function returns the flags of the session.</p>"
                     "<div class='refsect3'><h4>Returns</h4><p>The flags.</p></div>"
                     "<p class='since'>Since: 3.4.0</p></div></div>")

NEW_API_PAGE = html("acmemm: New API in acmemm 4.8", "<div class='header'><div class='headertitle'><div class='title'>New API in acmemm 4.8"
                    "</div></div></div><div class='contents'><div class='textblock'><dl class='reflist'>"
                    + "".join(f"<dt>Member <a class='el' href='classAcme_1_1{c}.html#a{i}'>Acme::{c}::{m}</a> () const</dt>"
                              f"<dd><a class='anchor' id='_since_4_8{i:06d}'></a> </dd>"
                              for i, (c, m) in enumerate([("Event", "get_scroll_unit"), ("Picture", "get_content_fit"),
                                                          ("Label", "property_tabs"), ("CheckButton", "get_child")]))
                    + "</dl></div></div>")


def _read(page: bytes, path: str) -> dict:
    return extract_redacted(page.decode(), "https://d.org/ref/" + path, "", False)


def _by_api(r: dict) -> dict[str, tuple[str, str]]:
    return {c["api"]: (c["kind"], c["version"]) for c in r["changes"] if c["api"]}


@pytest.mark.parametrize("value,version", [
    ("This function is available since Acme 2.26.0.", "2.26.0"),
    ("Available since 2.4", "2.4"),
    ("17", "17"),
    ("Added in Acme 1.2 as a preview.", "1.2"),
    ("This function is available since the first release.", None),
    ("Available since 2.0; changed in 3.0.", None),  # two versions: no single field value
])
def test_a_since_field_s_value_may_be_a_sentence(value: str, version: str | None) -> None:
    assert since_value_version(value) == version


def test_a_since_field_whose_value_is_a_sentence_marks_its_member() -> None:
    r = _read(SENTENCE_FIELD, "acme__video_8h.html")
    got = _by_api(r)
    assert got.get("acme_get_size_in_pixels") == ("added", "2.26.0"), r["changes"]
    assert got.get("acme_get_size") == ("added", "2.0.0")


def test_a_term_that_is_a_whole_marker_over_an_empty_definition_marks_its_member() -> None:
    r = _read(TERM_MARKER, "classAcme_1_1Picture.html")
    assert [(c["kind"], c["version"], c["api"]) for c in r["changes"]] == [("added", "4.8", "get_content_fit")], r["changes"]
    assert "fit mode for the content" in r["changes"][0]["text"] or "get_content_fit" in r["changes"][0]["text"]


def test_a_label_closing_an_api_section_after_its_parts_marks_the_section_not_its_last_part() -> None:
    r = _read(CLOSING_LABEL, "acme-core.html")
    got = {c["api"]: c for c in r["changes"]}
    assert set(got) == {"acme_set_read_function", "acme_get_flags"}, r["changes"]
    first = got["acme_set_read_function"]
    assert (first["kind"], first["version"]) == ("added", "3.7.0")
    assert first["text"].startswith("acme_set_read_function ()") and "called when a handshake message" in first["text"]
    assert got["acme_get_flags"]["version"] == "3.4.0" and "returns the flags" in got["acme_get_flags"]["text"]


def test_a_page_of_the_apis_new_in_one_release_is_that_release_s_change_page() -> None:
    r = _read(NEW_API_PAGE, "since_4_8.html")
    assert (r["page_kind"], r["page_version"]) == ("change", "4.8")
    texts = [c["text"] for c in r["changes"] if c["version"] == "4.8"]
    assert len(texts) == 4 and any("Acme::Picture::get_content_fit" in t for t in texts), r["changes"]


PROSE_MANUAL = html("Writing Acme Extensions", "<div class='contents'><h1>Writing Acme Extensions</h1>" + PROSE
                    + "<h2 id='structure'>1.1 Package structure</h2>"
                    "<p>The analogues on other systems are <samp>configure.win</samp> and <samp>cleanup.win</samp>. "
                    "Since Acme 4.2.0 on that system, <samp>configure.ucrt</samp> is supported and takes precedence.</p>"
                    "<h2 id='builds'>1.2 Builds</h2>"
                    "<p>Binary packages once held both architectures. From Acme 4.2.0, they always contain only the 64-bit architecture.</p>"
                    "<p>As from Acme 4.3.0 the default will be the new toolchain, so packages should prepare.</p>"
                    "<p>Since 2014 the project has published these manuals in several formats for its users.</p>"
                    "<dl><dt><b>frob_deadline (default: no)</b></dt><dd><p>Limit the time for a whole request rather than each "
                    "read or write call.</p><p>This feature is available in Acme 3.7 and later.</p></dd>"
                    "<dt><b>frob_legacy (default: yes)</b></dt><dd><p>Keep the old behaviour of the request timer for now.</p>"
                    "<p>This feature will be available in Acme 5.0 and later.</p></dd></dl></div>")


PROSE_INLINE = html("Writing Acme Extensions", "<div class='contents'><h1>Writing Acme Extensions</h1>" + PROSE
                    + "<p>Under that system the same commands work, but <samp>Makevars.win</samp> is used. Since Acme 4.2.0, "
                    "<samp>Makevars.ucrt</samp> will be used in preference to <samp>Makevars.win</samp>.</p>"
                    "<p>or setting the environment variable <code>FROB_OPTS</code>.  As from Acme\n4.2.0, <samp>--use-frob</samp> "
                    "also uses <code>frob</code> when re-building the vignettes.</p>"
                    "<p>The issues in this subsection have been much alleviated by the change in Acme 4.2.0 to running the "
                    "port in a UTF-8 locale where available.</p>"
                    "<p>The old exchange in 2.1 of keys and values is described elsewhere in this manual for reference.</p>"
                    "<dl><dt id='acme.NoReturn'>acme.NoReturn</dt><dd><p>Special type indicating that a function never "
                    "returns.</p><p>Starting in Acme 4.2.0, the <code>Never</code> type should be used instead.</p></dd></dl></div>")


@pytest.mark.parametrize("needle", [
    "Since Acme 4.2.0, `Makevars.ucrt` will be used",  # the sentence goes on in inline markup after the opener
    "As from Acme 4.2.0, `--use-frob` also uses",  # two spaces after the sentence before; a line break in the name
    "by the change in Acme 4.2.0 to running the port",  # the change a release made, named as such
    "Starting in Acme 4.2.0, the `Never` type should be used instead.",  # quoted whole in a definition, not up to `Never`
])
def test_prose_markers_whose_sentence_goes_on_in_markup(needle: str) -> None:
    r = _read(PROSE_INLINE, "acme-exts.html")
    assert {(c["kind"], c["version"]) for c in r["changes"]} == {("changed", "4.2.0")}, r["changes"]  # no "exchange in 2.1"
    assert any(needle in " ".join(c["text"].split()) for c in r["changes"]), [c["text"] for c in r["changes"]]


def test_prose_markers_sentence_openers_and_availability() -> None:
    r = _read(PROSE_MANUAL, "acme-exts.html")
    got = {(c["kind"], c["version"]) for c in r["changes"]}
    assert got == {("changed", "4.2.0"), ("added", "3.7")}, r["changes"]  # no announced 4.3.0 / 5.0, no year
    opened = [c for c in r["changes"] if c["version"] == "4.2.0"]
    assert len(opened) == 2 and any("`configure.ucrt` is supported" in c["text"] for c in opened)
    avail = next(c for c in r["changes"] if c["version"] == "3.7")
    assert avail["text"].startswith("**frob_deadline (default: no)**") and avail["text"].endswith(
        "This feature is available in Acme 3.7 and later."), avail["text"]  # the whole sentence, never a piece of it


SOURCE_LISTING = html("acme_video.h Source File", "<div class='contents'><h1>acme_video.h</h1><p>Go to the documentation of this "
                      "file, which lists every declaration of the header in order.</p><div class='fragment'>"
                      + "".join(f"<div class='line'><a id='l{i:05d}'></a><span class='lineno'>{i}</span><span class='comment'>"
                                f" * \\since This function is available since Acme 2.26.0.</span></div>" for i in range(1, 4))
                      + "</div>" + PROSE * 4 + "</div>")


def test_a_comment_in_a_source_listing_of_numbered_lines_is_no_marker() -> None:
    r = _read(SOURCE_LISTING, "acme__video_8h_source.html")
    assert r["drop_reason"] is None and r["changes"] == []


def _settings_reference(old: int, new: int) -> bytes:
    """A configuration reference of many settings, each closing with the release it is available from: ``old`` settings
    of Acme 2.x first (the reference's own order, alphabetical or by topic), then ``new`` of 3.7 at the end."""
    def item(name: str, ver: str) -> str:
        return (f"<dt><b><a name='{name}'>{name}</a> (default: no)</b></dt><dd><p>Controls the {name.replace('_', ' ')} "
                f"behaviour of the delivery agent.</p><p>This feature is available in Acme {ver} and later.</p></dd>")
    olds = "".join(item(f"zeta_old_setting_{i}", f"2.{i % 5}") for i in range(old))
    news = "".join(item(f"alpha_new_setting_{i}", "3.7") for i in range(new))
    return html("acme.conf(5)", f"<div class='contents'><h1>acme.conf(5)</h1>{PROSE}<dl>{olds}{news}</dl></div>")


def test_a_reference_page_with_more_markers_than_a_page_keeps_keeps_the_newest() -> None:
    from skill3crawl.extract.versions import MAX_CHANGES

    r = _read(_settings_reference(MAX_CHANGES + 40, 6), "acme.conf.5.html")
    versions = [c["version"] for c in r["changes"]]
    assert len(versions) == MAX_CHANGES and versions.count("3.7") == 6, versions[-10:]  # the newest, though last
    # 88 settings each of 2.0 … 2.4: the oldest version's are the ones left out, its last in document order first
    assert {v: versions.count(v) for v in ("2.0", "2.1", "2.4")} == {"2.0": 42, "2.1": 88, "2.4": 88}
    assert r["left_out"] == {"kept": MAX_CHANGES, "left_out": 46, "versions": {"2.0": 46}}
    names = [int(c["api"].rsplit("_", 1)[1]) for c in r["changes"] if c["api"].startswith("zeta")]
    assert names == sorted(names)  # still in document order
    small = _read(_settings_reference(10, 2), "acme.conf.5.html")
    assert len(small["changes"]) == 12 and "left_out" not in small  # under the bound: every marker, nothing said


def test_a_crawl_says_which_markers_a_page_left_out(run_crawl) -> None:
    """A real crawl: the reference page's item keeps its newest markers, and crawl.json names what was left out."""
    from skill3crawl.extract.versions import MAX_CHANGES
    from tests.mockserver import MockServer

    index = html("Acme", "<main><h1>Acme</h1><p>" + "Start here for the Acme documentation. " * 5 + "</p>"
                 "<a href='/acme.conf.5.html'>acme.conf(5)</a></main>")
    server = MockServer()
    server.routes = {"/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n"), "/": (200, "text/html", index),
                     "/acme.conf.5.html": (200, "text/html", _settings_reference(MAX_CHANGES + 40, 6))}
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/"})
    assert res.returncode == 0, res.log[-3000:]
    item = next(i for i in res.items() if i["url"].endswith("/acme.conf.5.html"))
    assert sum(c["version"] == "3.7" for c in item["changes"]) == 6 and "left_out" not in item
    crawl = json.loads((res.output_dir / "crawl.json").read_text())
    assert [(e["url"].replace(site.url, ""), e["kept"], e["left_out"], e["versions"]) for e in crawl["markers_left_out"]] == [
        ("/acme.conf.5.html", MAX_CHANGES, 46, {"2.0": 46})]
    assert res.stats["skill3/changes_left_out"] == 46


def test_a_resumed_crawl_keeps_what_its_pages_left_out() -> None:
    from skill3crawl.crawl_record import CrawlState, note_markers_left_out
    from skill3crawl.resume import keep_crawl_memory

    saved: dict = {}
    first = CrawlState()
    keep_crawl_memory(first, saved)  # the first run's objects go into spider.state
    note_markers_left_out(first, "http://d.org/acme.conf.5.html", {"kept": 400, "left_out": 46, "versions": {"2.0": 46}})
    resumed = CrawlState()
    keep_crawl_memory(resumed, saved)  # the resumed run takes them back
    assert resumed.markers_left_out == [{"url": "http://d.org/acme.conf.5.html", "kept": 400, "left_out": 46,
                                         "versions": {"2.0": 46}}]


def _declared(anchor: str, signature: str, *blocks: str) -> str:
    """A member's section in flat markup: its declaration as the heading (return type first, no code element), then
    its blocks, then the generator's comment that closes it."""
    return f"<h3 class='fn' id='{anchor}'><span class='type'>{signature}</h3>{''.join(blocks)}<!-- @@@{anchor} -->"


SELF_SUBJECT_MARKERS = html("Acme::File Class", "<div class='descr'><h1>Acme::File Class</h1>" + PROSE
                            + "<h2>Member Function Documentation</h2>"
                            + _declared("moveToTrash", "bool Acme::File::moveToTrash()",
                                        "<p>Moves the file to the trash and returns <code>true</code> if successful.</p>",
                                        "<div class='admonition note'><p><b>Note: </b>On systems without a trash can this always fails.</p></div>",
                                        "<p>This function was introduced in Acme 5.15.</p>")
                            + _declared("mappedInt", "[signal] void Acme::Mapper::mappedInt(int i)",
                                        "<p>This signal is emitted when an integer mapping is signalled.</p>",
                                        "<p>This function was introduced in Acme 5.15.</p>",
                                        "<p><b>See also </b><a href='#map'>map</a>().</p>")
                            + _declared("append", "Acme::String &amp;Acme::String::operator+=(StringView str)",
                                        "<p>Appends the string view to this string.</p>",
                                        "<p>This enum value has been added in Acme 5.14.</p>")
                            + _declared("size", "int Acme::File::size() const",
                                        "<p>Returns the size of the file, in bytes, as the file system reports it.</p>",
                                        "<p>This function is faster than reading the whole file: introduced in Acme 5.2 for large files.</p>")
                            + "</div>")


def test_a_marker_whose_subject_is_the_member_marks_the_member_s_section() -> None:
    r = _read(SELF_SUBJECT_MARKERS, "acme-file.html")
    got = [(c["version"], c["api"], c["text"]) for c in r["changes"]]
    assert [(v, a) for v, a, _t in got] == [("5.15", "Acme::File::moveToTrash"), ("5.15", "Acme::Mapper::mappedInt"),
                                            ("5.14", "Acme::String::operator+="), ("5.2", None)], got
    move, mapped, append, size = (t for _v, _a, t in got)
    assert move.startswith("bool Acme::File::moveToTrash() — Moves the file to the trash") and "trash can" in move
    assert mapped.startswith("[signal] void Acme::Mapper::mappedInt(int i) — This signal is emitted") and "See also" not in mapped
    assert "Appends the string view" in append
    # a sentence with words of its own is not a bare marker: quoted whole, never a fragment glued to another block
    assert "This function is faster than reading the whole file: introduced in Acme 5.2 for large files." in size
    assert not any(t.rstrip(".").endswith("introduced in Acme 5.15") for t in (move, mapped))


@pytest.mark.parametrize("text, api", [
    ("bool QFile::moveToTrash()", "QFile::moveToTrash"),
    ("[static] QStringList Acme::Process::splitCommand(StringView command)", "Acme::Process::splitCommand"),
    ("QList<Model *> Acme::Proxy::sourceModels() const", "Acme::Proxy::sourceModels"),
    ("Acme::Iterator::pointer Acme::Iterator::operator->() const", "Acme::Iterator::operator->"),
    ("[static] template <typename T> Acme::Type Acme::Type::fromType()", "Acme::Type::fromType"),
    ("Returns true if foo::bar(x) holds", None),  # prose that names a call is no declaration
    ("Use the std::move(x) call", None),
    ("int main(void)", None),  # not scoped: not a member's declaration
])
def test_a_declaration_that_opens_with_its_return_type_names_its_member(text: str, api: str | None) -> None:
    from skill3crawl.extract.versions.blocks import api_name

    assert api_name(text) == api


CLASS_PAGE = html("FrobResult Class", "<div class='content mainContent'><div class='sidebar'><div class='toc'>"
                  "<h3><a name='toc'>Contents</a></h3><ul><li><a href='#public-functions'>Public Functions</a></li>"
                  "<li><a href='#details'>Detailed Description</a></li></ul></div></div>"
                  "<h1 class='title'>FrobResult Class</h1><span class='small-subtitle'>class Acme::FrobResult</span>"
                  "<!-- $$$FrobResult-brief --><p>The FrobResult class holds the result of a call to Acme::frob().</p>"
                  "<p>This class was introduced in Acme 5.15.</p>" + PROSE + "</div>")


def test_a_class_page_s_marker_quotes_the_class_not_the_sidebar_before_its_title() -> None:
    r = _read(CLASS_PAGE, "acme-frobresult.html")
    [change] = r["changes"]
    assert change["version"] == "5.15" and change["text"].startswith("FrobResult Class — class Acme::FrobResult"), change
    assert "holds the result of a call" in change["text"] and "Contents" not in change["text"]


def _defined(name: str, signature: str, *blocks: str, note: str) -> str:
    """A definition in flat markup: its box (a named anchor and a link to it whose text is the defined name), its
    blocks, then its history note; an empty paragraph between definitions."""
    anchor = f"(def._{name})"
    box = (f"<div class='SIntrapara'><table class='boxed'><tr><td>procedure<a name='{anchor}'></a>"
           f"(<a href='#{anchor.replace('(', '%28').replace(')', '%29')}' class='ValDef'>{name}</a> {signature}</td></tr></table></div>")
    return "<p></p>" + box + "".join(f"<div class='SIntrapara'>{b}</div>" for b in blocks) + f"<p class='SHistory'>{note}</p>"


DEFINITIONS = html("4.4 Strings", "<div class='main'><h2>4.4 Strings</h2>" + PROSE
                   + _defined("string-span", "str start) → integer?", "Returns the number of characters of the cluster at start.",
                              "Examples:", "<table><tr><td>&gt; (string-span \"ab\" 0)</td></tr><tr><td>1</td></tr></table>",
                              note="Added in version 8.6.0.2 of package base.")
                   + _defined("string-count", "str) → integer?", "Returns the number of grapheme clusters in str.",
                              note="Added in version 8.6.0.6 of package base. Changed in version 8.6.0.9: Added the exact? argument.")
                   + "</div>")


def test_a_history_note_after_a_definition_marks_that_definition() -> None:
    r = _read(DEFINITIONS, "strings.html")
    got = {(c["kind"], c["version"]): c for c in r["changes"]}
    assert set(got) == {("added", "8.6.0.2"), ("added", "8.6.0.6"), ("changed", "8.6.0.9")}, r["changes"]
    span = got[("added", "8.6.0.2")]
    assert span["api"] == "string-span" and span["text"].startswith("procedure(string-span str start) → integer? — Returns the"), span
    count = got[("changed", "8.6.0.9")]  # a note with words of its own: its text, about the definition it follows
    assert count["api"] == "string-count" and "Added the exact? argument." in count["text"], count


# A page per item whose own since label sits in its heading block (the heading, a label, a source link): the main-content
# extractor leaves that block out, so the pre-screen over its text never saw the label and the page was not scanned.
ITEM_PAGE = html("make_grid in acme::grid - Acme", "<body><nav class='sidebar'><a href='index.html'>acme</a></nav>"
                 "<main><div class='width-limiter'><section id='main-content' class='content'>"
                 "<div class='main-heading'><h1 class='fqn'><span class='in-band'>Function <a href='index.html'>acme</a>::"
                 "<a href='index.html'>grid</a>::<a class='fn' href='#'>make_grid</a></span></h1>"
                 "<span class='out-of-band'><span class='since' title='Stable since Acme version 1.63.0'>1.63.0</span> · "
                 "<a class='srclink' href='../src/grid.rs.html#39'>source</a></span></div>"
                 "<pre class='rust fn'><code>pub fn make_grid&lt;T, const N: usize&gt;(cb: F) -&gt; [T; N]</code></pre>"
                 "<details class='rustdoc-toggle top-doc' open><summary class='hideme'><span>Expand description</span></summary>"
                 "<div class='docblock'><p>Creates a grid where each element is returned by the callback, in the order "
                 "of the indices, so a caller can fill a table of any size without writing a loop of its own.</p>"
                 "<p>The callback is given the index of each element and may capture anything it needs from its scope.</p>"
                 "</div></details></section></div></main></body>")


@pytest.mark.parametrize("label,expected", [
    ("<span class='since' title='Stable since Acme version 1.63.0'>1.63.0</span>", [("added", "1.63.0")]),
    ("<span class='srclink-only'>source</span>", []),  # no since label: nothing to read
])
def test_a_since_label_in_the_page_s_heading_block_is_read(label: str, expected: list) -> None:
    page = ITEM_PAGE.replace(b"<span class='since' title='Stable since Acme version 1.63.0'>1.63.0</span>", label.encode())
    r = _read(page, "grid/fn.make_grid.html")
    assert [(c["kind"], c["version"]) for c in r["changes"]] == expected, r["changes"]
    if expected:
        assert "make_grid" in r["changes"][0]["text"]


def _haddock_like(name: str, since: str) -> str:
    """A declaration box (an anchor with an id, named by its text, and a self-link '#'), then a doc block whose last
    paragraph is the since label."""
    return (f"<div class='top'><p class='src'><a id='v:{name}' class='def'>{name}</a> :: Int -&gt; Int "
            f"<a href='src/X.html#{name}' class='link'>Source</a> <a href='#v:{name}' class='selflink'>#</a></p>"
            f"<div class='doc'><p>Does the {name} thing to its argument and returns the result.</p>"
            f"<p><em>Since: {since}</em></p></div></div>")


DOC_BLOCKS = html("Data.Acme", "<div id='content'><p class='caption'>Data.Acme</p>" + PROSE + "<div id='interface'>"
                  "<h2>Documentation</h2>" + _haddock_like("frob", "4.15.0.0") + _haddock_like("knob", "4.14.0.0") + "</div></div>")


def test_a_since_label_in_a_doc_block_after_its_declaration_marks_that_declaration() -> None:
    r = _read(DOC_BLOCKS, "Data-Acme.html")
    got = [(c["version"], c["api"], c["text"]) for c in r["changes"]]
    assert [(v, a) for v, a, _t in got] == [("4.15.0.0", "frob"), ("4.14.0.0", "knob")], got
    assert got[0][2].startswith("frob :: Int -> Int") and "Does the frob thing" in got[0][2]


SECTION_TITLES = html("Acme.attr_new", "<div class='docs'><h1>Function Acme.attr_new</h1>" + PROSE
                      + "<div class='description'><h4 id='description'>Description <a href='#description' class='anchor'></a>"
                      "<a class='srclink' href='https://example.org/src/attr.c#L9'>[src]</a></h4>"
                      "<div class='docblock'><p>Create a new font scale attribute.</p><p>The effect is to change the size.</p></div>"
                      "<div class='docblock'><p>Available since: 1.50</p></div></div>" + PROSE + "</div>")


def test_a_section_title_with_a_source_link_is_no_member_a_marker_annotates() -> None:
    """"Description [src]" looks like a call ("name [") but names no member: the marker after the description is the
    description's, quoted without the section's title."""
    r = _read(SECTION_TITLES, "func.attr_new.html")
    texts = [c["text"] for c in r["changes"] if c["version"] == "1.50"]
    assert any(t.startswith("Create a new font scale attribute.") for t in texts), texts
    assert not any(t.startswith("Description") for t in texts), texts
