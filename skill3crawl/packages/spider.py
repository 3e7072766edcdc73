"""The package source in the ``learn`` spider: release archives → pages and API change entries (thin adapter).

Once the registries named the topic's package (:mod:`skill3crawl.discovery.official`), :meth:`PackageSourceMixin.
package_requests` asks for the archives :func:`~skill3crawl.packages.artifacts.select_releases` picks; each answer is
read within bounds (:mod:`.archive`, off the reactor thread). The newest release's change records, README and docs
pages become items (official, authority 1.0, dated by the registry's upload time of that release; their URL is the
archive's URL and the file's path in it); once every archive is in, the API delta of the releases read runs as a
child process (:mod:`.apidelta`, within ``SKILL3_PACKAGE_API_SECONDS``) and each public module with changes becomes
one item whose change entries are the API's. ``crawl.json`` (and so ``run.json``) records the archives and files
under ``package_source``. A registry answer, archive or API delta that fails is one warning; the run goes on.
"""

from __future__ import annotations

import asyncio
import hashlib
import html as html_lib
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import scrapy

from skill3crawl.crawl_record import get_state
from skill3crawl.items import FetchedPage, PageItem
from skill3crawl.packages import artifacts
from skill3crawl.packages.archive import Archive, ArchiveError, Limits, read_archive
from skill3crawl.packages.changelog import release_naming, series_sections, version_sections
from skill3crawl.packages.files import API_ROLES, file_role, page_html, wanted
from synth.core import default_settings
from synth.core.errors import ApiDeltaError
from synth.delta.model import MAX_ENTRY_CHARS, ChangeRecord

logger = logging.getLogger(__name__)

MAX_PACKAGE_PAGES = default_settings.SKILL3_PACKAGE_PAGES  # pages of the newest archive (change records first, then README, docs)
API_SECONDS = default_settings.SKILL3_PACKAGE_API_SECONDS  # the API delta's child process
ROLE_ORDER = {"changes": 0, "readme": 1, "docs": 2}
API_LABEL = "from the package's public API"


def _short(signature: str, limit: int = 140) -> str:
    return signature if len(signature) <= limit else signature[: limit - 1].rstrip(", ") + "…"


def api_entry(c: dict[str, Any], package: str, dates: dict[str, str], since: str | None = None,
              named_in: str | None = None) -> dict[str, Any]:
    """One API change as a change entry of the item (``synth.evidence.item.SourceItem.changes``). ``since``: the release
    read before the entry's, when releases between the two were not read (the change is in one of them or in its own);
    ``named_in``: the release in that gap whose changelog section names the object (the entry's version then)."""
    name = c["path"]
    version = named_in or c["version"]
    if c["kind"] == "added":
        text = f"`{_short(c['after'])}` is new ({API_LABEL})."
    elif c["kind"] == "removed":
        text = f"`{_short(c['before'])}` is removed ({API_LABEL})."
    else:
        now = f"; now `{_short(c['after'])}`" if c["after"] else ""
        text = f"`{name}` changed: {c['detail']}{now} ({API_LABEL})."
    if named_in:
        text += f" Its release is {named_in}: the changelog names it there (the API was compared at {since} and {c['version']})."
    elif since:
        text += f" First seen in {c['version']} of the releases read (it may come from a release after {since})."
    if c.get("doc"):
        text += f' "{c["doc"]}"'
    return ChangeRecord(kind=c["kind"], version=version, text=text[:MAX_ENTRY_CHARS], date=dates.get(version),
                        heading=f"{package} API: {c['module']}", path=(f"{package} API", c["module"]), api=name).to_json()


def api_page(package: str, module: str, entries: list[dict[str, Any]], span: str,
             signatures: list[str] | None = None) -> str:
    """The module's API changes as a page (its excerpts; the entries themselves are given, not re-extracted), each
    with its full signature."""
    sigs = signatures or [""] * len(entries)
    rows = "".join(f"<li>{html_lib.escape(e['kind'].capitalize())} in {html_lib.escape(e['version'])}: "
                   f"{html_lib.escape(e['text'])}" + (f"<pre><code>{html_lib.escape(s)}</code></pre>" if s else "") + "</li>"
                   for e, s in zip(entries, sigs))
    title = f"{package} {module}: API changes {span}"
    return (f"<!doctype html><html><head><title>{html_lib.escape(title)}</title></head><body><main>"
            f"<h1>{html_lib.escape(title)}</h1><p>What the public API of <code>{html_lib.escape(module)}</code> gained, lost and "
            f"changed between the releases {html_lib.escape(span)}, {API_LABEL} (read statically from the release archives)."
            f"</p><ul>{rows}</ul></main></body></html>")


class PackageSourceMixin:
    """Release archives as sources (uses ``args``, ``crawler``, ``settings``, ``_item``, ``_room``, ``items_yielded``)."""

    def packages_enabled(self) -> bool:
        a = self.args
        return bool(a is not None and a.packages and a.corpus is None and a.role != "worker")

    def _limits(self) -> Limits:
        s = self.settings
        return Limits(max_download=s.getint("SKILL3_PACKAGE_MAX_BYTES", Limits.max_download),
                      max_unpacked=s.getint("SKILL3_PACKAGE_MAX_UNPACKED", Limits.max_unpacked),
                      max_members=s.getint("SKILL3_PACKAGE_MAX_MEMBERS", Limits.max_members),
                      seconds=s.getfloat("SKILL3_PACKAGE_SECONDS", Limits.seconds))

    def package_requests(self, pkg: Any, body: bytes, registry_url: str) -> Iterator[scrapy.Request]:
        """The archives of ``pkg``'s baseline and later releases (none when the package has no release after the cutoff)."""
        a = self.args
        state = get_state(self.crawler)
        record: dict[str, Any] = {"package": pkg.label, "baseline": None, "archives": [], "files": [], "api": None, "warnings": []}
        state.package_source = record
        refs = artifacts.ARCHIVES[pkg.ecosystem](body, registry_url)
        sel = artifacts.select_releases(refs, a.cutoff.start, a.scope.since_version,
                                        self.settings.getint("SKILL3_PACKAGE_ARCHIVES", artifacts.MAX_ARCHIVES))
        record["baseline"] = sel.baseline.version if sel.baseline else None
        record["releases_after"] = [r.version for r in sel.after]
        record["releases_not_read"] = sel.skipped_after
        if not sel.after:
            logger.info("skill3: %s has no release archive after the cutoff: no package source", pkg.label)
            return
        self._pkg = {"label": pkg.label, "name": pkg.name, "sel": sel, "pending": len(sel.refs), "read": {}, "t0": time.monotonic(),
                     "dates": {r.version: r.date for r in refs}}
        logger.info("skill3: reading %d release archive(s) of %s: %s", len(sel.refs), pkg.label,
                    ", ".join(r.version + (" (baseline)" if r is sel.baseline else "") for r in sel.refs))
        limits = self._limits()
        for ref in sel.refs:
            yield scrapy.Request(
                ref.url, callback=self.parse_archive, errback=self.archive_failed, dont_filter=True, priority=5,
                headers={"Accept-Encoding": "identity"},  # the archive's own bytes: its checksum is the registry's
                cb_kwargs={"ref": ref}, meta={"skill3_kind": "archive", "skill3_api": True,
                                              "download_maxsize": limits.max_download, "download_warnsize": 0,
                                              "skill3_archive": ref},
            )

    def _record(self) -> dict[str, Any]:
        """crawl.json's ``package_source`` (set by :meth:`package_requests` before any archive is asked for)."""
        record = get_state(self.crawler).package_source
        assert record is not None
        return record

    def _warn(self, line: str) -> None:
        logger.warning("skill3: %s", line)
        rec = getattr(get_state(self.crawler), "package_source", None)
        if rec is not None:
            rec["warnings"].append(line)
        self.crawler.stats.inc_value("skill3/package/warnings")

    async def parse_archive(self, response: Any, ref: artifacts.ArchiveRef) -> AsyncIterator[Any]:
        data = response.body
        pkg = self._pkg
        is_newest = ref == pkg["sel"].newest  # equal, not identical: a request may come back from a disk queue
        record = self._record()
        entry = {**ref.as_dict(), "bytes": len(data), "read": False}
        record["archives"].append(entry)
        if ref.sha256 and hashlib.sha256(data).hexdigest() != ref.sha256:
            self._warn(f"{pkg['label']} {ref.version}: {ref.filename} does not match the registry's sha256: not read")
        else:
            try:
                archive = await asyncio.to_thread(read_archive, data, lambda p: wanted(p, api=True), self._limits())
            except ArchiveError as exc:
                self._warn(f"{pkg['label']} {ref.version}: archive {ref.filename} refused: {exc}")
            else:
                entry.update(read=True, members=archive.members, links_skipped=archive.links_skipped,
                             files_kept=len(archive.files))
                pkg["read"][ref.version] = archive
                self.crawler.stats.inc_value("skill3/package/archives")
                if is_newest:
                    for item in self._archive_items(ref, archive):
                        yield item
        async for item in self._settle():
            yield item

    async def archive_failed(self, failure: Any) -> AsyncIterator[Any]:
        ref = failure.request.meta.get("skill3_archive")
        why = failure.getErrorMessage()[:160] or type(failure.value).__name__
        if hasattr(failure.value, "response") and getattr(failure.value.response, "status", None):
            why = f"HTTP {failure.value.response.status}"
        self._warn(f"{self._pkg['label']} {ref.version if ref else ''}: archive not fetched ({why}): going on without it")
        async for item in self._settle():
            yield item

    async def _settle(self) -> AsyncIterator[Any]:
        pkg = self._pkg
        pkg["pending"] -= 1
        if pkg["pending"] > 0:
            return
        async for item in self._api_items():
            yield item
        self._record()["seconds"] = round(time.monotonic() - pkg["t0"], 2)

    def _archive_items(self, ref: artifacts.ArchiveRef, archive: Archive) -> Iterator[PageItem]:
        pkg = self._pkg
        record = self._record()
        state = get_state(self.crawler)
        state.official.setdefault(_prefix(ref.url), f"{pkg['label']} release archive")
        files = sorted(((file_role(p), p) for p in archive.files if file_role(p) in ROLE_ORDER), key=lambda t: (ROLE_ORDER[t[0] or ""], t[1]))
        baseline = pkg["sel"].baseline
        pages = [page for role, path in files
                 for page in self._file_pages(ref, role, path, archive.files[path], baseline.version if baseline else None)]
        cap = self.settings.getint("SKILL3_PACKAGE_PAGES", MAX_PACKAGE_PAGES)
        for version, role, path, url, body in pages[:cap]:
            if not self._room():
                self.crawler.stats.inc_value("skill3/discovery/over_budget")
                break
            title = f"{pkg['name']} {version}: {path}"
            html = page_html(path, body, title)
            record["files"].append({"version": version, "path": path, "role": role, "url": url})
            self.crawler.stats.inc_value("skill3/pages_fetched")
            self.crawler.stats.inc_value("skill3/discovery/package")
            self.items_yielded += 1
            item = self._item(FetchedPage(url, url, html, "package", title_hint=title,
                                          date_hint=pkg["dates"].get(version) or ref.date))
            item.date_hint_source = "registry"
            yield item
        if len(pages) > cap:
            record["files_not_read"] = len(pages) - cap

    def _file_pages(self, ref: artifacts.ArchiveRef, role: str | None, path: str, body: bytes,
                    baseline: str | None) -> list[tuple[str, str | None, str, str, bytes]]:
        """(version, role, path, URL, bytes) of the pages one file makes: a change record, one page per release series
        after the baseline (its first release's version and registry date; a long changelog's newest releases would
        otherwise fill a page's entries before the series that opened after the cutoff is reached); any other file,
        one page of the newest release."""
        url = f"{ref.url.split('?', 1)[0].split('#', 1)[0]}/{path}"
        if role == "changes" and baseline:
            parts = series_sections(body.decode("utf-8", "replace"), list(self._pkg["dates"]), baseline)
            if parts:
                return [(first, role, path, f"{url}?release={first}", chunk.encode()) for first, chunk in parts]
        return [(ref.version, role, path, url, body)]

    def _change_sections(self, newest: artifacts.ArchiveRef, versions: list[str]) -> list[tuple[str, str]]:
        """The version sections of the newest archive's change records (to place API changes in unread releases)."""
        return _sections_of(self._pkg["read"].get(newest.version), versions)

    async def _api_items(self) -> AsyncIterator[PageItem]:
        pkg = self._pkg
        sel = pkg["sel"]
        record = self._record()
        read = [r for r in sel.refs if r.version in pkg["read"]]
        if sel.baseline is None or sel.baseline.version not in pkg["read"] or len(read) < 2:
            record["api"] = {"status": "skipped", "reason": "the baseline and a later release are both needed"}
            return
        if not any(file_role(p) in API_ROLES for p in pkg["read"][read[-1].version].files):
            record["api"] = {"status": "skipped", "reason": "no Python sources or TypeScript declarations in the archives"}
            return
        seconds = self.settings.getfloat("SKILL3_PACKAGE_API_SECONDS", API_SECONDS)
        t0 = time.monotonic()
        try:
            result = await asyncio.to_thread(run_api_delta, pkg["name"], [(r.version, pkg["read"][r.version]) for r in read], seconds)
        except (ApiDeltaError, OSError) as exc:
            self._warn(f"{pkg['label']}: API delta not computed ({exc})")
            record["api"] = {"status": "failed", "reason": str(exc)}
            return
        if result.get("skipped"):
            record["api"] = {"status": "skipped", "reason": result["skipped"], "objects": result.get("objects")}
            logger.info("skill3: %s: API delta skipped (%s)", pkg["label"], result["skipped"])
            return
        changes = result.get("changes") or []
        record["api"] = {"status": "done", "releases": [r.version for r in read], "objects": result.get("objects"),
                         "changes": len(changes), "seconds": round(time.monotonic() - t0, 2)}
        newest = read[-1]
        span = f"{read[0].version} → {newest.version}"
        by_module: dict[str, list[dict[str, Any]]] = {}
        signatures: dict[str, list[str]] = {}
        gaps = read_gaps([r.version for r in read], list(pkg["dates"]))
        sections = self._change_sections(newest, list(pkg["dates"]))
        for c in changes:
            since = gaps.get(c["version"])
            named = release_naming(sections, c["path"], since, c["version"]) if since else None
            by_module.setdefault(c["module"], []).append(api_entry(c, pkg["name"], pkg["dates"], since, named))
            signatures.setdefault(c["module"], []).append(c["after"] or c["before"])
        get_state(self.crawler).official.setdefault(_prefix(newest.url), f"{pkg['label']} release archive")
        # the package itself (`attrs`) before its submodules, then the modules with the most changes
        for module, entries in sorted(by_module.items(), key=lambda kv: (kv[0].count("."), -len(kv[1]), kv[0])):
            if not self._room():
                self.crawler.stats.inc_value("skill3/discovery/over_budget")
                break
            url = f"{newest.url.split('?', 1)[0].split('#', 1)[0]}/api/{module}"
            self.crawler.stats.inc_value("skill3/discovery/package")
            self.crawler.stats.inc_value("skill3/package/api_changes", len(entries))
            self.items_yielded += 1
            item = self._item(FetchedPage(url, url, api_page(pkg["name"], module, entries, span, signatures[module]), "package",
                                          title_hint=f"{pkg['name']} {module}: API changes {span}", date_hint=newest.date))
            item.date_hint_source = "registry"
            item.given_changes = entries[:1000]
            record["files"].append({"version": newest.version, "path": f"api/{module}", "role": "api", "url": url,
                                    "entries": len(entries)})
            yield item


def _sections_of(archive: Archive | None, versions: list[str]) -> list[tuple[str, str]]:
    if archive is None:
        return []
    out: list[tuple[str, str]] = []
    for path, body in archive.files.items():
        if file_role(path) == "changes":
            out += version_sections(body.decode("utf-8", "replace"), versions)
    return out


def read_gaps(read: list[str], every: list[str]) -> dict[str, str]:
    """Release read → the release read before it, when final releases between the two were not read."""
    from synth.delta.versions import parse_version

    parsed = sorted((v for v in (parse_version(x) for x in every) if v is not None and not v.is_prerelease))
    out = {}
    for before, this in zip(read, read[1:]):
        lo, hi = parse_version(before), parse_version(this)
        if lo is not None and hi is not None and any(lo < v < hi for v in parsed):
            out[this] = before
    return out


def _prefix(url: str) -> str:
    """The official-source prefix (``host/path``) of an archive URL: the archive and the files under it."""
    from urllib.parse import urlsplit

    p = urlsplit(url)
    return f"{(p.hostname or '').lower()}{p.path}"


def run_api_delta(name: str, releases: list[tuple[str, Archive]], seconds: float) -> dict[str, Any]:
    """The API delta of the releases (oldest first) in a child process: their Python files written to a private
    temporary folder (paths already checked by :func:`~skill3crawl.packages.archive.safe_member_path`), then
    ``python -m skill3crawl.packages.apidelta`` with a time limit. Nothing of the package is imported."""
    with tempfile.TemporaryDirectory(prefix="skill3-api-") as tmp:
        args = [sys.executable, "-P", "-s", "-B", "-m", "skill3crawl.packages.apidelta", name]
        cwd = Path(tmp) / "cwd"
        cwd.mkdir()
        for version, archive in releases:
            root = Path(tmp) / hashlib.sha1(version.encode()).hexdigest()[:12]
            for path, body in archive.files.items():
                if file_role(path) not in API_ROLES:
                    continue
                target = (root / path).resolve()
                if not str(target).startswith(str(root.resolve()) + os.sep):
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(body)
            root.mkdir(parents=True, exist_ok=True)
            args.append(f"{version}={root}")
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL")}  # nothing else of the crawl's
        env.update(PYTHONPATH=str(Path(__file__).resolve().parents[2]), PYTHONDONTWRITEBYTECODE="1")
        try:
            done = subprocess.run(args, capture_output=True, timeout=seconds, env=env, cwd=cwd, check=False)
        except subprocess.TimeoutExpired:
            raise ApiDeltaError(f"not done within {seconds:g} s (SKILL3_PACKAGE_API_SECONDS)") from None
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise ApiDeltaError(f"exit {done.returncode}: {tail[0][:160]}")
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        raise ApiDeltaError("unreadable output") from None
