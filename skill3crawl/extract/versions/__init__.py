"""Version markers and change pages: where a documentation site says *what changed in which release*.

:func:`scan` (the package's entry) reads a parsed page (the lxml content node, or the whole body) and returns a
:class:`PageChanges`, which holds the delta model's types (:class:`~synth.delta.model.ChangeRecord`,
:class:`~synth.delta.model.ReleaseDate`) and writes them as the page's item fields (:meth:`PageChanges.to_json`;
:func:`find_changes`: the same JSON in one call) — these JSON fields are

* ``changes`` — one entry per annotated snippet, in document order:

  - Sphinx ``versionadded`` / ``versionchanged`` / ``deprecated`` / ``deprecated-removed`` /
    ``versionremoved`` directives (old "New in version X" and new "Added in version X" spellings);
  - the same phrases as text anywhere ("Added in v2.3", "Added in: v9.0.0", "Deprecated since 1.4,
    will be removed in 2.0"), and short labels that are a whole marker ("Since: OTP 25.0", "Added
    in 17", "3.2+");
  - labelled fields: a definition-list or table field "Since" / "Added in" / "Deprecated since"
    whose value is a version ("Since: 17"), attached to the API block it sits in;
  - badges and stability attributes: an element classed as a since/added label or a badge whose text
    is a version label, ``data-since`` / ``data-version-added``-style attributes;
  - History tables: a table with a version column and a change column gives one marker per row,
    attached to the API the table sits under; tabs labelled as a marker ("Added in 17") mark the rows
    they select;
  - on change pages, and in version sections of any page, every paragraph / list item of a version's
    section (``kind="release"`` or the Keep a Changelog subsection's kind: Added / Changed /
    Deprecated / Removed), also in a plain-text page (one ``<pre>``) whose lines carry version headings.

  Each entry: ``kind``, ``version``, ``removed_in``, ``date``, ``text``, ``anchor``, ``heading`` (the
  nearest heading), ``path`` (the enclosing headings, outermost first, at most :data:`MAX_PATH` of
  :data:`MAX_PATH_CHARS` characters), ``api`` (the API a marker annotates: a definition term's id or
  signature name, a History table's API, else None) and ``code`` (at most :data:`MAX_CODE` ``{text,
  language}`` code blocks of the entry: ``<pre>`` inside its block or directly after it, before the next
  entry or heading; byte-exact, at most :data:`MAX_CODE_CHARS` characters each — longer ones left out).
* ``page_kind`` — ``"change"`` or ``"doc"``; ``page_version`` — the one version a change page is about.
  A page is a change page by its URL or title words, or by its structure: sections headed by versions,
  a title or first heading that names a version and a date, a field table naming one release, a
  plain-text page of version headings.
* ``release_dates`` — ``{version, date, source, where}`` read from the page, ``where`` one of
  :data:`WHERE`: the heading or title itself (the date before or after the version), a date-only
  sub-heading, a field under the version heading ("Released: March 4, 2024", a field list), a
  sentence in its first blocks ("X was released on …"), ``<time datetime>``, a table of versions and
  dates, a plain-text page's line. A date is never taken from a block that names another version.

Each marker belongs to the block it annotates: a definition (the ``dt`` signature plus the ``dd``
text), the list item or paragraph it sits in, the paragraph a bare marker follows, or the section
it opens. Pure and lxml-only (XPath does the scanning), so it runs in the extraction worker in the
same call as the content extraction. Version and date reading: :mod:`skill3crawl.extract.releases`.

The modules, bottom up: :mod:`.bounds` (the caps), :mod:`.tree` (element helpers), :mod:`.phrases` (the
marker phrases), :mod:`.blocks` (the block a marker annotates), :mod:`.quick` (the pre-screen over the
markdown), :mod:`.page` (what a page is), :mod:`.found` (what one page's scan has found so far), the passes
(:mod:`.markers`, :mod:`.fields`, :mod:`.sections`), :mod:`.scan` (the scan in its steps) and
:mod:`.redaction`. They share public names only (the helpers of :mod:`.tree`, the phrases of :mod:`.phrases`, the
scan state of :mod:`.found` …): no module imports another's private name.
"""

from skill3crawl.extract.releases import find_date, normalize_version, version_heading
from skill3crawl.extract.versions.bounds import KINDS, MAX_CHANGES, WHERE
from skill3crawl.extract.versions.page import change_like_url, page_version_of
from skill3crawl.extract.versions.redaction import redact_changes
from skill3crawl.extract.versions.scan import PageChanges, find_changes, scan, scan_changes

__all__ = ["scan", "PageChanges", "MAX_CHANGES", "KINDS", "WHERE", "find_changes", "scan_changes", "redact_changes", "find_date",
           "version_heading", "page_version_of", "normalize_version", "change_like_url"]
