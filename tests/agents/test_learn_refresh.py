"""`skill3 learn` twice into one folder against a loopback docs site that sends ETag and Last-Modified: the
second learn revalidates what it fetched (conditional requests, seen in the server's log), downloads only the
page that changed, and its diff names what that page added."""

from __future__ import annotations

import hashlib
import json

from tests.harness import skill3
from tests.mockserver import CHANGELOG_MD, MockServer, bind, change_site

FAST = ["-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=0", "-s", "SKILL3_JS=never", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8"]
ENV = {"SKILL3_ALLOW_PRIVATE_NETWORKS": "1"}
LAST_MODIFIED = "Mon, 05 Oct 2026 10:00:00 GMT"
NEW_RELEASE = """## [3.1.0] - 2026-09-30

### Added
- `frob.batch()` sends many frames to a channel in one call.

"""


class ValidatingSite(MockServer):
    """``change_site`` with an ETag (the body's hash) and a Last-Modified on every page; a request whose
    If-None-Match names the current ETag gets 304 and no body."""

    def __init__(self) -> None:
        super().__init__()
        self.table = bind(change_site(), self.url)
        self.routes = self.answer_page

    def answer_page(self, srv, host, path, query, body):
        status, ctype, payload = self.table.get(path, (404, "text/plain", b"not found"))
        etag = '"' + hashlib.sha256(payload).hexdigest()[:16] + '"'
        headers = {"Content-Type": ctype, "ETag": etag, "Last-Modified": LAST_MODIFIED}
        if status == 200 and self.request.headers.get("If-None-Match") == etag:
            return 304, headers, b""
        return status, headers, payload


def learn(out, site):
    return skill3("learn", "frob", "--start-urls", f"{site.url}/docs/", "--cutoff-time", "2026-01", "--output-dir", str(out),
                  "--llm-provider", "extractive", "--no-fail-on-findings", *FAST, env=ENV, timeout=240)


def test_a_refresh_revalidates_and_refetches_only_what_changed(tmp_path):
    out = tmp_path / "frob"
    with ValidatingSite() as site:
        first = learn(out, site)
        assert first.returncode == 0, first.stderr[-3000:]
        fetched = {s.path for s in site.seen if s.path in site.table}  # the pages that answered 200 (404s are not cached)
        skill_md = (out / "frob" / "SKILL.md").read_bytes()
        assert not any("If-None-Match" in s.headers for s in site.seen if s.path != "/robots.txt")  # (read twice per crawl)
        assert len(fetched) >= 10

        # nothing changed on the site: conditional requests only, every one answered 304; the skill is untouched
        n = len(site.seen)
        second = learn(out, site)
        assert second.returncode == 0, second.stderr[-3000:]
        again = site.seen[n:]
        pages = [s for s in again if s.path in fetched]
        assert {s.path for s in pages} == fetched and all(s.headers.get("If-None-Match") and s.headers.get("If-Modified-Since") == LAST_MODIFIED
                             for s in pages)
        assert (out / "frob" / "SKILL.md").read_bytes() == skill_md
        assert "unchanged" in second.stdout and not (out / ".history").exists()
        rec = json.loads((out / "run.json").read_text())["refresh"]
        assert rec["status"] == "unchanged" and rec["crawl"]["revalidate"] >= len(fetched) - 1

        # the changelog gets a new release: only that page is downloaded again; the diff names its claim
        site.table["/docs/CHANGELOG.md"] = (200, "text/markdown; charset=utf-8",
                                            CHANGELOG_MD.replace("## [3.0.0]", NEW_RELEASE + "## [3.0.0]", 1).encode())
        n = len(site.seen)
        third = learn(out, site)
        assert third.returncode == 0, third.stderr[-3000:]
    rec = json.loads((out / "run.json").read_text())["refresh"]
    assert rec["crawl"]["invalidate"] == 1  # the one changed page came back 200 and was stored anew
    assert rec["status"] == "refreshed" and (rec["previous_version"], rec["version"]) == ("1.0.0", "1.1.0")
    assert (out / ".history" / "1.0.0" / "frob" / "SKILL.md").read_bytes() == skill_md
    added = " ".join(c["text"] for c in rec["diff"]["claims"]["added"])
    assert "frob.batch()" in added, rec["diff"]
    assert "frob.batch()" in third.stdout
