"""Plain-text pages in a command-paragraph markup (POD): ``=head1 Title`` lines are headings, ``C<code>`` /
``L<text|target>`` / ``B<bold>`` formatting codes are what a reader sees, indented paragraphs are code.

Pure: :func:`pod_to_markdown` turns such a text into markdown (which the crawl then renders like any plain-text page),
or returns None for a text that is not in that markup. The page's title is its ``NAME`` section's line, the
convention of manual pages in this markup ("acmedelta - what is new for acme v2.3.0"): it becomes the page's first
heading, so a page about one release is read as one.
"""

from __future__ import annotations

import re

MAX_POD_CHARS = 5_000_000  # a longer text is left as it is
_COMMAND = re.compile(r"^=([a-z]+[0-9]?)\b[ \t]*(.*)$")
_HEAD = re.compile(r"^=head([1-6])\b")
# A formatting code: a capital letter and "<", or "<<" + space … space + ">>" (any number of brackets).
_CODE_MULTI = re.compile(r"([A-Z])(<{2,})\s+(.*?)\s+(>{2,})", re.S)
_CODE = re.compile(r"([A-Z])<([^<>]*)>")
_ESCAPES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/", "quot": '"', "amp": "&", "apos": "'"}


def looks_like_pod(text: str) -> bool:
    """The text opens with a command paragraph (``=pod``, ``=head1``, ``=encoding`` …) and has a ``=head`` line."""
    first = next((line for line in text[:4000].splitlines() if line.strip()), "")
    return bool(_COMMAND.match(first)) and re.search(r"(?m)^=head[1-6]\b", text) is not None


def _escape(name: str) -> str:
    if name.isdigit():
        return chr(int(name)) if int(name) < 0x110000 else ""
    if name.lower().startswith("0x"):
        try:
            return chr(int(name, 16))
        except ValueError:
            return ""
    return _ESCAPES.get(name, "")


def _link(body: str) -> str:
    """``L<text|target>`` → text; ``L<page/"section">`` → "section" in page; ``L<page>`` → page."""
    if "|" in body:
        return body.split("|", 1)[0]
    if "/" in body and not re.match(r"[a-z]+://", body):
        page, section = body.split("/", 1)
        section = section.strip('"')
        return f'"{section}" in {page}' if page else f'"{section}"'
    return body.strip('"')


def _render_code(letter: str, body: str) -> str:
    if letter == "C":
        return f"`{body}`" if "`" not in body else body
    if letter == "B":
        return f"**{body}**" if body.strip() else body
    if letter == "I":
        return f"*{body}*" if body.strip() else body
    if letter == "L":
        return _link(body)
    if letter == "E":
        return _escape(body)
    if letter in ("X", "Z"):
        return ""
    return body  # F (file names), S (non-breaking), an unknown letter: the text


def inline(text: str) -> str:
    """A paragraph's formatting codes as a reader sees them (innermost first; at most 50 rounds)."""
    for _ in range(50):
        new = _CODE_MULTI.sub(lambda m: _render_code(m.group(1), m.group(3)), text)
        new = _CODE.sub(lambda m: _render_code(m.group(1), m.group(2)), new)
        if new == text:
            break
        text = new
    return text


def _paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n")) if p.strip()]


class _Reader:
    """One text's conversion, paragraph by paragraph."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.skip_until: str | None = None  # inside =begin X … =end X
        self.in_pod = True  # False between =cut and the next command
        self.item = False  # the next ordinary paragraph is a list item's text
        self.name_next = False  # the next ordinary paragraph is the NAME line: the page's title
        self.title = ""
        self.shift = 0  # heading levels added when the NAME line is the page's first heading
        self.verbatim = False  # the last paragraph was verbatim

    def command(self, first: str, name: str, rest: str) -> None:
        self.verbatim = False
        self.in_pod = name != "cut"
        if name == "begin":
            self.skip_until = rest
        elif _HEAD.match(first):
            level = int(first[5])
            if level == 1 and rest.upper() == "NAME" and not self.out:
                self.name_next, self.shift = True, 1
                return
            self.out.append("#" * min(6, level + self.shift) + " " + inline(rest))
        elif name == "item":
            if rest in ("", "*", "-", "o") or re.fullmatch(r"\d+\.?", rest):
                self.item = True
            else:
                self.out.append("- " + inline(rest))
        # =over, =back, =encoding, =pod, =cut, =for …: no text

    def verbatim_block(self, para: str) -> None:
        lines = para.split("\n")
        indent = min(len(ln) - len(ln.lstrip()) for ln in lines if ln.strip())
        block = "\n".join(ln[indent:] for ln in lines)
        if self.out and self.verbatim:  # one code block across its blank lines
            self.out[-1] = self.out[-1][:-4] + "\n\n" + block + "\n```"
        else:
            self.out.append("```\n" + block + "\n```")
        self.verbatim = True

    def ordinary(self, para: str) -> None:
        self.verbatim = False
        body = inline(" ".join(ln.strip() for ln in para.split("\n")))
        if self.name_next and not self.title:
            self.out.append("# " + body)
            self.name_next, self.title = False, body
        elif self.item:
            self.out.append("- " + body)
            self.item = False
        else:
            self.out.append(body)

    def paragraph(self, para: str) -> None:
        first = para.split("\n", 1)[0]
        cmd = _COMMAND.match(first)
        if self.skip_until is not None:
            if cmd and cmd.group(1) == "end":
                self.skip_until = None
        elif cmd:
            self.command(first, cmd.group(1), " ".join([cmd.group(2), *para.split("\n")[1:]]).strip())
        elif not self.in_pod:
            pass  # code between =cut and the next command
        elif para[:1] in (" ", "\t"):
            self.verbatim_block(para)
        else:
            self.ordinary(para)


def pod_to_markdown(text: str) -> tuple[str, str] | None:
    """``(markdown, title)`` when the text is in POD markup (:func:`looks_like_pod`), else None. The title is the
    ``NAME`` section's line ("" without one)."""
    if len(text) > MAX_POD_CHARS or not looks_like_pod(text):
        return None
    reader = _Reader()
    for para in _paragraphs(text):
        reader.paragraph(para)
    return "\n\n".join(reader.out) + "\n", reader.title


# A name that opens and closes with two underscores glued to a path or a name ("docutils/__main__.py",
# "__init__.py", "obj.__dict__"): markdown would read its underscores as strong emphasis ("docutils/**main**.py"); a
# reader of the text sees the name. (A "__word__" between spaces may be emphasis and is left to markdown.)
_DUNDER = re.compile(r"(?<![\w\\`])(?:(?<=[/.:])__([A-Za-z0-9][A-Za-z0-9_]*?)__(?![\w`])"
                     r"|__([A-Za-z0-9][A-Za-z0-9_]*?)__(?=[./:]\w|\())")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _escaped(m: re.Match[str]) -> str:
    return "\\_\\_" + (m.group(1) or m.group(2)) + "\\_\\_"


def names_as_written(text: str) -> str:
    """The text with each ``__name__`` of a path or name escaped (``\\_\\_name\\_\\_``), so that markdown shows it as written; fenced
    code, indented lines (code, or a list's nested text) and inline code are left as they are."""
    if "__" not in text or len(text) > MAX_POD_CHARS:
        return text
    out, fence = [], ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence:
            fence = "" if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) else fence
        elif m:
            fence = m.group(1)
        elif "__" in line and not line.startswith(("    ", "\t")):
            parts = re.split(r"(`+[^`]*`+)", line)  # inline code as it is
            line = "".join(p if i % 2 else _DUNDER.sub(_escaped, p) for i, p in enumerate(parts))
        out.append(line)
    return "\n".join(out)


_ADORNMENT = re.compile(r"^([=\-~*#^\"+`:.'_])\1{2,}\s*$")


def without_overlines(text: str) -> str:
    """The text with each title's overline left out: a title between two equal lines of one punctuation character
    ("=====" / "Title" / "=====", reStructuredText's overlined title) keeps its underline only, so that markdown reads
    it as the title, not as "===== Title"."""
    if len(text) > MAX_POD_CHARS:
        return text
    lines = text.split("\n")
    drop = set()
    for i in range(len(lines) - 2):
        over, title, under = lines[i], lines[i + 1], lines[i + 2]
        m = _ADORNMENT.match(over)
        if m and over.rstrip() == under.rstrip() and title.strip() and not _ADORNMENT.match(title) \
                and len(title.rstrip()) <= len(over.rstrip()) and (i == 0 or not lines[i - 1].strip()):
            drop.add(i)
    return "\n".join(line for i, line in enumerate(lines) if i not in drop)
