"""How synthesis talks to the user on stderr: one warning line, plain or loud."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text


def print_warning(err: Console, message: str, *, loud: bool = False) -> None:
    """One ``skill3 synth: warning: …`` line (``loud``: bold yellow ``WARNING``); never read as rich markup."""
    if loud:
        err.print(Text(f"skill3 synth: WARNING: {message}", style="bold yellow"))
    else:
        err.print(f"skill3 synth: warning: {message}", markup=False)
