"""Nothing leaks: secrets of many kinds, written into pages and corpora the way the web writes them, must
not survive into any output file, the log or a request the model receives — in any escaping (raw,
markdown-escaped, JSON-escaped, HTML-escaped, URL-encoded).

Three real runs, each against the loopback model stub (which replies with everything it was sent, the
worst a model can do):

(a) a real crawl (``scrapy crawl learn``, synthesis at close) over a loopback site: a generic page
    (trafilatura, which escapes markdown), a Sphinx page (the known-generator path) and a markdown page;
(b) ``skill3 learn --input-file`` on a markdown corpus and on an HTML corpus, with credentials in the
    source URLs (which must stay valid URLs through lint's P3);
(c) ``skill3 synth`` on a run.jsonl nobody redacted (an older or foreign crawl).

Secret-shaped strings are assembled at run time, so this file itself carries none.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.crawl.conftest import read_jsonl, scrapy_crawl
from tests.harness import skill3
from tests.mockserver import MockServer, StubLLM

ROOT = Path(__file__).resolve().parents[2]
TOPIC = "leakproof"

_BASIC_PASSWORD = "Gr4v1ty" + "-W3ll-77q"
_PEM_BODY = ("b3BlbnNzaC1rZXktdjEAAAAABG5v" + "bmUAAAAEbm9uZQAAAAAAAAAB", "Qm9yZWFsaXNBd2Vzb21l" + "S2V5Rm9yTGVha1Rlc3Rz")

# name → (the secret as written in a page, the strings that must never appear in an output)
SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {}


def _secret(name: str, written: str, *must_vanish: str) -> str:
    SECRETS[name] = (written, must_vanish or (written,))
    return written


GITHUB = _secret("github", "ghp" + "_" + "Tw5Nc8Rk2Vb7Hy4Jm9Qs3Xd6Lf1Pz0Ga5Ue8")
AWS_ID = _secret("aws-key-id", "AKIA" + "ZR4TB7XN2QW9KD5M")
AWS_PROSE = _secret("aws-secret-prose", "Tk8Vq2Lm5Zx9Rb3N" + "w7Hc4Yd6Jf1Gp0sA/e+uO2")
AWS_ENV = _secret("aws-secret-env", "Pz3Wq8Ln1Kd6Tb9V" + "x2Hm7Rc4Jy0Fs5Ga/u+eQ8")
STRIPE = _secret("stripe", "sk" + "_live_" + "51HqLw8Zt3Xv7Bn1Mc4Hd6Jf0Gp2Ya8UeR5s2Lk9Qw")
SLACK = _secret("slack", "xox" + "b-" + "2718281828-3141592653-" + "Zq7Wx3Rt9Yp2Lk5Nm8Bv4Cd")
OPENAI = _secret("openai", "sk-" + "proj-" + "Rv4Tn8Kq2Lx6Zm9Pw3Hb7Yc5Jd1Gf0SaUe4Wi8Oq")
BASIC = _secret("basic-auth", base64.b64encode(("deployer:" + _BASIC_PASSWORD).encode()).decode(),
                base64.b64encode(("deployer:" + _BASIC_PASSWORD).encode()).decode(), _BASIC_PASSWORD)
REDIS_PW = _secret("redis-password", "Ox7Pq2Wm9" + "Zk4Lt6Rv")
JWT = _secret("jwt", "eyJ" + "hbGciOiJSUzI1NiJ9" + ".eyJ" + "pc3MiOiJsZWFrLXRlc3QifQ" + "." + "Xq4Lm8Tz2Rb6Nv0Kp3Hy7Wc1Jd5Gf9Se")
PEM = _secret("private-key", "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" + "\n".join(_PEM_BODY) + "\n-----END " + "OPENSSH PRIVATE KEY-----",
              *_PEM_BODY)
URL_PASSWORD = _secret("url-password", "Hx9Kw2" + "Lq7Tz4Np")
URL_TOKEN = _secret("url-token", "Yt6Rp1" + "Mz8Qv3Kc5Wn0")
START_TOKEN = _secret("start-url-token", "Jq2Vn7" + "Rk4Zx9Lp3Tw")
# no vendor prefix: only the name it is assigned to says what it is (generic keyword + entropy detection)
SERVICE_TOKEN = _secret("generic-env-token", "q8Zr2LmX7v" + "Kp4TnW9sYb3HdF6jQ1")
YAML_KEY = _secret("generic-yaml-key", "Zt7Qm2Xv9L" + "p4Rk8Wn3Bc6Hd1Fy")
CLIENT_SECRET = _secret("generic-json-secret", "Vb8nM2qL5x" + "Z9tR3wK7pJ4hF6Gs")

# prose-embedded tokens with a vendor prefix (round four): a webhook signing secret, an app-level chat token
WHSEC = _secret("stripe-webhook-secret", "whsec" + "_" + "Lq8Vt3Nc7Rk2Wy5Hb9Jm4Xs6Df1Pz0Ga")
XAPP = _secret("slack-app-token", "xapp" + "-1-" + "A07K2RT9QZB-" + "7391046285173-" + "c4e8a1f0b92d67e3a5c1f8d04b7e2a96")

PROSE_LINES = [
    f"Webhook payloads are signed with {WHSEC} from the dashboard's endpoint page.",
    f"The socket-mode bot connects with the app-level token {XAPP} at start.",
    f"Push with the token {GITHUB} from the release workflow.",
    f"Created the deploy user with key id {AWS_ID} and secret {AWS_PROSE} for the backup bucket.",
    f"Before deploying set AWS_SECRET_ACCESS_KEY={AWS_ENV} in the shell of the deploy user.",
    f"Payments in production are charged with {STRIPE} by the billing service.",
    f"The chat bot posts release notes with {SLACK} every Friday.",
    f"The assistant calls the model with the key {OPENAI} from the server.",
    f"Every request sends the header Authorization: Basic {BASIC} to the registry.",
    f"Sessions are cached at redis://:{REDIS_PW}@cache.internal.example:6379/0 for an hour.",
    f"The session cookie holds the token {JWT} until logout.",
    f"The worker reads its settings from the shell: export SERVICE_TOKEN={SERVICE_TOKEN} before the first run.",
    f"The client's config file holds the line api_key: {YAML_KEY} next to the endpoint.",
    f'The OAuth app is registered with {{"clientId": "alpha-app", "clientSecret": "{CLIENT_SECRET}"}} in the console.',
]
CODE = (f"export AWS_SECRET_ACCESS_KEY={AWS_ENV}\n"
        f"curl -H 'Authorization: Basic {BASIC}' https://registry.example.org/v2/\n"
        f"export STRIPE_KEY={STRIPE}\n"
        f"export SERVICE_TOKEN={SERVICE_TOKEN}\n"
        f"export STRIPE_WEBHOOK_SECRET={WHSEC}\n"
        f"curl https://hooks.leak.example/relay?app_token={XAPP}\n")
FILLER = ("The alpha toolkit now ships a streaming transport that replaces long polling for every client; "
          "sessions resume after a disconnect and the server advertises its capabilities at start. ")


def _md_escape(s: str) -> str:
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~=:/])", r"\\\1", s)


def escapings(s: str) -> set[str]:
    """Every form a string takes in our outputs: raw, markdown-escaped (only _ and *, or everything),
    JSON-escaped (ASCII or not, / escaped or not), HTML-escaped, URL-encoded — and their combinations."""
    forms = {s, s.replace("_", r"\_").replace("*", r"\*"), _md_escape(s)}
    forms |= {json.dumps(f)[1:-1] for f in list(forms)} | {json.dumps(f, ensure_ascii=False)[1:-1] for f in list(forms)}
    forms |= {f.replace("/", r"\/") for f in list(forms)}
    forms |= {html.escape(f) for f in list(forms)} | {html.escape(f, quote=False) for f in list(forms)}
    forms |= {quote(s, safe=""), quote(s)}
    return forms


def leaks(texts: dict[str, str]) -> list[str]:
    """(secret name, where, form) of every secret found in any of ``texts`` (name → content)."""
    found = []
    for name, (_written, must_vanish) in SECRETS.items():
        for value in must_vanish:
            for form in escapings(value):
                for where, text in texts.items():
                    if form in text:
                        found.append(f"{name} in {where} as {form[:30]!r}")
    return found


def output_texts(out: Path) -> dict[str, str]:
    files = {str(p.relative_to(out)): p.read_text(encoding="utf-8", errors="replace") for p in sorted(out.rglob("*")) if p.is_file()}
    assert files, f"nothing written in {out}"
    return files


def request_texts(stub: StubLLM) -> dict[str, str]:
    reqs = stub.chat_requests()
    assert reqs, "the model was never asked"
    return {f"model request {i}": json.dumps(r["body"]) + json.dumps(r["body"], ensure_ascii=False) for i, r in enumerate(reqs)}


def echo(body: dict) -> str:
    """The worst model: a valid skill that repeats every source it was sent, citing each URL."""
    system = body["messages"][0]["content"]
    user = "\n".join(m["content"] for m in body["messages"][1:] if isinstance(m.get("content"), str))
    if "condense one web page" in system or "revise an Agent Skill" in system or "check a SKILL.md draft" in system:
        return user
    urls = list(dict.fromkeys(re.findall(r"^url: (\S+)", user, re.M)))
    sources = "\n".join(f"- [{i}] {u}" for i, u in enumerate(urls, 1))
    return (f"---\nname: {TOPIC}\ndescription: What changed in the alpha toolkit after January 2026; use when deploying it.\n---\n"
            f"# Alpha toolkit after 2026-01\n\n## Overview / When to use\nThe toolkit streams [1].\n\n"
            f"## Instructions\n1. Deploy as the sources say [1].\n\n## Examples\n~~~~text\n{user}\n~~~~\n\n## Sources\n{sources}\n")


def agent_texts(out: Path) -> dict[str, str]:
    """What an agent loads from the run: every export format, and the MCP server's answers (real SDK client)."""
    import sys

    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from synth.agents.export import FORMATS, export_run, target_file

    texts: dict[str, str] = {}
    to = out.parent / f"{out.name}-exports"
    to.mkdir(exist_ok=True)
    for fmt in FORMATS:
        export_run(out, fmt, to=to)
        path = next(p for p in to.rglob("*") if p.is_file() and p == target_file(fmt, to, p.stem.removeprefix("skill3-")))
        texts[f"export {fmt}"] = path.read_text(encoding="utf-8")

    async def main() -> None:
        server = StdioServerParameters(command=sys.executable, args=["-m", "skill3", "mcp", "--root", str(out.parent)],
                                       env={"SKILL3_HOME": str(out.parent / ".home")}, cwd=str(ROOT))
        async with Client(server) as c:
            listed = await c.call_tool("list_skills", {})
            texts["mcp list_skills"] = listed.content[0].text
            for skill in json.loads(listed.content[0].text)["skills"]:
                for file in skill["files"]:
                    got = await c.call_tool("get_skill", {"topic": skill["name"], "file": file})
                    texts[f"mcp get_skill {file}"] = got.content[0].text
                    res = await c.read_resource(f"skill3://skills/{skill['name']}/{file}")
                    texts[f"mcp resource {file}"] = res.contents[0].text
                for q in ("token secret key", "webhook signed dashboard", "deploy export shell"):
                    found = await c.call_tool("search_delta", {"topic": skill["name"], "query": q})
                    texts[f"mcp search {q}"] = found.content[0].text

    anyio.run(main)
    return texts


def assert_nothing_leaks(out: Path, log: str, stub: StubLLM, expected_kinds: int) -> dict:
    texts = {**output_texts(out), "log": log, **request_texts(stub), **agent_texts(out)}
    assert leaks(texts) == []
    items = read_jsonl(out / "run.jsonl") if (out / "run.jsonl").is_file() else []
    return {"items": items, "redactions": sum(i.get("redactions", 0) for i in items), "texts": texts}


def _page(title: str, body: str, published: str = "2026-06-01") -> str:
    return (f"<!doctype html><html><head><title>{title}</title><meta property='article:published_time' content='{published}'>"
            f"</head><body><nav><a href='/'>Home</a></nav>{body}</body></html>")


def _prose_html() -> str:
    return "".join(f"<p>{html.escape(line)} {FILLER}</p>" for line in PROSE_LINES) + f"<pre>{html.escape(PEM)}</pre>"


def _markdown() -> str:
    return (f"# Deploying the alpha toolkit\n\n{FILLER}\n\n" + "\n\n".join(f"{line} {FILLER}" for line in PROSE_LINES)
            + f"\n\nA markdown author escapes: the token ghp\\_{GITHUB[4:]} and AWS\\_SECRET\\_ACCESS\\_KEY={AWS_ENV}.\n\n"
            + f"```bash\n{CODE}```\n\n```text\n{PEM}\n```\n")


# --------------------------------------------------------------------------- (a) a real crawl


LATIN1 = "Le café du matin, à la française, sans sucre. "
JAPANESE = "日本語のテキストも正しく読めること。"


def leak_site(srv: MockServer, host: str, path: str, query: dict, body: bytes):
    html_ct = {"Content-Type": "text/html; charset=utf-8"}
    if path == "/guide.html":  # no known generator: trafilatura (which escapes markdown)
        return 200, html_ct, _page("Deploying the alpha toolkit", f"<main><h1>Deploying</h1>{_prose_html()}<pre><code>{html.escape(CODE)}</code></pre></main>")
    if path == "/sphinx.html":  # a known generator: the Sphinx content node
        return 200, html_ct, _page("Alpha reference", f"<div class='document'><div role='main'><h1>Reference</h1>{_prose_html()}"
                                   f"<div class='highlight-bash'><pre>{html.escape(CODE)}</pre></div></div></div>", "2026-06-02")
    if path == "/feed.html":  # its start URL carries a token
        return 200, html_ct, _page("Alpha feed", f"<main><h1>Feed</h1><p>{FILLER * 3}</p><p>Feed entries. {FILLER}</p></main>", "2026-06-05")
    if path == "/notes.md":
        return 200, {"Content-Type": "text/markdown"}, _markdown()
    if path == "/latin1.html":  # charset only in the HTTP header
        page = _page("Café notes", f"<main><h1>Café</h1><p>{LATIN1 * 6}</p></main>", "2026-06-03")
        return 200, {"Content-Type": "text/html; charset=iso-8859-1"}, page.encode("latin-1")
    if path == "/lying.html":  # claims UTF-16, sends latin-1
        page = _page("Café lies", f"<main><h1>Café crème</h1><p>Crème brûlée. {LATIN1 * 6}</p></main>", "2026-06-04")
        return 200, {"Content-Type": "text/html; charset=utf-16"}, page.encode("latin-1")
    if path == "/japanese.md":  # markdown, no charset anywhere
        return 200, {"Content-Type": "text/markdown"}, f"# 日本語\n\n{(JAPANESE + ' ') * 12}\n".encode("utf-8")
    return 404, {"Content-Type": "text/plain"}, "not found"


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("leak-crawl")
    sites = MockServer(name="leak", routes=leak_site).start()
    try:
        with StubLLM(echo) as stub:
            base = f"http://docs.leak.test:{sites.port}"
            paths = ["/guide.html", "/sphinx.html", "/notes.md", "/latin1.html", "/lying.html", "/japanese.md",
                     f"/feed.html?access_token={START_TOKEN}"]
            out = tmp / "out"
            proc = scrapy_crawl(
                f"topic={TOPIC}", "cutoff_time=2026-01", "start_urls=" + ",".join(base + p for p in paths),
                f"output_dir={out}", "llm_provider=openai", f"llm_endpoint={stub.url}", "llm_model=stub-model", "max_pages=10",
                settings={"SKILL3_RESOLVE": {"docs.leak.test": "127.0.0.1"}, "SKILL3_ALLOW_PRIVATE_NETWORKS": "1",
                          "SKILL3_TODAY": "2026-11-29", "AUTOTHROTTLE_ENABLED": "0", "DOWNLOAD_DELAY": "0", "LOG_LEVEL": "DEBUG"},
                env={"SKILL3_HOME": str(tmp / "home")}, timeout=240,
            )
            yield {"proc": proc, "out": out, "stub": stub, "paths": paths}
    finally:
        sites.stop()


def test_crawl_leaks_nothing(crawled):
    proc = crawled["proc"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = assert_nothing_leaks(crawled["out"], proc.stdout + proc.stderr, crawled["stub"], len(SECRETS))
    by_path = {i["url"].rsplit("/", 1)[1]: i for i in run["items"]}
    assert {"guide.html", "sphinx.html", "notes.md", "feed.html?access_token=REDACTED"} <= set(by_path)
    assert by_path["guide.html"]["redactions"] >= 10 and by_path["sphinx.html"]["redactions"] >= 10
    extractors = json.dumps(run["items"])
    assert "[REDACTED:" in extractors
    assert (crawled["out"] / TOPIC / "SKILL.md").is_file()


def test_crawl_decodes_non_ascii_pages(crawled):
    assert crawled["proc"].returncode == 0, crawled["proc"].stderr[-3000:]
    items = {i["url"].rsplit("/", 1)[1]: i for i in read_jsonl(crawled["out"] / "run.jsonl")}
    for name in ("latin1.html", "lying.html"):
        text = " ".join(items[name]["excerpts"])
        assert items[name]["title"].startswith("Café") and "Le café du matin, à la française" in text, (name, text[:120])
    assert JAPANESE in " ".join(items["japanese.md"]["excerpts"])


# --------------------------------------------------------------------------- (b) skill3 learn --input-file


def _corpus(kind: str) -> str:
    creds = f"https://deployer:{URL_PASSWORD}@docs.leak.example/guide"
    token = f"https://docs.leak.example/feed?access_token={URL_TOKEN}&page=2"
    if kind == "markdown":
        bodies = [_markdown(), f"# Feed\n\n{FILLER * 3}\n\n" + "\n\n".join(f"{line} {FILLER}" for line in PROSE_LINES[::-1])]
    else:
        bodies = [f"<html><body><main><h1>Deploying</h1>{_prose_html()}<pre>{html.escape(CODE)}</pre></main></body></html>",
                  f"<div role='main'><h1>Feed</h1>{_prose_html()}</div>"]
    return "".join(f"=== SOURCE ===\nurl: {url}\ntitle: Alpha toolkit {n}\ndate: 2026-06-0{n}\n\n{body}\n\n"
                   for n, (url, body) in enumerate(zip((creds, token), bodies), 1))


@pytest.mark.parametrize("kind", ["markdown", "html"])
def test_learn_from_a_corpus_leaks_nothing_and_cites_valid_urls(tmp_path, kind):
    corpus = tmp_path / "leaks.sources"
    corpus.write_text(_corpus(kind), encoding="utf-8")
    out = tmp_path / "out"
    with StubLLM(echo) as stub:
        r = skill3("learn", TOPIC, "--input-file", str(corpus), "--output-dir", str(out), "--cutoff-time", "2026-01",
                   "--llm-provider", "openai", "--llm-endpoint", stub.url, "--llm-model", "stub-model",
                   env={"SKILL3_HOME": str(tmp_path / "home")}, timeout=240)
        assert r.returncode == 0, r.stderr[-3000:]
        run = assert_nothing_leaks(out, r.stdout + r.stderr, stub, len(SECRETS))
    urls = sorted(i["url"] for i in run["items"])
    assert urls == ["https://REDACTED@docs.leak.example/guide", "https://docs.leak.example/feed?access_token=REDACTED&page=2"]
    manifest = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert manifest["lint"]["status"] == "done"  # P3 parsed the redacted URLs
    skill = (out / TOPIC / "SKILL.md").read_text(encoding="utf-8")
    assert "https://REDACTED@docs.leak.example/guide" in skill


# --------------------------------------------------------------------------- (c) skill3 synth on an unredacted feed


def test_synth_of_an_unredacted_feed_leaks_nothing(tmp_path):
    from typer.testing import CliRunner

    from skill3.cli.app import app

    excerpts = [f"{line} {FILLER}" for line in PROSE_LINES]
    excerpts += [f"Escaped by a markdown renderer: ghp\\_{GITHUB[4:]}, AWS\\_SECRET\\_ACCESS\\_KEY={AWS_ENV}, "
                 f"sk\\_live\\_{STRIPE[8:]}. {FILLER}", PEM]
    base = {"topic": TOPIC, "cutoff": "2026-01", "published": "2026-06-01", "post_cutoff": True, "authority": 1.0,
            "recency_weight": 0.9, "combined_score": 0.9, "excerpts": excerpts,
            "code_blocks": [{"text": CODE, "language": "bash"}], "redactions": 0}
    items = [{**base, "url": f"https://deployer:{URL_PASSWORD}@docs.leak.example/a", "host": "docs.leak.example", "title": f"Token {GITHUB}"},
             {**base, "url": f"https://docs.leak.example/b?access_token={URL_TOKEN}", "host": "docs.leak.example", "title": "B"}]
    feed = tmp_path / "run.jsonl"
    feed.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    before = feed.read_text(encoding="utf-8")
    with StubLLM(echo) as stub:
        r = CliRunner().invoke(app, ["synth", str(feed), "--llm-provider", "openai", "--llm-endpoint", stub.url,
                                     "--llm-model", "stub-model", "--quiet"])
        assert r.exit_code == 0, r.stderr[-3000:]
        texts = {k: v for k, v in output_texts(tmp_path).items() if k != "run.jsonl"}  # the input is the user's file
        assert leaks({**texts, "log": r.stdout + r.stderr, **request_texts(stub)}) == []
    assert feed.read_text(encoding="utf-8") == before  # never rewritten
