"""The whole delta on a documentation site of our own, crawled for real (`scrapy crawl learn`, docs mode, loopback):
a towncrier-style changelog, a What's New page with highlights and per-module sections, an API page with markers,
every page stamped with one build date. Cutoff just before release 4.2.

Checks the class of behaviour, not this site: the skill leads with the new release's highlights, holds every
post-cutoff entry in references/ with the page that states it, keeps bug fixes and the older release out of the
lead, reads the deprecation schedule right, quotes the source's own code, records the recall; without dates it
says the versions could not be dated and names --since-version, and with --since-version the release leads again.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.mockserver import MockServer, bind, html

BUILD = "<meta name='date' content='2026-10-07'>"
WORDS = "This page explains the scheduler's configuration in enough words to be documentation prose for readers."


def changelog(dated: bool) -> str:
    d42, d411, d41 = ("(2023-03-04)", "(2022-12-01)", "(2022-06-15)") if dated else ("", "", "")
    return f"""<div role='main'><section id='changelog'><h1>Changelog<a class='headerlink' href='#changelog'>¶</a></h1>
<p>Versions follow semantic versioning; this page lists every release of acme.</p>
<section id='acme-4-2-0'><h2>acme 4.2.0 {d42}<a class='headerlink' href='#acme-4-2-0'>\ue157</a></h2>
<section id='features'><h3>Features</h3><ul>
<li><p>#1201: Added the <code>acme.tasks.Group</code> class that awaits a group of tasks together.</p></li>
<li><p>#1207: The scheduler now supports cron expressions in <code>acme.schedule()</code>.</p></li>
</ul></section>
<section id='deprecations'><h3>Deprecations</h3><ul>
<li><p>#1210: <code>acme.run_later()</code> is deprecated in favour of <code>acme.schedule()</code> and will be removed in acme 5.0.</p></li>
</ul></section>
<section id='bug-fixes'><h3>Bug Fixes</h3><ul>
<li><p>#1215: Fixed a crash when the queue file was empty on start-up.</p></li>
<li><p>#1216: Fixed the retry counter being reset after a reload.</p></li>
</ul></section></section>
<section id='acme-4-1-1'><h2>acme 4.1.1 {d411}</h2><section id='bf'><h3>Bug Fixes</h3><ul>
<li><p>#1190: Fixed a race in the lock file handling of the worker pool.</p></li></ul></section></section>
<section id='acme-4-1-0'><h2>acme 4.1.0 {d41}</h2><section id='f'><h3>Features</h3><ul>
<li><p>#1100: Added the legacy pipes helper for older deployments of the queue.</p></li></ul></section></section>
</section></div>"""


WHATSNEW = """<div role='main'><section id='whatsnew'><h1>What’s New In acme 4.2<a class='headerlink' href='#whatsnew'>¶</a></h1>
<p>Welcome to acme 4.2! These release notes cover the new features and the incompatible changes.</p>
<section id='summary'><h2>Summary – Release highlights</h2><ul>
<li><p>Task groups: structured concurrency with <code>acme.tasks.Group</code>.</p></li>
<li><p>Cron expressions in the scheduler, replacing hand-written interval loops.</p></li>
</ul></section>
<section id='improved'><h2>Improved Modules</h2>
<section id='acme-net'><h3>acme.net</h3><p>Added <code>acme.net.Client.stream()</code> for incremental downloads of large files.</p>
<div class='highlight-python'><div class='highlight'><pre>client = acme.net.Client()
for chunk in client.stream("https://example.org/big"):
    sink.write(chunk)
</pre></div></div></section>
<section id='acme-tasks'><h3>acme.tasks</h3><p>Added the <code>Group</code> class: an asynchronous context manager holding tasks.</p>
<div class='highlight-python'><div class='highlight'><pre>async with acme.tasks.Group() as group:
    group.start(fetch())
    group.start(store())
</pre></div></div></section></section>
<section id='deprecated'><h2>Deprecated</h2><ul>
<li><p><code>acme.run_later()</code> is deprecated in favour of <code>acme.schedule()</code>; it will be removed in acme 5.0.</p></li>
</ul></section>
<section id='build'><h2>Build Changes</h2><p>Building acme from source now requires a C11 compiler and meson 1.0 or newer.</p></section>
<p>See the changelog for the full list of changes.</p>
</section></div>"""

API = f"""<div role='main'><section id='tasks'><h1>acme.tasks — task groups<a class='headerlink' href='#tasks'>¶</a></h1>
<p>{WORDS}</p>
<dl class='py class'><dt class='sig sig-object py' id='acme.tasks.Group'><em class='property'>class </em><span class='sig-prename descclassname'>acme.tasks.</span><span class='sig-name descname'>Group</span>()</dt>
<dd><p>An asynchronous context manager holding a group of tasks that are awaited together.</p>
<div class='versionadded'><p><span class='versionmodified added'>New in version 4.2.</span></p></div></dd></dl>
<dl class='py function'><dt class='sig sig-object py' id='acme.tasks.legacy'><span class='sig-prename descclassname'>acme.tasks.</span><span class='sig-name descname'>legacy</span>()</dt>
<dd><p>The old way of grouping tasks, kept for compatibility with older code.</p>
<div class='versionadded'><p><span class='versionmodified added'>New in version 4.1.</span></p></div></dd></dl>
</section></div>"""


def site(dated: bool) -> dict:
    ctype = "text/html; charset=utf-8"
    pages = {"changelog.html": ("Changelog — acme docs", changelog(dated)), "whatsnew/4.2.html": ("What’s New In acme 4.2", WHATSNEW),
             "api/tasks.html": ("acme.tasks — acme docs", API)}
    for i in range(10):
        pages[f"guide{i}.html"] = (f"Guide {i} — acme docs", f"<div role='main'><h1>Guide {i}</h1><p>{WORDS}</p><p>{WORDS}</p></div>")
    links = "".join(f"<li><a href='/{p}'>{t}</a></li>" for p, (t, _) in pages.items())
    routes = {"/robots.txt": (200, "text/plain", b"User-agent: *\nAllow: /\n"),
              "/": (200, ctype, html("acme docs", f"<div role='main'><h1>acme</h1><p>{WORDS}</p><ul>{links}</ul></div>", BUILD))}
    for p, (title, body) in pages.items():
        routes["/" + p] = (200, ctype, html(title, body, BUILD))
    return routes


@pytest.fixture(scope="module")
def learn(tmp_path_factory):
    def run(dated: bool, *extra: str):
        out = tmp_path_factory.mktemp("delta-site") / "out"
        server = MockServer()
        server.routes = bind(site(dated), server.url)
        with server as srv:
            proc = subprocess.run(
                [sys.executable, "-m", "scrapy", "crawl", "learn", "-a", "topic=acme", "-a", f"start_urls={srv.url}/",
                 "-a", "cutoff_time=2023-01", "-a", f"output_dir={out}", "-a", "llm_provider=extractive",
                 "-a", "fail_on_findings=0", *extra, "-s", "SKILL3_ALLOW_PRIVATE_NETWORKS=1", "-s", "SKILL3_REGISTRIES=",
                 "-s", "AUTOTHROTTLE_ENABLED=0", "-s", "DOWNLOAD_DELAY=0", "-s", "SKILL3_EXTRACT_WORKERS=0",
                 "-s", "SKILL3_TODAY=2026-11-29", "-s", "HTTPCACHE_ENABLED=0", "-s", "SKILL3_JS=never"],
                capture_output=True, text=True, timeout=180, env={**__import__("os").environ, "BRAVE_SEARCH_API_KEY": "", "SEARXNG_URL": ""})
        assert proc.returncode == 0, proc.stderr[-3000:]
        skill = out / "acme"
        refs = {p.name: p.read_text() for p in (skill / "references").glob("*.md")} if (skill / "references").is_dir() else {}
        return (skill / "SKILL.md").read_text(), refs, json.loads((out / "run.json").read_text()), skill

    return run


def test_the_new_release_leads_every_entry_is_in_references(learn):
    text, refs, man, skill = learn(True)
    body = text.split("## Instructions", 1)[1]
    lead = body.split("## Modern vs deprecated", 1)[0]
    # the release's own highlights first, never its bug fixes or the older release
    first = [ln for ln in lead.splitlines() if ln.startswith("- **")][:2]
    assert "Task groups: structured concurrency" in first[0] and "Cron expressions" in first[1], first
    assert "Fixed a crash" not in lead and "legacy pipes" not in text and "Fixed a race" not in lead
    assert "Welcome to acme" not in text and "full list of changes" not in text
    # the deprecation schedule reads as a deprecation whose removal is scheduled, with the modern pair
    assert re.search(r"Use `acme\.schedule\(\)` instead of `acme\.run_later\(\)`", text)
    assert "removal scheduled for 5.0" in text and "New in 5.0" not in text and "Added in 5.0" not in text
    # every post-cutoff entry of the evidence is in a reference file, cited by the page that holds it
    all_refs = "\n".join(refs.values())
    for needle in ("acme.net.Client.stream()", "cron expressions", "Fixed a crash when the queue file", "C11 compiler"):
        assert needle in all_refs, needle
    for line in all_refs.splitlines():
        if line.startswith("- **"):
            url = re.search(r"\]\((http://[^)]+)\)\)?$", line).group(1).split("#")[0]
            assert url.rsplit("/", 1)[-1] in ("changelog.html", "4.2.html", "tasks.html"), line
    assert not any("4.1" in line and "- **" in line for line in all_refs.splitlines())  # the old release is not news
    # the marker on the API page and the change page's entry are one entry with both citations
    group_lines = [ln for ln in all_refs.splitlines() if "Group" in ln and "- **" in ln and "tasks.html" in ln]
    assert group_lines and any("4.2.html" in ln or "changelog.html" in ln for ln in group_lines)
    # the source's own code, byte-exact, fenced
    assert 'for chunk in client.stream("https://example.org/big"):\n    sink.write(chunk)' in text + all_refs
    # the SKILL.md index names every reference file, each exists; the build is internal and comes last
    index = text.split("## Reference files", 1)[1].split("## Sources", 1)[0]
    named = re.findall(r"\]\((references/[^)]+)\)", index)
    assert sorted(n.split("/", 1)[1] for n in named) == sorted(refs)
    recall = man["delta"]["recall"]
    assert recall["post_cutoff_entries"] == recall["in_references"] > 0
    assert {e["version"] for e in man["delta"]["entries"]} == {"4.2"}  # 4.2.0 and 4.2: one release, one spelling
    assert any(e["kind"] == "deprecated" and e["instead_of"] == "acme.run_later()" for e in man["delta"]["entries"])
    assert ("4.2.0", "2023-03-04") in {(r["version"], r["date"]) for r in man["delta"]["timeline"]}
    from skills_ref.validator import validate

    assert not validate(skill)


def test_no_dates_says_so_and_since_version_makes_the_release_lead(learn):
    text, _refs, man, _skill = learn(False)
    assert "nothing new" not in text.lower()
    assert "could not be dated" in text and "--since-version" in text
    assert "(undated)" in text and "Added in 4.2" not in text
    text2, refs2, man2, _ = learn(False, "-a", "since_version=4.1")
    assert "Task groups: structured concurrency" in text2.split("## Instructions", 1)[1].split("\n- ", 2)[1]
    assert man2["delta"]["since_version"] == "4.1"
    states = {v["version"]: v for v in man2["delta"]["versions"]}
    assert states["4.2"]["state"] == "post" and states["4.2"]["how"] == "newer than --since-version 4.1"
    assert states["4.1"]["state"] == "pre"
