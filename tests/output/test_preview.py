import os
import re
import shutil
import subprocess

import pytest

from synth.output.preview import render_preview
from synth.skill.postprocess import SkillContext, postprocess

CTX = SkillContext("mcp", "claude-opus-4-8", "2026-01", "2026-11-29", [{"n": 1, "url": "https://modelcontextprotocol.io/x", "title": "X"}])
RAW = """---
name: mcp
description: What changed in MCP after January 2026, for building servers.
---
# MCP

## Overview / When to use
Tasks are stable [1]. <script>alert("x")</script> <img src="https://tracker.example/p.gif">
Servers advertise their capabilities when a session starts, and clients resume after a disconnect [1].

## Modern vs deprecated
- SSE transport removed [1].

## Examples
```python
print("hi")
```
"""
MANIFEST = {"sources": [{"rank": 1, "combined_score": 0.5, "authority": 0.5, "published": "2026-06-01", "date_source": "corpus",
                         "consensus_count": 2, "selected": True, "url": "https://modelcontextprotocol.io/x"}],
            "model": {"used": "extractive"}, "bundle": {"mode": "direct"}, "verify": {"status": "not requested"},
            "lint": {"status": "not run"}, "vet": {"status": "not run"}}


RAW_HTML = '<script>alert("x")</script> <img src="https://tracker.example/p.gif">'


def page():
    skill = postprocess(RAW, CTX)
    assert RAW_HTML not in skill.body  # the post-processor drops raw HTML (synth.skill.safety) ...
    # ... and the preview escapes whatever markup a skill holds all the same (a skill edited by hand, an older one)
    skill.body = skill.body.replace("Tasks are stable [1].", f"Tasks are stable [1]. {RAW_HTML}")
    assert RAW_HTML in skill.body
    return render_preview(skill, MANIFEST)


def test_self_contained_and_safe():
    html = page()
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert not re.search(r"<(?:link|img|script|iframe)[^>]+(?:src|href)=", html), "no external resources"
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert "hsl(220,20%,10%)" in html and "hsl(180,100%,45%)" in html and "hsl(320,100%,60%)" in html


def test_copy_buttons_and_collapsible_deprecations():
    html = page()
    assert html.count('class="copy"') == 1
    assert re.search(r'<details class="deprecated" open><summary>Modern vs deprecated</summary>.*SSE transport removed', html, re.S)
    assert "vet: not run" in html and "lint: not run" in html


@pytest.mark.chromium
def test_renders_in_headless_chromium(tmp_path):
    chromium = os.environ.get("SKILL3_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        pytest.skip("chromium not installed (set SKILL3_CHROMIUM)")
    (tmp_path / "index.html").write_text(page())
    png = tmp_path / "p.png"
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    f"--screenshot={png}", "--window-size=900,700", (tmp_path / "index.html").as_uri()],
                   capture_output=True, timeout=90)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_generation_progress_on_a_terminal():
    import io

    from rich.console import Console

    from synth.llm.progress import generation_progress

    buf = io.StringIO()
    with generation_progress("synthesising", console=Console(file=buf, force_terminal=True, width=80)) as on_text:
        for _ in range(50):
            on_text("x" * 35)
    assert "synthesising" in buf.getvalue() and "~500 tokens" in buf.getvalue()


@pytest.mark.parametrize("heading", ["Modern vs deprecated", "Deprecated `sse()` transport", "**Modern** APIs"])
def test_deprecations_section_collapses_whatever_its_inline_markup(heading: str) -> None:
    """The section is found on markdown-it's tokens, so a heading with code or emphasis in it collapses too."""
    from synth.output.preview import render_markdown

    out = render_markdown(f"# T\n\n## {heading}\n- old [1]\n\n## Next\ntext\n")
    assert re.search(r'<details class="deprecated" open><summary>.+</summary>\n<ul>\n<li>old \[1\]</li>\n</ul>\n</details><h2>Next</h2>', out), out
    assert out.count("<details") == 1
