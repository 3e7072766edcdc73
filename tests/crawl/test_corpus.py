"""The offline corpus format (=== SOURCE ===): parsing, validation, markdown → HTML."""

import pytest

from skill3crawl.corpus import CorpusError, markdown_to_html, parse_corpus, source_html
from skill3crawl.extract.content import extract_content


def test_parses_blocks_with_headers_and_bodies():
    text = (
        "=== SOURCE ===\nurl: https://a.example/one\ntitle: One\ndate: 2026-03-01\n\n# Heading\n\nPara one.\n"
        "=== SOURCE ===\nURL: https://b.example/two\n\n<html><body><p>Two</p></body></html>\n"
    )
    one, two = parse_corpus(text)
    assert (one.url, one.title, one.date, one.block) == ("https://a.example/one", "One", "2026-03-01", 1)
    assert one.body == "# Heading\n\nPara one."
    assert (two.url, two.title, two.date, two.block) == ("https://b.example/two", "", None, 2)
    assert source_html(two) == two.body  # HTML passes through


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no '=== SOURCE ===' blocks"),
        ("just text\n", "no '=== SOURCE ===' blocks"),
        ("preamble\n=== SOURCE ===\nurl: https://a.example/\n\nx\n", "text before the first"),
        ("=== SOURCE ===\ntitle: t\n\nbody\n", "block 1 has no 'url:'"),
        ("=== SOURCE ===\nurl: https://a.example/\n\nok\n=== SOURCE ===\nurl: ftp://x/\n\nbody\n", "block 2: url"),
        ("=== SOURCE ===\nurl: https://a.example/\nauthor: me\n\nbody\n", "unknown header 'author'"),
        ("=== SOURCE ===\nurl: https://a.example/\nthis is body\n", "is not 'key: value'"),
        ("=== SOURCE ===\nurl: https://a.example/\n\n\n", "empty body"),
    ],
)
def test_malformed_corpus_names_block_and_fix(text, message):
    with pytest.raises(CorpusError) as exc:
        parse_corpus(text)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_markdown_code_survives_byte_exact_through_extraction():
    code = 'def f(x):\n\n    return  x  <b>&amp;</b>  # spaces kept\n'
    md = "# Title here\n\nA paragraph that is long enough to be an excerpt of the page, surely.\n\n```python\n" + code + "```\n" + "More prose. " * 20
    out = extract_content(markdown_to_html(md, "T"), "https://a.example/x")
    assert out["code_blocks"] == [{"text": code, "language": "python"}]
    assert "# Title here" in out["excerpts"]
