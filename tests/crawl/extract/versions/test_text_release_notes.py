"""Release notes as plain text that the crawl used to drop or misread: a folder of notes named after releases
(``notes/2.0.0.txt``) behind a directory listing, and a text in POD markup (``=head1`` command paragraphs) whose
``NAME`` line says which release it describes ("acmedelta - what is new for acme v2.0.0")."""

from __future__ import annotations

import json

import pytest

from skill3crawl.corpus import markdown_to_html
from skill3crawl.extract.content import extract_redacted
from skill3crawl.extract.versions import version_heading
from skill3crawl.sitecrawl.textmarkup import inline, looks_like_pod, pod_to_markdown
from tests.mockserver import MockServer, bind

POD = """=encoding utf8

=head1 NAME

acmedelta - what is new for acme v2.0.0

=head1 DESCRIPTION

This document describes differences between the 1.8.0 release and the 2.0.0
release.

=head1 Core Enhancements

=head2 C<use v2.0>

The bundle turns on B<strict> mode for the version's programs, as the bundles of earlier versions did.

A new command-line flag, C<-g>, is available. See L<acmerun/-g> and
L<the manual|acmeman>.

    acme -g script.acm

    acme -e 'print 1'

=head2 Frobnication is no longer experimental

=over 4

=item *

The C<< $a <=> $b >> comparison is stable E<lt>finallyE<gt>.

=item C<frob()>

Frobnicates.

=back

=begin html

<p>raw html, not shown</p>

=end html

=cut

sub hidden { 1 }
"""

NOTES = b"""Acme v2.0 Release Notes
=======================

UI, Workflows & Features
------------------------

 * "acme grep" learned to expand the sparse index lazily and on demand.

 * A new "--include-whitespace" option is added to "acme patch-id".

 * "acme merge-tree --stdin" is a new way to request a series of merges
   and report the merge results.

 * "acme shortlog" learned to group by the "format" string, so that
   reports can be grouped by any field the log can print.

Fixes since v1.8
----------------

 * The credential helpers ignore unknown entries in a credential
   description instead of dying upon seeing them.
"""


@pytest.mark.parametrize("text,expected", [
    ("C<frob()>", "`frob()`"),
    ("B<bold> and I<italic>", "**bold** and *italic*"),
    ("C<< $a <=> $b >>", "`$a <=> $b`"),
    ("L<text|target> L<page/\"Section\"> L<page>", 'text "Section" in page page'),
    ("E<lt>tagE<gt> E<verbar> E<0x41>", "<tag> | A"),
    ("X<index>F<file.txt>S<a b>", "file.txta b"),
    ("C<B<nested>>", "`**nested**`"),
    ("x < y and z > 1", "x < y and z > 1"),
])
def test_formatting_codes_read_as_a_reader_sees_them(text: str, expected: str) -> None:
    assert inline(text) == expected


def test_pod_becomes_markdown_with_its_name_line_as_title() -> None:
    md, title = pod_to_markdown(POD) or ("", "")
    assert title == "acmedelta - what is new for acme v2.0.0"
    assert md.startswith("# acmedelta - what is new for acme v2.0.0\n\n## DESCRIPTION\n\n")
    assert "### `use v2.0`\n\nThe bundle turns on **strict** mode" in md
    assert 'See "-g" in acmerun and the manual.' in md
    assert "```\nacme -g script.acm\n\nacme -e 'print 1'\n```" in md  # one code block across the blank line
    assert "- The `$a <=> $b` comparison is stable <finally>." in md and "- `frob()`\n\nFrobnicates." in md
    assert "raw html" not in md and "hidden" not in md and "=over" not in md and "=item" not in md


@pytest.mark.parametrize("text", [
    "Just a paragraph.\n\n=head1 Not at the top\n",  # the markup opens the text
    "=pod\n\nno heading at all\n",
    "# A markdown page\n\n=head1 in a code sample\n",
    "",
])
def test_text_not_in_pod_markup_is_left_alone(text: str) -> None:
    assert not looks_like_pod(text) and pod_to_markdown(text) is None


@pytest.mark.parametrize("heading,version", [
    ("what is new for acme v2.0.0", "2.0.0"),
    ("What is new in 2.3", "2.3"),
    ("What's new in Acme 2.3", "2.3"),
    ("what is new for the frobnicator", None),
])
def test_what_is_new_spelled_out_is_a_version_heading(heading: str, version: str | None) -> None:
    hit = version_heading(heading)
    assert (hit[0] if hit else None) == version


def test_a_pod_page_about_one_release_is_that_release_s_change_page() -> None:
    md, title = pod_to_markdown(POD) or ("", "")
    r = extract_redacted(markdown_to_html(md, title), "https://d.org/pod/acmedelta.pod", title, False)
    assert (r["page_kind"], r["page_version"]) == ("change", "2.0.0")
    texts = [c["text"] for c in r["changes"] if c["version"].startswith("2.0")]
    assert any("A new command-line flag, `-g`, is available." in t for t in texts), r["changes"]
    assert not any("C<" in c["text"] or "L<" in c["text"] for c in r["changes"])
    assert {c["version"] for c in r["changes"]} == {"2.0.0"}  # the heading "`use v2.0` turns on …" is code, no release


def test_a_crawl_reads_a_folder_of_text_notes_and_a_pod_page_behind_directory_listings(run_crawl) -> None:
    listing = "<html><head><title>Directory listing for {0}</title></head><body><h1>Directory listing for {0}</h1><ul>{1}</ul></body></html>"
    routes = {
        "/docs/": (200, "text/html", listing.format("/docs/", "<li><a href='notes/'>notes/</a></li><li><a href='pod/'>pod/</a></li>"
                                                    "<li><a href='howto.txt'>howto.txt</a></li>").encode()),
        "/docs/notes/": (200, "text/html", listing.format("/docs/notes/", "<li><a href='2.0.0.txt'>2.0.0.txt</a></li>").encode()),
        "/docs/notes/2.0.0.txt": (200, "text/plain", NOTES),
        "/docs/howto.txt": (200, "text/plain", b"How to set the example service up, in enough words to read.\n"),
        "/docs/pod/": (200, "text/html", listing.format("/docs/pod/", "<li><a href='acmedelta.pod'>acmedelta.pod</a></li>").encode()),
        "/docs/pod/acmedelta.pod": (200, "application/octet-stream", POD.encode()),
    }
    server = MockServer()
    server.routes = bind(routes, server.url)
    with server as site:
        res = run_crawl({"start_urls": f"{site.url}/docs/", "max_pages": 20})
    assert res.returncode == 0, res.log[-3000:]
    got = {i["url"].replace(site.url, ""): i for i in res.items()}
    assert "/docs/notes/2.0.0.txt" in got and "/docs/pod/acmedelta.pod" in got, json.dumps([sorted(got), {k: v for k, v in res.stats.items() if k.startswith(("skill3/drop", "skill3/disc", "skill3/pages", "downloader/response_status"))}])
    assert "/docs/howto.txt" not in got  # a .txt that is not release notes stays out
    notes = got["/docs/notes/2.0.0.txt"]
    assert (notes["page_kind"], notes["page_version"]) == ("change", "2.0")
    assert any("--include-whitespace" in c["text"] for c in notes["changes"])
    pod = got["/docs/pod/acmedelta.pod"]
    assert (pod["page_kind"], pod["page_version"], pod["title"]) == ("change", "2.0.0", "acmedelta - what is new for acme v2.0.0")
