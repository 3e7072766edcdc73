"""``<output_dir>/index.html``: a self-contained preview of the skill.

Dark HSL theme (background hsl(220,20%,10%), translucent glass cards, teal and
magenta accents), copy buttons on code blocks, a collapsible "Modern vs
deprecated" section, the ranked sources. Everything is inline: no request leaves
the page (Inter/Outfit are used when installed, else the system font stack).
The skill's text is untrusted (it came from the web through a model): markdown
is rendered with raw HTML disabled, so it cannot inject markup or scripts.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from synth.skill.postprocess import Skill

_CSS = """
:root{--bg:hsl(220,20%,10%);--card:hsla(220,15%,16%,.7);--line:hsla(220,15%,40%,.35);--text:hsl(220,15%,88%);
--muted:hsl(220,10%,62%);--teal:hsl(180,100%,45%);--magenta:hsl(320,100%,60%)}
*{box-sizing:border-box}
body{margin:0;background:radial-gradient(1200px 600px at 10% -10%,hsla(180,100%,45%,.12),transparent),
radial-gradient(900px 500px at 110% 10%,hsla(320,100%,60%,.10),transparent),var(--bg);color:var(--text);
font:16px/1.6 Inter,Outfit,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;min-height:100vh}
main{max-width:980px;margin:0 auto;padding:32px 20px 64px}
header h1{font-family:Outfit,Inter,system-ui,sans-serif;font-size:2rem;margin:0 0 4px;
background:linear-gradient(90deg,var(--teal),var(--magenta));-webkit-background-clip:text;background-clip:text;color:transparent}
.meta{color:var(--muted);font-size:.9rem}
.pill{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:2px 10px;margin:6px 6px 0 0;font-size:.8rem}
.pill.warn{border-color:var(--magenta);color:var(--magenta)}
.card{background:var(--card);backdrop-filter:blur(12px);-webkit-backdrop-filter:blur(12px);border:1px solid var(--line);
border-radius:14px;padding:20px 24px;margin:20px 0;box-shadow:0 10px 30px hsla(220,30%,3%,.4)}
.card h2{margin-top:1.2em;border-bottom:1px solid var(--line);padding-bottom:4px}
a{color:var(--teal)} a:hover{color:var(--magenta)}
code{font-family:"JetBrains Mono","Fira Code",ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
:not(pre)>code{background:hsla(220,15%,25%,.6);padding:1px 5px;border-radius:5px}
.code{position:relative;margin:12px 0}
.code pre{background:hsl(220,22%,7%);border:1px solid var(--line);border-radius:10px;padding:14px 16px;overflow:auto;margin:0}
.copy{position:absolute;top:8px;right:8px;background:hsla(180,100%,45%,.12);color:var(--teal);border:1px solid var(--teal);
border-radius:6px;padding:2px 10px;font:inherit;font-size:.75rem;cursor:pointer;transition:all .15s ease}
.copy:hover{background:var(--teal);color:var(--bg);transform:translateY(-1px)}
.copy.done{border-color:var(--magenta);color:var(--magenta)}
details.deprecated{border:1px solid var(--magenta);border-radius:10px;padding:6px 14px;margin:14px 0;transition:background .2s}
details.deprecated[open]{background:hsla(320,100%,60%,.06)}
details.deprecated summary{cursor:pointer;font-weight:600;color:var(--magenta);font-size:1.15rem}
table{border-collapse:collapse;width:100%;font-size:.85rem}
th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
tr:hover td{background:hsla(180,100%,45%,.05)}
td.url{word-break:break-all}
.yes{color:var(--teal)} .no{color:var(--muted)}
td.status.kept{color:var(--teal)} td.status.quarantined{color:var(--magenta);font-weight:600}
td.status.dropped,td.status.left-out{color:var(--muted)} td.why{font-size:.8rem;color:var(--muted)}
"""

_JS = """
document.querySelectorAll('.copy').forEach(function(b){b.addEventListener('click',function(){
var t=b.parentElement.querySelector('code').innerText;
function ok(){b.textContent='Copied';b.classList.add('done');setTimeout(function(){b.textContent='Copy';b.classList.remove('done')},1500)}
if(navigator.clipboard){navigator.clipboard.writeText(t).then(ok,function(){fallback(t);ok()})}else{fallback(t);ok()}});});
function fallback(t){var a=document.createElement('textarea');a.value=t;document.body.appendChild(a);a.select();
try{document.execCommand('copy')}catch(e){}document.body.removeChild(a)}
"""


_DEPRECATED = re.compile(r"deprecat|modern", re.I)


def _code(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """A code block (fenced or indented) as markdown-it renders it, in a box with a copy button."""
    inner = RendererHTML.fence(self, tokens, idx, options, env) if tokens[idx].type == "fence" else \
        RendererHTML.code_block(self, tokens, idx, options, env)
    return f'<div class="code"><button class="copy" type="button">Copy</button>{inner.rstrip(chr(10))}</div>\n'


def _heading_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """``<hN>``, or the ``<details><summary>`` of the deprecations section; closes that section before the next heading."""
    t = tokens[idx]
    before = "</details>" if t.meta.get("close_details") else ""
    if t.meta.get("details"):
        return before + '<details class="deprecated" open><summary>'
    return before + self.renderToken(tokens, idx, options, env)


def _heading_close(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """``</hN>``, or ``</summary>`` for the deprecations section's heading."""
    if tokens[idx].meta.get("details"):
        return "</summary>\n"
    return self.renderToken(tokens, idx, options, env)


def _md() -> MarkdownIt:
    """CommonMark with tables, raw HTML off (the text is untrusted), and the preview's render rules."""
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    for name, rule in (("fence", _code), ("code_block", _code), ("heading_open", _heading_open),
                       ("heading_close", _heading_close)):
        md.add_render_rule(name, rule)
    return md


_MD = _md()


def _mark_deprecated(tokens: list[Token]) -> bool:
    """Mark the first ``##`` heading about deprecations (its text matches deprecat|modern) to render as a
    collapsible ``<details>``, and the next h1/h2 to close it first. True when the section runs to the end."""
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.tag == "h2" and i + 1 < len(tokens) and _DEPRECATED.search(tokens[i + 1].content):
            t.meta["details"] = tokens[i + 2].meta["details"] = True
            for nxt in tokens[i + 3 :]:
                if nxt.type == "heading_open" and nxt.tag in ("h1", "h2"):
                    nxt.meta["close_details"] = True
                    return False
            return True
    return False


def render_markdown(text: str) -> str:
    """The skill's markdown as HTML: code blocks with a copy button, the deprecations section collapsible."""
    tokens = _MD.parse(text)
    runs_to_end = _mark_deprecated(tokens)
    out = _MD.renderer.render(tokens, _MD.options, {})
    return out + "</details>" if runs_to_end else out


def render_preview(skill: Skill, manifest: dict) -> str:
    """The whole page: the skill, its reference files and the ranked sources of ``manifest``."""
    e = html.escape
    fm = skill.frontmatter
    meta = fm.get("metadata", {})
    body_html = render_markdown(skill.body)
    refs = "".join(
        f'<section class="card"><div class="meta">{e(path)}</div>{render_markdown(text)}</section>'
        for path, text in sorted(skill.references.items())
    )
    rows = "".join(
        f"<tr class=\"src {r['status']}\" data-status=\"{r['status']}\"><td>{e(str(r['rank'] or '–'))}</td>"
        f"<td class=\"score\">{'' if r['score'] is None else format(r['score'], '.3f')}</td>"
        f"<td>{e(str(r['published'] or 'undated'))}</td><td class=\"status {r['status']}\">{e(STATUS_WORDS[r['status']])}</td>"
        f"<td class=\"why\">{e(r['why'])}</td>"
        f"<td class=\"url\"><a href=\"{e(r['url'])}\" rel=\"noopener noreferrer\">{e(r['url'])}</a></td></tr>"
        for r in source_rows(manifest)
    )
    recall = (manifest.get("delta") or {}).get("recall")
    if recall:
        missing = "".join(f"<li>{e(str(m['version']))}: {e(str(m['heading']))}</li>"
                          for m in recall.get("sections_not_represented", [])[:20])
        refs = (f'<section class="card"><h2>Delta recall</h2><div class="meta">{recall["post_cutoff_entries"]} post-cutoff '
                f'change entries in the evidence; {recall["in_skill_md"]} named in SKILL.md, {recall["in_references"]} in '
                f'references/; {recall["undated_entries"]} undated; {recall["left_out_by_screen"]} left out by the screen; '
                f'{recall["sections_not_represented_total"]} change-page section(s) not represented</div>'
                + (f"<ul>{missing}</ul>" if missing else "") + "</section>" + refs)
    model = manifest.get("model", {})
    stages = [f'<span class="pill{" warn" if manifest.get(s, {}).get("status") == "not run" else ""}">{s}: '
              f'{e(str(manifest.get(s, {}).get("status")))}</span>' for s in ("verify", "lint", "vet")]
    pills = (
        f'<span class="pill">target {e(str(meta.get("target-model")))}</span>'
        f'<span class="pill">cutoff {e(str(meta.get("cutoff")))}</span>'
        f'<span class="pill">learned {e(str(meta.get("learned-date")))}</span>'
        f'<span class="pill">provider {e(str(model.get("used")))}{(" · " + e(str(model.get("model")))) if model.get("model") else ""}</span>'
        f'<span class="pill">bundle {e(str(manifest.get("bundle", {}).get("mode")))}</span>' + "".join(stages)
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="generator" content="skill3">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{e(skill.name)} — skill3 preview</title><style>{_CSS}</style></head>
<body><main>
<header><h1>{e(skill.name)}</h1><div class="meta">{e(str(fm.get("description", "")))}</div><div>{pills}</div></header>
{refresh_panel(manifest)}
<section class="card">{body_html}</section>
{refs}
<section class="card" id="sources"><h2>Every source, in score order</h2>
<div class="meta">The ranking's score (the one <code>skill3 synth --dry-run</code> prints), whether the source reached the
model, and why: kept, left out of the bundle, quarantined by input vetting, or dropped by a rule.</div>
<table><thead><tr><th>#</th><th>score</th><th>date</th><th>decision</th><th>why</th><th>URL</th></tr></thead>
<tbody>{rows}</tbody></table>{crawl_drops(manifest)}</section>
</main><script>{_JS}</script></body></html>
"""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


STATUS_WORDS = {"kept": "in bundle", "left-out": "not in bundle", "quarantined": "quarantined", "dropped": "dropped"}
# the rules that drop a page while the run is read (synth.pipeline.bundle), in words
DROP_WORDS = {
    "robots": "robots.txt forbids it",
    "oversized": "oversized: over the download size limit",
    "duplicate_url": "duplicate: a URL an earlier source has",
    "no_content": "no main content",
    "future_dated": "future-dated: its date is after the run's day",
    "pre_cutoff": "pre-cutoff: published before the training cutoff (--strict-cutoff)",
    "undated": "undated (--strict-cutoff)",
    "stale": "stale: published before the cutoff and nothing on it is newer",
}


def _quarantine_reasons(manifest: dict[str, Any]) -> dict[str, str]:
    """URL → why input vetting quarantined it: each blocking rule with the text it matched and where."""
    vet = _dict(manifest.get("vet"))
    src = _dict(vet.get("input")).get("sources")
    out: dict[str, str] = {}
    for row in src or []:
        if not isinstance(row, dict) or not row.get("quarantined"):
            continue
        parts = []
        for f in row.get("findings") or []:
            if isinstance(f, dict) and f.get("rule_id") in (row.get("blocking_rules") or [f.get("rule_id")]):
                span = f.get("matched") or f.get("message") or ""
                where = f" (line {f['line']})" if f.get("line") else ""
                parts.append(f"{f.get('rule_id')} {f.get('severity', '')}: {str(f.get('title') or f.get('category') or '')} — "
                             f"“{str(span)[:160]}”{where}")
        out[str(row.get("url"))] = "quarantined by input vetting: " + ("; ".join(parts) or ", ".join(row.get("blocking_rules") or []))
    return out


def source_rows(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """Every source of the run as the preview lists it, in score order: the ranked candidates (in the bundle, left
    out, or quarantined, with the quarantine rule and the text it matched), then the pages a rule dropped while the
    run was read (future-dated, pre-cutoff …) and the pages the crawl dropped (robots.txt, oversized, duplicates);
    each with the reason for its decision."""
    rows = _candidate_rows(manifest)
    rows.sort(key=lambda x: (x["score"] is None, -(x["score"] or 0.0), x["url"]))
    return rows + _dropped_rows(manifest)


def _candidate_rows(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The ranked candidates with their decision and reasons (unsorted)."""
    cutoff = str(_dict(manifest.get("cutoff")).get("month") or "")
    quarantine = _quarantine_reasons(manifest)
    conflicts = _dict(manifest.get("conflicts"))
    lost: dict[str, list[str]] = {}
    for d in conflicts.get("dropped") or []:
        if isinstance(d, dict) and d.get("loser"):
            lost.setdefault(str(d["loser"]), []).append(f"contradicted on {d.get('api')}: “{str(d.get('dropped'))[:120]}” "
                                                        f"left out, {d.get('winner')} says otherwise")
    rows: list[dict[str, Any]] = []
    for r in manifest.get("sources") or []:
        if not isinstance(r, dict) or not r.get("url"):
            continue
        url = str(r["url"])
        score = r.get("rank_score", r.get("combined_score"))
        why: list[str] = []
        if url in quarantine or r.get("quarantined"):
            status = "quarantined"
            why.append(quarantine.get(url, "quarantined by input vetting"))
        elif r.get("selected"):
            status = "kept"
        else:
            status = "left-out"
            why.append("below the bundle's cut (token budget or source count)")
        if not r.get("post_cutoff"):
            why.append(f"published {r.get('published') or 'undated'}, not after the {cutoff or 'training'} cutoff: "
                       "not fresh evidence")
        why += lost.get(url, [])
        why += [str(x) for x in (r.get("reasons") or [])]
        rows.append({"rank": r.get("rank"), "score": float(score) if isinstance(score, (int, float)) else None, "url": url,
                     "published": r.get("published"), "status": status, "why": "; ".join(why)})
    return rows


def _dropped_rows(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The pages dropped while the run was read, then those the crawl dropped, with the rule in words."""
    rows: list[dict[str, Any]] = []
    for d in _dict(_dict(manifest.get("inputs")).get("read")).get("dropped_items") or []:
        if isinstance(d, dict) and d.get("url"):
            reason = str(d.get("reason") or "dropped")
            rows.append({"rank": None, "score": None, "url": str(d["url"]), "published": d.get("published"),
                         "status": "dropped", "why": DROP_WORDS.get(reason, reason.replace("_", " "))})
    crawl = _dict(manifest.get("crawl"))
    for d in (crawl.get("dropped_items") or [])[:500]:  # what the crawl itself dropped (robots.txt, oversized …)
        if isinstance(d, dict) and d.get("url"):
            reason = str(d.get("reason") or "dropped")
            rows.append({"rank": None, "score": None, "url": str(d["url"]), "published": None, "status": "dropped",
                         "why": "by the crawl: " + DROP_WORDS.get(reason, reason.replace("_", " "))})
    dups = _dict(crawl.get("duplicates"))
    for kept, others in list(dups.items())[:200]:  # the kept page → the pages that said the same
        for url in others if isinstance(others, list) else []:
            rows.append({"rank": None, "score": None, "url": str(url), "published": None, "status": "dropped",
                         "why": f"duplicate of {kept}"})
    return rows


def crawl_drops(manifest: dict[str, Any]) -> str:
    """The crawl's drops it counts but does not list by URL (robots.txt, oversized, not HTML …), as one line."""
    crawl = _dict(manifest.get("crawl"))
    summary = _dict(crawl.get("summary"))
    counts = {k: v for k, v in summary.items() if isinstance(v, int) and v and k in
              ("robots_denied", "network_guard_blocked")}
    dropped = _dict(summary.get("dropped"))
    counts.update({k: v for k, v in dropped.items() if isinstance(v, int) and v})
    if not counts:
        return ""
    text = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(counts.items()))
    return f'<div class="meta" id="crawl-drops">Counted by the crawl (the first of each listed above): {html.escape(text)}.</div>'


def refresh_panel(manifest: dict[str, Any]) -> str:
    """The "since last learn" card of index.html (a refresh, synth.agents.refresh; empty for a first run). Everything shown is escaped."""
    rec = manifest.get("refresh")
    if not isinstance(rec, dict) or rec.get("status") in (None, "first"):
        return ""
    e = html.escape
    lines = "".join(f"<li>{e(str(s))}</li>" for s in rec.get("summary") or [])
    d = rec.get("diff") if isinstance(rec.get("diff"), dict) else None
    detail = ""
    if d:
        def rows(items: list[dict], label: str) -> str:
            return "".join(f"<tr><td>{label}</td><td>{e(str(i.get('version') or ''))}</td><td>{e(str(i.get('text', '')))}</td>"
                           f"<td class=\"url\">{e(str(i.get('url') or ''))}</td></tr>" for i in items[:50])
        claims = d["claims"]
        body = rows(claims["added"], "added") + rows(claims["removed"], "removed") + rows(
            [c["to"] for c in claims["changed"]], "changed")
        srcs = "".join(f"<li>{'+' if k == 'added' else '−'} <span class=\"url\">{e(u)}</span></li>"
                       for k in ("added", "removed") for u in d["sources"][k][:50])
        vers = ", ".join(e(v["version"]) for v in d["versions"]["added"][:30])
        detail = ((f"<p>New versions: {vers}</p>" if vers else "")
                  + (f"<table><thead><tr><th>claim</th><th>version</th><th>text</th><th>cited</th></tr></thead>"
                     f"<tbody>{body}</tbody></table>" if body else "")
                  + (f"<ul>{srcs}</ul>" if srcs else ""))
    status = {"unchanged": "no change", "refreshed": "refreshed", "fresh": "learned fresh"}.get(str(rec.get("status")), str(rec.get("status")))
    versions = f"{rec.get('previous_version') or '?'} → {rec.get('version') or '?'}"
    return (f'<section class="card"><h2>Since last learn</h2><div class="meta">{e(status)} · {e(versions)} · '
            f'checked {e(str(rec.get("checked_at") or ""))}</div><ul>{lines}</ul>{detail}</section>')
