"""Corpus formats users already have: JSON Lines, WARC (recorded by wget from a loopback site), a folder of pages
(wget's mirror, browser-saved pages, markdown with frontmatter); told apart from their first bytes."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess

import pytest

from skill3crawl.corpus import MAX_BODY_BYTES, CorpusError, source_html
from skill3crawl.corpus_formats import FolderCorpus, JsonLinesCorpus, WarcCorpus, detect_format, read_corpus
from tests.crawl.conftest import read_jsonl, scrapy_crawl
from tests.mockserver import MockServer

WORDS = "The streaming API landed in version 3.0 and replaces the polling helpers for every client of the service. "
PAGES = {
    "/guide/": ("Streaming guide", f"<p>{WORDS * 3}</p><pre><code>client.stream()</code></pre>"),
    "/guide/intro.html": ("Introduction", f"<p>{WORDS * 2} Café crème.</p>"),
    "/news/3.0.html": ("Release 3.0", f"<p>Version 3.0 is out. {WORDS * 2}</p>"),
}


def _html(title: str, body: str, charset: str = "utf-8") -> bytes:
    return (f'<!DOCTYPE html>\n<html><head><meta charset="{charset}"><title>{title}</title></head>\n'
            f"<body><main><h1>{title}</h1>\n{body}\n<a href=\"/guide/intro.html\">intro</a> <a href=\"/news/3.0.html\">news</a> "
            f"<a href=\"/gone.html\">gone</a> <a href=\"/old\">old</a> <img src=\"/logo.png\"></main></body></html>").encode(charset)


def _site(server, host, path, query, body):
    if path in PAGES:
        title, text = PAGES[path]
        charset = "latin-1" if path.endswith("intro.html") else "utf-8"
        return 200, {"Content-Type": f"text/html; charset={charset}", "Last-Modified": "Tue, 03 Mar 2026 10:00:00 GMT"}, \
            _html(title, text, charset)
    if path == "/old":
        return 301, {"Location": "/guide/", "Content-Type": "text/html"}, b"moved"
    if path == "/logo.png":
        return 200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n" + b"\0" * 64
    if path == "/":
        return 200, {"Content-Type": "text/html; charset=utf-8"}, _html("Home", f"<p>{WORDS}</p><a href=\"/guide/\">guide</a>")
    return 404, {"Content-Type": "text/plain"}, b"not found"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A real WARC and a real mirror of the site, both written by wget."""
    wget = shutil.which("wget")
    assert wget, "wget is missing: scripts/install.sh installs it"
    root = tmp_path_factory.mktemp("wget")
    with MockServer(_site) as site:
        for extra in (["--warc-file", str(root / "site"), "--no-warc-compression"], ["--warc-file", str(root / "sitegz")],
                      ["--adjust-extension", "--directory-prefix", str(root / "mirror")]):
            subprocess.run([wget, "-q", "-r", "-l", "3", "-e", "robots=off", "--no-proxy", *extra, site.url + "/"],
                           cwd=root, capture_output=True, timeout=60, check=False)
        base = site.url
    return root, base


def test_a_warc_recorded_by_wget_gives_one_source_per_page(recorded):
    root, base = recorded
    for name in ("site.warc", "sitegz.warc.gz"):
        assert detect_format(root / name) == "warc"
        corpus = read_corpus(root / name)
        assert isinstance(corpus, WarcCorpus)
        sources = list(corpus)
        assert sorted(s.url for s in sources) == sorted([base + "/", *(base + p for p in PAGES)])
        assert len(corpus) == 4 and corpus.oversized == []
        assert set(corpus.duplicates) <= {base + p for p in PAGES}  # a page wget fetched again after a redirect: once
        assert {"request_record", "http_301", "http_404", "not_a_page"} <= set(corpus.skipped), corpus.skipped
        intro = next(s for s in sources if s.url.endswith("intro.html"))
        assert "Café crème" in intro.body and intro.kind == "html"  # decoded by its HTTP charset (latin-1)
        assert intro.headers == {"Last-Modified": "Tue, 03 Mar 2026 10:00:00 GMT"} and intro.date is None


def test_a_mirror_folder_gets_its_urls_from_the_layout(recorded):
    root, base = recorded
    mirror = root / "mirror"
    assert detect_format(mirror) == "folder"
    corpus = read_corpus(mirror)
    assert isinstance(corpus, FolderCorpus)
    host = base.split("//", 1)[1]
    urls = sorted(s.url for s in corpus)
    # wget saved the redirect's target under the link's name too (old.html): a page of the mirror like the others
    assert urls == sorted(f"https://{host}/{p}" for p in ("index.html", "guide/index.html", "guide/intro.html", "news/3.0.html",
                                                           "old.html"))
    intro = next(s for s in corpus if s.url.endswith("intro.html"))
    assert "Café crème" in intro.body  # the <meta charset> of a saved latin-1 page


def test_a_folder_of_saved_pages_and_markdown(tmp_path):
    folder = tmp_path / "pages"
    (folder / "sub").mkdir(parents=True)
    (folder / ".hidden").mkdir()
    (folder / "saved.html").write_bytes(b"<!DOCTYPE html>\r\n<!-- saved from url=(0034)https://blog.example.net/post?id=7 -->\r\n"
                                        + _html("Saved", f"<p>{WORDS}</p>")[16:])
    (folder / "canonical.htm").write_bytes(_html("C", f"<p>{WORDS}</p>").replace(
        b"<title>", b'<link rel="canonical" href="https://docs.example.org/c"><title>'))
    (folder / "sub" / "notes.md").write_text(f"---\nurl: https://notes.example.org/n1\ntitle: Notes\ndate: 2026-04-02\n---\n# Notes\n\n{WORDS}\n")
    (folder / "sub" / "bare.md").write_text(f"# No URL anywhere\n\n{WORDS}\n")
    (folder / "alias.md").write_text(f"---\nurl: &u https://x.example/a\nother: *u\n---\n{WORDS}\n")  # aliases refused: no URL
    (folder / ".hidden" / "x.html").write_bytes(_html("Hidden", WORDS))
    (folder / "image.png").write_bytes(b"\x89PNG")
    corpus = read_corpus(folder)
    by_url = {s.url: s for s in corpus}
    assert sorted(by_url) == ["https://blog.example.net/post?id=7", "https://docs.example.org/c", "https://notes.example.org/n1"]
    notes = by_url["https://notes.example.org/n1"]
    assert (notes.title, notes.date, notes.kind) == ("Notes", "2026-04-02", "markdown") and notes.body.startswith("# Notes")
    assert "<pre>" not in source_html(notes) and "<h1>Notes</h1>" in source_html(notes)
    assert sorted(corpus.skipped["no_url"]) == ["alias.md", "sub/bare.md"]


def test_jsonl(tmp_path):
    path = tmp_path / "pages.jsonl"
    rows = [{"url": "https://a.example/one", "title": "One", "date": "2026-03-01", "body": "# One\n\n" + WORDS, "lang": "en"},
            {"url": "https://b.example/two", "body": "<html><body><p>" + WORDS + "</p></body></html>"},
            {"url": "https://a.example/one#again", "body": "again"},
            {"url": "https://big.example/", "body": "x" * (MAX_BODY_BYTES + 1)}]
    path.write_text("\ufeff" + "\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    assert detect_format(path) == "jsonl"
    corpus = read_corpus(path)
    assert isinstance(corpus, JsonLinesCorpus)
    one, two = list(corpus)
    assert (one.url, one.title, one.date, one.block) == ("https://a.example/one", "One", "2026-03-01", 1)
    assert two.title == "" and two.date is None and source_html(two) == two.body
    assert corpus.duplicates == ["https://a.example/one#again"] and corpus.oversized == ["https://big.example/"]


@pytest.mark.parametrize("data, message", [
    (b'{"url": "https://a.example/", "body": "x"}\n{not json\n', "line 2 is not a JSON object"),
    (b'{"url": "https://a.example/", "body": "x"}\n[1, 2]\n', "line 2 is not a JSON object"),
    (b'{"url": "ftp://a.example/", "body": "x"}\n', "line 1: 'url' 'ftp://a.example/' is not an absolute http(s) URL"),
    (b'{"url": "https://a.example/", "title": "t"}\n', "line 1 (https://a.example/) has no 'body'"),
    (b'{"url": "https://a.example/", "excerpts": ["x"], "topic": "t"}\n', "this is a skill3 feed: pass it to `skill3 synth`"),
    (b"WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 99999\r\n\r\nshort", "not a valid WARC record"),
    (gzip.compress(b"just text", mtime=0), "is gzip-compressed but not a WARC file"),
    (b"Title\n=====\n\nplain markdown is no corpus", "or pass JSON Lines, a WARC file or a folder of .html/.md pages"),
])
def test_bad_inputs_are_one_line(tmp_path, data, message):
    path = tmp_path / "input"
    path.write_bytes(data)
    with pytest.raises(CorpusError) as exc:
        read_corpus(path)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_a_warc_without_pages_and_an_empty_folder_are_errors(tmp_path, recorded):
    root, _ = recorded
    only_requests = tmp_path / "req.warc"
    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    with (root / "site.warc").open("rb") as src, only_requests.open("wb") as out:
        writer = WARCWriter(out, gzip=False)
        for record in ArchiveIterator(src):
            if record.rec_type == "request":
                writer.write_record(record)
    with pytest.raises(CorpusError, match="holds no page"):
        read_corpus(only_requests)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match="is a folder without .html"):
        read_corpus(tmp_path / "empty")


@pytest.mark.parametrize("kind", ["warc", "jsonl", "folder"])
def test_each_format_crawls_into_the_same_items(tmp_path, recorded, kind):
    """`scrapy crawl learn -a input_file=…` on the same pages in each format: one item per page."""
    root, base = recorded
    if kind == "warc":
        src = root / "sitegz.warc.gz"
    elif kind == "folder":
        src = root / "mirror"
    else:
        src = tmp_path / "pages.jsonl"
        src.write_text("".join(json.dumps({"url": base + p, "title": t, "body": _html(t, b).decode()}) + "\n"
                               for p, (t, b) in PAGES.items()), encoding="utf-8")
    out = tmp_path / "out"
    proc = scrapy_crawl("topic=streaming", f"input_file={src}", f"output_dir={out}", "synth=0", "cutoff_time=2026-01",
                        settings={"SKILL3_TODAY": "2026-11-29"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = read_jsonl(out / "run.jsonl")
    titles = sorted(i["title"] for i in items)
    assert set(titles) >= {"Streaming guide", "Introduction", "Release 3.0"}, titles
    assert all(i["discovery"] == "corpus" for i in items) and "Traceback" not in proc.stderr
    if kind == "warc":  # the recorded Last-Modified header dates the pages
        assert {i["published"] for i in items} == {"2026-03-03"}
