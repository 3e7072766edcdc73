"""A live progress display for long generations (rich, on stderr)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from synth.skill.size import CHARS_PER_TOKEN


@contextmanager
def generation_progress(label: str, console: Console | None = None, enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """Yield an ``on_text`` callback that counts streamed text; shows spinner, ~tokens and elapsed time."""
    if not enabled:
        yield lambda _t: None
        return
    console = console or Console(stderr=True)
    received = {"chars": 0}
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TextColumn("~{task.fields[tokens]} tokens"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task(label, tokens=0)

        def on_text(text: str) -> None:
            received["chars"] += len(text)
            progress.update(task, tokens=int(received["chars"] / CHARS_PER_TOKEN))

        yield on_text
