"""``<output_dir>/index.html``: a self-contained preview of the skill (seed SPEC §5).

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

from markdown_it import MarkdownIt

from synth.postprocess import Skill

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
"""

_JS = """
document.querySelectorAll('.copy').forEach(function(b){b.addEventListener('click',function(){
var t=b.parentElement.querySelector('code').innerText;
function ok(){b.textContent='Copied';b.classList.add('done');setTimeout(function(){b.textContent='Copy';b.classList.remove('done')},1500)}
if(navigator.clipboard){navigator.clipboard.writeText(t).then(ok,function(){fallback(t);ok()})}else{fallback(t);ok()}});});
function fallback(t){var a=document.createElement('textarea');a.value=t;document.body.appendChild(a);a.select();
try{document.execCommand('copy')}catch(e){}document.body.removeChild(a)}
"""


def _md() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def render_markdown(text: str) -> str:
    out = _md().render(text)
    out = re.sub(r"<pre><code([^>]*)>", r'<div class="code"><button class="copy" type="button">Copy</button><pre><code\1>', out)
    out = out.replace("</code></pre>", "</code></pre></div>")
    return _collapse_deprecated(out)


def _collapse_deprecated(rendered: str) -> str:
    m = re.search(r"<h2>([^<]*(?:deprecat|modern)[^<]*)</h2>", rendered, re.I)
    if not m:
        return rendered
    nxt = re.search(r"<h[12]>", rendered[m.end():])
    end = m.end() + nxt.start() if nxt else len(rendered)
    inner = rendered[m.end():end]
    return (rendered[: m.start()] + f'<details class="deprecated" open><summary>{m.group(1)}</summary>{inner}</details>'
            + rendered[end:])


def render_preview(skill: Skill, manifest: dict) -> str:
    e = html.escape
    fm = skill.frontmatter
    meta = fm.get("metadata", {})
    body_html = render_markdown(skill.body)
    refs = "".join(
        f'<section class="card"><div class="meta">{e(path)}</div>{render_markdown(text)}</section>'
        for path, text in sorted(skill.references.items())
    )
    rows = "".join(
        f"<tr><td>{r['rank']}</td><td>{r['combined_score']:.3f}</td><td>{r['authority']:.2f}</td>"
        f"<td>{e(str(r.get('published') or 'undated'))}</td><td>{e(str(r.get('date_source') or '-'))}</td>"
        f"<td>{r['consensus_count']}</td><td class=\"{'yes' if r['selected'] else 'no'}\">{'yes' if r['selected'] else 'no'}</td>"
        f"<td class=\"url\"><a href=\"{e(r['url'])}\" rel=\"noopener noreferrer\">{e(r['url'])}</a></td></tr>"
        for r in manifest.get("sources", [])
    )
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
<section class="card">{body_html}</section>
{refs}
<section class="card"><h2>Ranked sources</h2>
<table><thead><tr><th>#</th><th>score</th><th>authority</th><th>date</th><th>signal</th><th>consensus</th><th>in bundle</th><th>URL</th></tr></thead>
<tbody>{rows}</tbody></table></section>
</main><script>{_JS}</script></body></html>
"""
