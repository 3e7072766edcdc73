"""Reading a release archive (sdist, wheel, npm tarball, crate) as untrusted input, within bounds.

Nothing is extracted to disk and nothing in an archive is executed: :func:`read_archive` walks the members
in memory and keeps the bytes of those ``wanted`` says it wants. The whole archive is refused
(:class:`ArchiveError`, one line) when it is larger than the download cap, has more members than the member
cap, declares more unpacked bytes than the unpacked cap (a decompression bomb: checked on the declared sizes
before any member is read, and a zip member's compression ratio too), names a path outside itself (absolute,
``..``, a drive letter), holds a device or FIFO, a link that points outside it, or takes longer than its time
budget. tar members are judged by :func:`tarfile.data_filter` (the extraction filter of PEP 706); links that
stay inside are skipped, never followed.
"""

from __future__ import annotations

import io
import posixpath
import stat
import tarfile
import time
import zipfile
from dataclasses import dataclass, field
from functools import partial
from typing import IO, Callable

from synth.core import default_settings
from synth.core.errors import ArchiveError  # noqa: F401 - defined with every error (synth.core.errors)

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    max_download: int = default_settings.SKILL3_PACKAGE_MAX_BYTES  # the archive itself
    max_unpacked: int = default_settings.SKILL3_PACKAGE_MAX_UNPACKED  # every member's declared size, summed
    max_members: int = default_settings.SKILL3_PACKAGE_MAX_MEMBERS
    max_member: int = 4 * MiB  # a member kept (larger wanted members are skipped, counted)
    max_kept: int = 64 * MiB  # the bytes kept, summed
    max_ratio: int = 200  # a zip member's unpacked / compressed size (past 1 MiB unpacked)
    seconds: float = default_settings.SKILL3_PACKAGE_SECONDS


@dataclass
class Archive:
    """What was read: ``files`` (path inside the archive, its top folder removed → bytes) and counts."""

    files: dict[str, bytes] = field(default_factory=dict)
    members: int = 0
    unpacked: int = 0
    links_skipped: int = 0
    too_large: int = 0
    top: str = ""  # the top folder removed (``attrs-22.2.0``, ``package``), "" when there is none
    firsts: set[str] = field(default_factory=set, repr=False)  # first folders of the files
    flat: bool = field(default=False, repr=False)  # a file outside any folder


def archive_kind(data: bytes) -> str | None:
    """``tar`` (gzip, bzip2, xz or plain) or ``zip`` from the first bytes; None for anything else."""
    if data[:4] == b"PK\x03\x04":
        return "zip"
    if data[:2] == b"\x1f\x8b" or data[:3] == b"BZh" or data[:6] == b"\xfd7zXZ\x00" or data[257:262] == b"ustar":
        return "tar"
    return None


def safe_member_path(name: str) -> str:
    """The member's path, normalised; :class:`ArchiveError` when it could land outside the archive."""
    if "\x00" in name or "\\" in name:
        raise ArchiveError(f"member {name[:80]!r} has a backslash or NUL in its name")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"member {name[:80]!r} has an absolute path")
    norm = posixpath.normpath(name)
    if norm == ".." or norm.startswith("../"):
        raise ArchiveError(f"member {name[:80]!r} points outside the archive (path traversal)")
    return "" if norm == "." else norm


def read_archive(data: bytes, wanted: Callable[[str], bool], limits: Limits = Limits()) -> Archive:
    """The wanted members of an archive (paths relative to its top folder), or :class:`ArchiveError`."""
    if len(data) > limits.max_download:
        raise ArchiveError(f"archive is {len(data) // MiB} MiB, over the {limits.max_download // MiB} MiB cap")
    kind = archive_kind(data)
    if kind is None:
        raise ArchiveError("not a tar or zip archive")
    deadline = time.monotonic() + limits.seconds
    try:
        return _read_zip(data, wanted, limits, deadline) if kind == "zip" else _read_tar(data, wanted, limits, deadline)
    except ArchiveError:
        raise
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
        raise ArchiveError(f"unreadable {kind} archive ({type(exc).__name__}: {str(exc)[:120]})") from None


def _tick(out: Archive, limits: Limits, deadline: float, size: int, path: str, is_file: bool) -> None:
    if is_file and "/" in path:
        out.firsts.add(path.split("/", 1)[0])
    elif is_file:
        out.flat = True
    out.members += 1
    out.unpacked += max(0, size)
    if out.members > limits.max_members:
        raise ArchiveError(f"more than {limits.max_members:,} members")
    if out.unpacked > limits.max_unpacked:
        raise ArchiveError(f"unpacks to more than {limits.max_unpacked // MiB} MiB (a decompression bomb?)")
    if time.monotonic() > deadline:
        raise ArchiveError(f"not read within {limits.seconds:g} s")


def _keep(out: Archive, path: str, body: bytes, limits: Limits) -> None:
    if sum(map(len, out.files.values())) + len(body) > limits.max_kept:
        out.too_large += 1
        return
    out.files[path] = body


def _read_tar(data: bytes, wanted: Callable[[str], bool], limits: Limits, deadline: float) -> Archive:
    out = Archive()
    raw: list[tuple[str, bytes]] = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tf:
        while True:
            member = tf.next()
            if member is None:
                break
            path = safe_member_path(member.name)
            _tick(out, limits, deadline, member.size, path, member.isfile())
            if member.isdev() or member.isfifo() or member.ischr() or member.isblk():
                raise ArchiveError(f"member {member.name[:80]!r} is a device or FIFO")
            if member.issym() or member.islnk():
                try:
                    tarfile.data_filter(member, "/skill3-archive")  # a link out of the archive is refused
                except tarfile.FilterError as exc:
                    raise ArchiveError(f"member {member.name[:80]!r} is a link outside the archive ({exc})") from None
                out.links_skipped += 1
                continue
            if not member.isfile() or not path:
                continue
            _take(out, raw, path, member.size, partial(tf.extractfile, member), wanted, limits)
    _finish(out, raw, wanted, limits)
    return out


def _read_zip(data: bytes, wanted: Callable[[str], bool], limits: Limits, deadline: float) -> Archive:
    out = Archive()
    raw: list[tuple[str, bytes]] = []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        if len(infos) > limits.max_members:
            raise ArchiveError(f"more than {limits.max_members:,} members")
        if sum(i.file_size for i in infos) > limits.max_unpacked:
            raise ArchiveError(f"unpacks to more than {limits.max_unpacked // MiB} MiB (a decompression bomb?)")
        for info in infos:
            path = safe_member_path(info.filename)
            _tick(out, limits, deadline, info.file_size, path, not info.is_dir())
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveError(f"member {info.filename[:80]!r} is a symbolic link")
            if mode and (stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode)):
                raise ArchiveError(f"member {info.filename[:80]!r} is a device or FIFO")
            if info.file_size > MiB and info.file_size > limits.max_ratio * max(1, info.compress_size):
                raise ArchiveError(f"member {info.filename[:80]!r} expands {info.file_size // max(1, info.compress_size)}-fold "
                                   "(a decompression bomb?)")
            if info.is_dir() or not path:
                continue
            _take(out, raw, path, info.file_size, partial(zf.open, info), wanted, limits)
    _finish(out, raw, wanted, limits)
    return out


def _take(out: Archive, raw: list[tuple[str, bytes]], path: str, size: int, opener: Callable[[], IO[bytes] | None],
          wanted: Callable[[str], bool], limits: Limits) -> None:
    """A wanted member's bytes into ``raw`` when it is within the member cap (declared and read), else counted in
    ``too_large``; ``opener`` is called only for a wanted member of a declared size within the cap."""
    if not (wanted(_strip_guess(path)) or wanted(path)):
        return
    body = None
    if size <= limits.max_member:
        fh = opener()
        if fh is not None:
            with fh:
                body = fh.read(limits.max_member + 1)
    if body is None or len(body) > limits.max_member:
        out.too_large += 1
    else:
        raw.append((path, body))


def _strip_guess(path: str) -> str:
    """The path without its first folder (an sdist's ``name-version/``, npm's ``package/``)."""
    return path.split("/", 1)[1] if "/" in path else path


def _finish(out: Archive, raw: list[tuple[str, bytes]], wanted: Callable[[str], bool], limits: Limits) -> None:
    """Paths made relative to the archive's top folder when every kept member is under one."""
    top = next(iter(out.firsts)) if len(out.firsts) == 1 and not out.flat else ""
    out.top = top
    for path, body in raw:
        rel = path[len(top) + 1:] if top else path
        if wanted(rel):
            _keep(out, rel, body, limits)
