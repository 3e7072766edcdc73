"""Secret redaction. Secret-shaped strings are assembled at run time so this
file itself carries none."""

from __future__ import annotations

import pytest

from synth.evidence.item import SourceItem
from synth.vet.redact import redact_item, redact_text

from .helpers import case_dir

AWS_ID = "AKIA" + "Q7XJ" + "ZK2M" + "4PLR" + "8WNB"
AWS_SECRET = "wJal" + "rXUtnFEMI/K7MDENG/" + "bPxRfiCYzq81ab9Xk2Lm"
AWS_SECRET_40 = "Hq3v" + "Lw8ZpR2/xN5tKc7Y" + "+mB4dF6gJ9sA1eU0iO3y"  # the real length
GHP = "ghp" + "_" + "Zq8" * 12
GH_PAT = "github" + "_pat_" + "11ABCDE0Y" + "x7" * 30
SLACK = "xox" + "b-" + "1234567890" + "-0987654321-" + "aBcDeFgHiJkLmNoPqRsT"
OPENAI = "sk" + "-proj-" + "Ab3De6Gh9" * 5
JWT = "eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7b\nq9Zk3\n-----END " + "RSA PRIVATE KEY-----"

# text, secrets that must vanish, text that must survive, count
CASES = [
    (f"aws_access_key_id = {AWS_ID}", [AWS_ID], "aws_access_key_id = [REDACTED:", 1),
    (f"aws_secret_access_key = {AWS_SECRET}", [AWS_SECRET], "aws_secret_access_key = [REDACTED:", 1),
    (f'AWS_SECRET_ACCESS_KEY="{AWS_SECRET}"', [AWS_SECRET], "AWS_SECRET_ACCESS_KEY=", 1),
    (f"token: {GHP}", [GHP, "Zq8Zq8"], "token: [REDACTED:github-token]", 1),
    (f"use {GH_PAT} here", [GH_PAT], "use [REDACTED:github-token] here", 1),
    (f"SLACK_BOT={SLACK}", [SLACK], "SLACK_BOT=[REDACTED:", 1),
    (f"export OPENAI_API_KEY={OPENAI}", [OPENAI], "export OPENAI_API_KEY=[REDACTED:", 1),
    (f"Authorization: Bearer {JWT}", [JWT, "dozjgNry"], "Authorization: Bearer [REDACTED:json-web-token]", 1),
    (f"key:\n{PEM}\nafter", ["MIIEowIBAAKCAQEA7b", "q9Zk3"], "key:\n[REDACTED:private-key]\nafter", 1),
    ('api_key = "' + "k3yV4lue" + "9f8e7d6c5b4a" + '"', ["k3yV4lue9f8e7d6c5b4a"], 'api_key = "[REDACTED:', 1),
    ("password: " + "Tr0ub4dor" + "3xAmple99", ["Tr0ub4dor3xAmple99"], "password: [REDACTED:", 1),
    ("see https://deploy:" + "hunter2" + "S3cret@example.com/x", ["hunter2S3cret", "deploy"], "see https://REDACTED@example.com/x", 1),
    # markdown-escaped, as trafilatura and markdown authors write them
    ("token ghp\\_" + "Zq8" * 12, ["Zq8Zq8"], "token [REDACTED:github-token]", 1),
    ("AWS\\_SECRET\\_ACCESS\\_KEY=" + AWS_SECRET, [AWS_SECRET], "AWS\\_SECRET\\_ACCESS\\_KEY=[REDACTED:", 1),
    ("pay with sk\\_live\\_" + "T4kq9Ww2" * 4, ["T4kq9Ww2"], "pay with [REDACTED:stripe-key]", 1),
    ('db\\_password: "' + "Xk29fLq8Zr" + '"', ["Xk29fLq8Zr"], 'db\\_password: "[REDACTED:', 1),  # detect-secrets' keyword detector
    # an AWS secret key named in prose; next to its key id
    ("Created the user with secret " + AWS_SECRET_40 + " for backups.", [AWS_SECRET_40], "with secret [REDACTED:aws-secret-key] for", 1),
    (AWS_ID + " / " + AWS_SECRET_40, [AWS_ID, AWS_SECRET_40], " / [REDACTED:aws-secret-key]", 2),
    # prefixed tokens of other services
    ("HF_TOKEN=hf_" + "Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4", ["Qw3Er5Ty7Ui9"], "HF_TOKEN=[REDACTED:huggingface-token]", 1),
    ("//registry.npmjs.org/:_authToken=npm_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2", ["Ab1Cd2Ef3Gh4"], "_authToken=[REDACTED:", 1),
    # HTTP Authorization headers
    ('curl -H "Authorization: Basic ' + "YWRtaW46czNjcjN0LXBhc3M=" + '"', ["YWRtaW46czNjcjN0"], "Authorization: Basic [REDACTED:", 1),
    ("Proxy-Authorization: Bearer " + "r8Tq2" * 6, ["r8Tq2r8Tq2"], "Proxy-Authorization: Bearer [REDACTED:", 1),
    # credentials in URLs of any scheme, user name or not; a token in a query; all stay URLs
    ("REDIS_URL=redis://:" + "Vq7rT2xP9k" + "@cache.internal:6379/0", ["Vq7rT2xP9k"], "redis://REDACTED@cache.internal:6379/0", 1),
    ("[feed](https://example.com/f?access_token=" + "Zk3p9Q7wLm2xR8vT" + "&page=2)", ["Zk3p9Q7wLm2xR8vT"], "(https://example.com/f?access_token=REDACTED&page=2)", 1),
]

# ordinary documentation that must come through untouched
KEEP = [
    'password = "${DB_PASSWORD}"',
    'api_key = os.environ["OPENAI_API_KEY"]',
    'client = Client(api_key="YOUR_API_KEY_HERE")',
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "Connect to 93.184.216.34 on port 443.",
    "The `httpx.AsyncClient` supports HTTP/2 since 0.28; set http2=True.",
    "commit 698e2bf29c7d fixed the parser",
    'api_key = "[REDACTED:openai-key]"',
    "Authorization: Basic <base64 of user:password>",
    "Authorization: Bearer $TOKEN",
    "postgres://user:${DB_PASSWORD}@db.internal/app",
    "the secret is in commit 698e2bf29c7d4a1e5b3f9c0d2e7a8b6c4f1d3e5a, not here",
    r"C:\\Users\\me\\secret\\notes.txt and a\\_b",
]


@pytest.mark.parametrize("text,gone,kept,count", CASES, ids=[c[2].split()[0] + str(i) for i, c in enumerate(CASES)])
def test_redacts(text, gone, kept, count):
    redacted, n = redact_text(text)
    assert n == count
    assert kept in redacted
    for secret in gone:
        assert secret not in redacted


@pytest.mark.parametrize("text", KEEP)
def test_keeps_ordinary_text(text):
    assert redact_text(text) == (text, 0)


def test_idempotent():
    text = "\n".join(c[0] for c in CASES)
    once, n = redact_text(text)
    assert n == sum(c[3] for c in CASES)
    assert redact_text(once) == (once, 0)


def test_recorded_secret_literals_case():
    """Case 06: SkillSpector itself found no secret here (README); we must."""
    text = (case_dir("06") / "s3-backup" / "SKILL.md").read_text()
    redacted, n = redact_text(text)
    assert n == 3
    assert "AKIA" not in redacted and "ghp_" not in redacted and "fAkE0sEcReT" not in redacted
    assert "aws s3 sync ./backup" in redacted and redacted.count("\n") == text.count("\n")


def test_redact_item_redacts_credentials_in_urls():
    item = SourceItem(url="https://example.com/feed?api_key=" + "k3yV4lue9f8e7d6c5b4a", final_url="https://deploy:" + "hunter2S3cret@example.com/x",
                      title="t", excerpts=["plain"])
    assert redact_item(item) == 2
    assert item.url == "https://example.com/feed?api_key=REDACTED"
    assert item.final_url == "https://REDACTED@example.com/x"
    clean = SourceItem(url="https://docs.example.org/guide/?page=2", title="t")
    assert redact_item(clean) == 0 and clean.url == "https://docs.example.org/guide/?page=2"


def test_redact_item_in_place_counts():
    item = SourceItem(
        url="https://example.com/post",
        title=f"Leaked {GHP}",
        excerpts=["Intro paragraph.", f"aws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}"],
        code_blocks=[{"text": f'API_KEY = "{OPENAI}"\nprint(1)\n', "language": "python"}, {"text": "ls -la", "language": "bash"}],
        redactions=1,
    )
    assert redact_item(item) == 4
    assert item.redactions == 5
    dumped = str(item.to_dict())
    for secret in (GHP, AWS_ID, AWS_SECRET, OPENAI):
        assert secret not in dumped
    assert item.excerpts[0] == "Intro paragraph." and item.code_blocks[1] == {"text": "ls -la", "language": "bash"}
    assert item.code_blocks[0]["language"] == "python" and "print(1)" in item.code_blocks[0]["text"]


def _ungated_spans(line: str, filename: str = "source.md"):
    """Every detector on the line, no pre-checks: what the fast path must equal."""
    from synth.vet import redact as r
    from synth.vet import values as v

    regex_detectors, other_plugins, _ = r._detectors()
    spans = []
    for kind, plugin, _gate in other_plugins:
        found = plugin.analyze_line(filename=filename, line=line, line_number=0, context=None)
        if found and not r.heuristic.is_indirect_reference(line):
            for secret in found:
                value = secret.secret_value or ""
                if len(value) >= 6 and not v.is_placeholder(value):
                    import re

                    spans += [r._Span(m.start(), m.end(), kind) for m in re.finditer(re.escape(value), line)]
    for kind, patterns in regex_detectors:
        for regex in patterns:
            for m in regex.finditer(line):
                start, end = r._value_span(m)
                if v.MARK not in line[start:end]:
                    spans.append(r._Span(start, end, kind))
    for kind, regex, group in r._EXTRA:
        for m in regex.finditer(line):
            value = m.group(group)
            if v.valid(kind, m, value) and v.MARK not in value:
                spans.append(r._Span(m.start(group), m.end(group), kind))
    return sorted(spans, key=lambda s: (s.start, s.end, s.kind))


def test_pre_checks_change_nothing():
    """The pre-checks (the combined pattern per line, the whole-text scope, the keyword gate) only skip work:
    same spans as running every detector, line by line and with the text's scope."""
    from synth.vet.redact import _raw_line_spans, _text_scope

    lines = [c[0] for c in CASES] + KEEP + (case_dir("06") / "s3-backup" / "SKILL.md").read_text().splitlines()
    lines += ["cloudant_password = 'abcdef0123456789'", "ibm_cloud_iam_key: 'x1y2z3x1y2z3x1y2z3x1y2z3x1y2z3x1y2z3'",
              "AKC" + "a1b2c3d4e5f6g7h8", "https://user:pa55word@example.org", "db_pass=Zx9" + "Qw8Er7Ty6"]
    text = "\n".join(lines)
    scope = _text_scope(text)
    found = 0
    for line in text.splitlines():
        expected = _ungated_spans(line)
        for gate in (None, scope, _text_scope(line)):
            assert sorted(_raw_line_spans(line, "source.md", gate), key=lambda s: (s.start, s.end, s.kind)) == expected, line
        found += bool(expected)
    assert found >= len(CASES)  # the table really exercises the detectors


@pytest.mark.parametrize("url", [
    "https://admin:" + "Pw9xQ2rT7z" + "@docs.example.org:8443/guide?x=1",
    "https://docs.example.org/feed?access_token=" + "Zk3p9Q7wLm2xR8vT" + "#top",
    "https://" + GHP + "@github.com/org/repo.git",
    "https://docs.example.org/api?key=1&client_secret=" + "Qm4vL8sP2dX6n3Ty" + "&b=2",
    "https://hooks.slack.com/services/" + "T0A1B2C3D/B4E5F6G7H/" + "x9Y8z7W6v5U4t3S2r1Q0p9O8",  # a detector matching a whole URL
])
def test_redacted_urls_stay_urls(url: str) -> None:
    """A redacted URL still parses, with its host and port, and cites the same page (lint P3 matches it)."""
    from urllib.parse import urlsplit

    from synth.evidence.urls import url_key

    redacted, n = redact_text(url)
    assert n >= 1 and "REDACTED" in redacted and "[" not in redacted
    before, after = urlsplit(url), urlsplit(redacted)
    assert (after.scheme, after.hostname, after.port) == (before.scheme, before.hostname, before.port)
    assert after.path == before.path or after.path.endswith("REDACTED")
    url_key(redacted)


# Generic detection: a value with no vendor prefix, assigned to a name that says it is a credential.
GENERIC = "q8Zr2LmX7v" + "Kp4TnW9sYb3HdF6jQ1"
HEX_SECRET = "9f86d081884c7d65" + "9a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
UUID = "123e4567-e89b-" + "12d3-a456-426614174000"
SHA1 = "3f786850e387550f" + "dab836ed7e6dc881de23001b"
GENERIC_TRUE = [
    f"export SERVICE_TOKEN={GENERIC}", f"api_key: {GENERIC}", f'"clientSecret": "{GENERIC}"', f'const apiToken = "{GENERIC}";',
    f'sessionKey = "{GENERIC}"', f"STRIPE_SIGNING_KEY={GENERIC}", f"webhook_secret: {HEX_SECRET}",
    f"curl -H 'X-Api-Key: {GENERIC}' https://api.example.org/", f"GITLAB_AUTH={GENERIC}", "DB_PASS=" + "Xk29vLq7" + "Rt4mWz8N",
    f"token => '{GENERIC}'", f"MY_CREDENTIALS := {GENERIC}", f"refresh_token: {UUID}", f"SERVICE\\_TOKEN={GENERIC}",
    f"set SERVICE_TOKEN={GENERIC} && run", f"  client_secret = '{GENERIC}'  # rotate monthly",
]
GENERIC_FALSE = [
    "primary_key: user_account_identifier", f"cache_key: {SHA1}", "token_type: bearer_access_token",
    "TOKEN_URL=https://auth.example.org/oauth2/token", "password: ${DB_PASSWORD}", 'api_key = os.environ["OPENAI_API_KEY"]',
    "secret_name: my-app-secret-v2", "auth_method: client_credentials_flow", "keyboard_layout: us-international-2021",
    f"sha256: {SHA1}", "token_expiry: 2026-07-01T00:00:00Z", f"idempotency_key: {UUID}",
    "access_token: YOUR_ACCESS_TOKEN_HERE", "client_secret: <client-secret>", "session_key_prefix: skill3-session-2024",
    "key_id: abcdefghijklmnopqrstuvwxyz", "auth_header_name: X-Api-Key-Header-Name", "tokenizer: cl100k_base_tokenizer",
    "token_count: 1234567890123456", "KEYSPACE=analytics_events_2024_q3", "secret_ref: projects/my-project/secrets/db/versions/3",
    "pass_through_headers: Accept-Encoding-Gzip", "api_version: 2024-10-01-preview", "TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "password_min_length: 12345678901234567", "key: src/components/Button.tsx", f"commit: {SHA1}",
    f"The build {GENERIC} finished.", "Set `api_key` to the key from your dashboard.",
]


@pytest.mark.parametrize("line", GENERIC_TRUE)
def test_generic_keyword_and_entropy_secrets_are_redacted(line):
    out, n = redact_text(line)
    assert n == 1, out
    for secret in (GENERIC, HEX_SECRET, UUID, "Xk29vLq7Rt4mWz8N"):
        assert secret not in out


@pytest.mark.parametrize("line", GENERIC_FALSE)
def test_ordinary_identifiers_are_not_redacted(line):
    assert redact_text(line) == (line, 0)


def test_generic_detection_also_reaches_items():
    item = SourceItem(url="https://example.org/", excerpts=[f"Set it with export SERVICE_TOKEN={GENERIC} first."],
                      code_blocks=[{"text": f'{{"clientSecret": "{GENERIC}"}}', "language": "json"}])
    assert redact_item(item) == 2
    assert GENERIC not in item.excerpts[0] + item.code_blocks[0]["text"]



def _fields_one_by_one(title, excerpts, code_blocks):
    """redact_fields as each text alone gives it: what the page-wide pre-check must equal."""
    from synth.vet.redact import filename_for_language

    t, total = redact_text(title)
    out = []
    for e in excerpts:
        e, n = redact_text(e)
        out.append(e)
        total += n
    blocks = []
    for b in code_blocks:
        text, n = redact_text(b["text"], filename=filename_for_language(b.get("language", "")))
        blocks.append({**b, "text": text})
        total += n
    return t, out, blocks, total


_KEY_BLOCK = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1y2z3\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize("page", [
    # a page without any secret: returned as is, without testing each text
    ("Title", ["Intro paragraph.", "Plain prose about servers and clients."], [{"text": "ls -la", "language": "bash"}]),
    # secrets of several kinds spread over the texts, in prose and in code of several languages
    ("Keys", [c[0] for c in CASES[:8]], [{"text": c[0], "language": lang} for c, lang in zip(CASES[8:], ("python", "yaml", "bash", "json", ""))]),
    ("x", KEEP, [{"text": "\n".join(KEEP), "language": "python"}]),
    # a secret only in the title; one split by a markdown escape; credentials in a URL
    ("token ghp_" + "a" * 36, ["nothing here"], []),
    ("t", ["api\\_key = 'Zx9Qw8Er7Ty6Ui5Op4'", "https://user:pa55word@example.org/x"], []),
    # a private key block (replaced before the rest, per text as before)
    ("t", ["before", _KEY_BLOCK, "db_pass=Zx9" + "Qw8Er7Ty6"], [{"text": _KEY_BLOCK, "language": ""}]),
])
def test_page_wide_pre_check_changes_nothing(page):
    from synth.vet.redact import redact_fields

    title, excerpts, blocks = page
    assert redact_fields(title, excerpts, blocks) == _fields_one_by_one(title, excerpts, blocks)


def test_page_wide_pre_check_on_a_real_page_table():
    """Every case of this file's tables as one page, and each line as its own text."""
    from synth.vet.redact import redact_fields

    texts = [c[0] for c in CASES] + KEEP + (case_dir("06") / "s3-backup" / "SKILL.md").read_text().splitlines()
    got = redact_fields(texts[0], texts[1:], [{"text": t, "language": "yaml"} for t in texts[::3]])
    assert got == _fields_one_by_one(texts[0], texts[1:], [{"text": t, "language": "yaml"} for t in texts[::3]])
    assert got[3] >= len(CASES)


# --------------------------------------------------------------------------- vendor prefixes (round 4)
# Tokens with a vendor prefix (gitleaks' and detect-secrets' rule lists) in a sentence, in code, in a URL's query,
# markdown-escaped: each is redacted, the rest of the text kept. Assembled at run time: this file carries none.

_B62 = "Zq7Wx3Rt9Yp2Lk5Nm8Bv4Cd6Fh1Jg0Se"
PREFIXED = [
    ("stripe-webhook-secret", "whsec_" + _B62),
    ("slack-app-token", "xapp-1-" + "A01B2C3D4E5-" + "1234567890123-" + "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"),
    ("gitlab-token", "glpat-" + "xR4mZ9kQ2wL7vN1bT8yH"),
    ("pypi-token", "pypi-" + "AgEIcHlwaS5vcmc" + _B62 + _B62[:20]),
    ("databricks-token", "dapi" + "0123456789abcdef0123456789abcdef"),
    ("vault-token", "hvs." + (_B62 * 3)[:95]),
    ("linear-token", "lin_api_" + (_B62 * 2)[:40]),
    ("docker-token", "dckr_pat_" + _B62[:27]),
    ("groq-key", "gsk_" + (_B62 * 2)[:52]),
    ("google-oauth-secret", "GOCSPX-" + _B62[:28]),
    ("sentry-token", "sntrys_" + (_B62 * 2)[:48]),
    ("supabase-token", "sbp_" + "0123456789abcdef" * 2 + "01234567"),
]


@pytest.mark.parametrize("kind,token", PREFIXED, ids=[k for k, _ in PREFIXED])
@pytest.mark.parametrize("form", ["prose", "code", "url", "escaped", "quoted"])
def test_vendor_prefixed_tokens_are_redacted_everywhere(kind, token, form):
    text = {"prose": f"Sign the events with {token} before sending them.",
            "code": f"client = Client(token='{token}')",
            "url": f"https://hooks.example.org/in?signing={token}&retry=1",
            "escaped": "The key " + token.replace("_", "\\_") + " is rotated monthly.",
            "quoted": f'{{"secret": "{token}", "name": "alpha"}}'}[form]
    out, n = redact_text(text)
    assert n >= 1 and token not in out and token.replace("_", "\\_") not in out, out
    assert "REDACTED" in out and out[:7] == text[:7]  # the text around it is kept


@pytest.mark.parametrize("text", ["whsec_example is the placeholder the docs use", "set xapp-TOKEN here",
                                  "the glpat- prefix marks a GitLab token", "use the secret_key setting"])
def test_a_prefix_alone_is_not_a_secret(text):
    assert redact_text(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "nothing to see here — plain docs", "PASSWORD: hunter2xyz", "Contraseña = x", "CONTRASEÑA: x", "contrasena",
    "PA\u017fSWORD", "api_\u212aEY=1", "db_PASS", "the secret", "S3CRET", "priv key", "pwd\n", "\u0130 pwd",
    "paſs", "da\u0131abase_key",
])
def test_keyword_gate_on_the_folded_text_is_the_gate(text):
    """The keyword detector's gate, searched without ignoring case in the folded text, answers as the gate does."""
    from synth.core.literals import lowercase_gate as _lowercase_gate
    from synth.vet.redact import _detectors, _text_plugins

    (entry,) = [e for e in _detectors()[1] if e[2] is not None]
    assert _lowercase_gate(entry[2]) is not None  # the fast path is taken
    for t in (text, text.upper(), text.lower(), text.swapcase(), "x\n" * 3 + text):
        assert (entry in _text_plugins(t)) == bool(entry[2].search(t)), t


def test_folds_to_agrees_with_the_engine():
    """Where ``_folds_to`` says yes, the engine's case-insensitive matches of the character are exactly the characters
    ``folded_text`` turns into it (every code point)."""
    import re

    from synth.core.literals import folded_text
    from synth.core.literals import folds_to as _folds_to

    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    said = 0
    for ch in "ñéçøåσςßıſµæþ":
        if _folds_to(ch):
            said += 1
            engine = set(re.findall(re.escape(ch), every, re.IGNORECASE))
            assert engine == {x for x in every if x in engine or folded_text(x) == ch}, ch
    assert said >= 4


def _changes(texts: list[str]) -> list[dict]:
    """Change entries carrying ``texts`` in every field a change has: its text, heading path, API name and code."""
    return [{"text": t, "path": ["Section", t[:30]], "api": t.split()[0] if t.split() else "", "code": [{"text": t, "language": "python"}]}
            for t in texts]


@pytest.mark.parametrize("texts", [
    ["Plain prose about servers.", "New in version 3.7."],  # nothing that can match: every field kept as is
    ["api_key = 'Zx9Qw8Er7Ty6Ui5Op4'", "token ghp_" + "a" * 36, "https://user:pa55word@example.org/x"],
    ["before", _KEY_BLOCK, "db_pass=Zx9" + "Qw8Er7Ty6"],  # a private key block: each text scoped alone
    [c[0] for c in CASES],
])
@pytest.mark.parametrize("trusted", [True, False])
def test_change_entries_scoped_together_as_one_by_one(texts, trusted, monkeypatch):
    """The change entries' texts are tested together once (``shared_scope``), then each only with what matched: the
    same entries and count as each text scanned alone."""
    import skill3crawl.extract.versions.redaction as redaction

    excerpts = texts[::2]
    together = _changes(texts)
    n_together = redaction.redact_changes(together, excerpts, trusted)
    monkeypatch.setattr(redaction, "shared_scope", lambda texts: None)  # None: each text scoped alone
    alone = _changes(texts)
    assert (together, n_together) == (alone, redaction.redact_changes(alone, excerpts, trusted))
