"""The bounds of one page's scan: entries, text, dates, paths, code, table rows, tabs, lines; the kinds of an
entry and the places a release date is read from (``where``)."""

from __future__ import annotations

from synth.evidence.limits import MAX_CHANGE_API_CHARS, MAX_CHANGE_CODE, MAX_CHANGE_CODE_CHARS, MAX_CHANGE_PATH, MAX_CHANGE_PATH_CHARS

MAX_CHANGES = 400
# a reference page (not a change page) is read up to this many markers, and the newest MAX_CHANGES kept (scan._keep_newest)
MAX_SCANNED = 4 * MAX_CHANGES
MAX_LEFT_OUT_VERSIONS = 50  # versions named per page in what the bound left out
MAX_TEXT = 1500
MAX_RELEASE_DATES = 500
MAX_PATH, MAX_PATH_CHARS, MAX_API_CHARS = MAX_CHANGE_PATH, MAX_CHANGE_PATH_CHARS, MAX_CHANGE_API_CHARS
MAX_CODE, MAX_CODE_CHARS = MAX_CHANGE_CODE, MAX_CHANGE_CODE_CHARS
MAX_TABLE_ROWS = 500
MAX_TABS = 40  # tabs labelled as markers read on one page
MAX_TEXT_LINES = 20000
MIN_ENTRY_CHARS = 20  # a change page's field lists and one-word lines are not entries...
MIN_ITEM_WORDS = 3  # ...but a short list item of a few words is ("PEP 673: Self type")
KINDS = ("added", "changed", "deprecated", "removed", "release")
WHERE = ("heading", "title", "field", "paragraph", "time", "table", "text")
