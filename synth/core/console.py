"""How synthesis talks to the user on stderr: one warning line, plain or loud."""

from __future__ import annotations

import os
import re
from typing import TextIO

from rich.console import Console
from rich.text import Text

# C0 and C1 controls, DEL, and the Unicode line and paragraph separators: in a file name or a message they
# would start a new line (or overwrite one) in a terminal or a log, forging output.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: object) -> str:
    """``text`` on one line: control characters written as escapes (``\\n``, ``\\r``, ``\\x1b``, ``\\u2028``),
    so what is printed cannot start, overwrite or hide a line."""
    value = str(text)
    if not _CONTROLS.search(value):
        return value

    def esc(m: re.Match) -> str:
        ch = m.group(0)
        return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")

    return _CONTROLS.sub(esc, value)


def print_warning(err: Console, message: str, *, loud: bool = False) -> None:
    """One ``skill3 synth: warning: …`` line (``loud``: bold yellow ``WARNING``); never read as rich markup."""
    if loud:
        err.print(Text(f"skill3 synth: WARNING: {message}", style="bold yellow"))
    else:
        err.print(f"skill3 synth: warning: {message}", markup=False)


PIPED_WIDTH = 400  # a table printed into a pipe or a file: its rows are not wrapped one word per line


def table_console(file: TextIO | None = None, *, stderr: bool = False) -> Console:
    """A console for tables: the terminal's width on a terminal; piped (or written to a file) without ``COLUMNS``
    set, wide enough that a row stays on one line instead of wrapping one word per line at 80 columns."""
    console = Console(file=file, stderr=stderr, highlight=False)
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        console.width = PIPED_WIDTH
    return console
