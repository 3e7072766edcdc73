"""What SKILL.md leads with: the post-cutoff entries grouped by release series, each series' own highlights and
new features first, release by release (:func:`headline_entries`); the series and release keys
(:func:`line_release`, :func:`extends`) that the version list's folding of patch releases shares."""

from __future__ import annotations

from synth.delta.classify import LEADING
from synth.delta.ledger import Delta, Entry
from synth.delta.versions import parse_version

MAX_HEADLINES = 36


def line_release(version: str) -> tuple[str, tuple[int, ...], bool] | None:
    """("STDLIB", (4, 0), False) for "STDLIB 4.0", ("", (3, 11, 0), True) for "3.11.0rc1"; None without a version."""
    pv = parse_version(version)
    if pv is None:
        return None
    return (version.rsplit(" ", 1)[0] if " " in version.strip() else ""), pv.release, pv.is_prerelease


def extends(line: str, rel: tuple[int, ...], present: set[tuple[str, tuple[int, ...]]]) -> tuple[int, ...] | None:
    """The shortest release of ``line`` in ``present`` whose numbers ``rel`` extends (15.20 → 15), else None."""
    return next((rel[:n] for n in range(1, len(rel)) if (line, rel[:n]) in present), None)


def _family_key(e: Entry, present: set[tuple[str, tuple[int, ...]]]) -> tuple:
    """The release an entry's version belongs to: the shortest version present whose numbers it extends (15.20 →
    15, 3.11.2 → 3.11, Erts 13.0.1 → Erts 13.0), else its feature series (3.11.2 → 3.11)."""
    lr = line_release(e.version)
    if lr is None:
        return (e.version,)
    line, rel, _pre = lr
    key = extends(line, rel, present)
    if key is None:  # a release of its own ("15", "3.11"), else its feature series (3.11.2 → 3.11)
        key = rel[:2]
    return (line, *key) if line else key


def _series_groups(entries: list[Entry]) -> tuple[dict[tuple, list[Entry]], list[tuple], list[tuple]]:
    """Entries by release (a feature release and its patch releases); (groups, every release newest first with the
    cutoff month's own last, the others)."""

    # a release's numbers without trailing zeros: 18.0.0 opens the series 18 that 18.20.0 belongs to
    present = {(lr[0], _bare(lr[1])) for e in entries if (lr := line_release(e.version)) is not None and not lr[2]}
    groups: dict[tuple, list[Entry]] = {}
    for e in entries:
        groups.setdefault(_family_key(e, present), []).append(e)

    def edge(k: tuple) -> bool:
        return all(e.edge for e in groups[k])

    def newest(k: tuple) -> tuple:
        return tuple(-x for x in k if isinstance(x, int))

    order = sorted(groups, key=lambda k: (edge(k), newest(k)))
    return groups, order, [k for k in order if not edge(k)]


def _bare(rel: tuple[int, ...]) -> tuple[int, ...]:
    """``(18, 0, 0)`` → ``(18,)``, ``(3, 11, 0)`` → ``(3, 11)``: a release's numbers without trailing zeros."""
    while len(rel) > 1 and rel[-1] == 0:
        rel = rel[:-1]
    return rel


def _best_of_release(es: list[Entry], key: tuple = ()) -> list[Entry]:
    """A release's entries in lead order: its own highlights as it orders them, then the other leading sections in
    turn (features, breaking, deprecations, removals, behaviour, other), each by score; final releases before
    pre-releases; the release that opens the series (``key``: 18.0.0 of 18) before its later releases."""
    finals = [e for e in es if (pv := parse_version(e.version)) is None or not pv.is_prerelease]
    pool = finals or es
    want = _bare(tuple(x for x in key if isinstance(x, int)))
    opener = [e for e in pool if (lr := line_release(e.version)) is not None and want and _bare(lr[1]) == want]
    # else the release itself before its patch releases (the fewest version numbers first)
    depth = min((len(pv.release) for e in pool if (pv := parse_version(e.version)) is not None), default=0)
    own = opener or [e for e in pool if (pv := parse_version(e.version)) is None or len(pv.release) <= depth]
    return _lead_order(own) + _lead_order([e for e in pool if e not in own])


SECTION_TURNS = ("features", "breaking", "deprecations", "removals", "behaviour", "other")


def _lead_order(pool: list[Entry]) -> list[Entry]:
    """Highlights, then the features, breaking changes, deprecations, removals and behaviour changes the notes give a
    section of their own (each titled section's first entry), then the sections in turn: what the release's own notes
    state (a change page) before what only a marker on an API page says (the notes are the authors' choice of what
    matters in the release)."""
    hl, details = _highlights(sorted((e for e in pool if e.section == "highlights"), key=lambda e: e.order))
    rest = [e for e in pool if e.section != "highlights"]
    titled, notes = _titled_firsts([e for e in rest if e.change_page])
    markers = [e for e in rest if not e.change_page]
    if not hl and not any(e.section in ("features", "breaking") for e in titled + notes) and \
            any(e.section == "features" for e in markers):
        # "change pages" that state no feature (a reference of every deprecation, a section each) do not lead the
        # release's new features the API markers state: they take turns with them
        return _in_turns(titled + notes + markers, details, markers=True)
    return hl + titled + _in_turns(notes, details) + _in_turns(markers, [], markers=True)


TITLED_TURNS = ("features", "breaking", "deprecations", "removals", "behaviour")


def _titled_firsts(pool: list[Entry]) -> tuple[list[Entry], list[Entry]]:
    """(the first entry of each titled section, the others): where the notes give features (or breaking changes,
    deprecations, …) a section each under their kind's heading ("Enhancements → Styler", "→ from_dummies"), the
    sections are the release's own list of what matters; in the notes' order, kind by kind, the page with the longest
    list first. A page with fewer than two titled sections of a kind has no such list."""
    firsts: list[Entry] = []
    for kind in TITLED_TURNS:
        by_page: dict[str, list[Entry]] = {}
        seen: set[tuple] = set()
        for e in sorted((e for e in pool if e.section == kind and e.title), key=lambda e: e.order):
            k = (e.citations[0][0], e.headings)
            if k not in seen:
                seen.add(k)
                by_page.setdefault(e.citations[0][0], []).append(e)
        for _url, group in sorted(by_page.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            if len(group) >= 2:
                firsts += group
    chosen = {id(e) for e in firsts}
    return firsts, [e for e in pool if id(e) not in chosen]


def _in_turns(pool: list[Entry], details: list[Entry], markers: bool = False) -> list[Entry]:
    """The sections in turn, each by score. ``markers`` (whose page order is the API's layout, not an author's
    choice): of equal scores, a module's own object (``pkg.Model``) before a member of it (``pkg.Model.dump``,
    ``pkg.sub.helper``), and within a section the pages take turns, so one API page's many markers of a release
    (every parameter of one function) do not crowd out the other pages' equal ones."""
    by_section: dict[str, list[Entry]] = {}
    for e in sorted(pool, key=lambda e: (-e.score, e.api.count(".") if markers and e.api else 0, e.order)):
        by_section.setdefault(e.section, []).append(e)
    if markers:
        by_section = {k: _pages_in_turn(es) for k, es in by_section.items()}
    turns = [details] * bool(details) + [by_section[k] for k in SECTION_TURNS if k in by_section]
    return [t[i] for i in range(max(map(len, turns), default=0)) for t in turns if i < len(t)]


def _pages_in_turn(entries: list[Entry]) -> list[Entry]:
    """Entries of equal score with their pages taking turns (the first of each page, then the second, …); a better
    score still comes first."""
    out: list[Entry] = []
    i = 0
    while i < len(entries):
        j = i
        while j < len(entries) and entries[j].score == entries[i].score:
            j += 1
        rank: dict[str, int] = {}
        tier = []
        for e in entries[i:j]:
            page = e.citations[0][0]
            rank[page] = rank.get(page, -1) + 1
            tier.append((rank[page], e.order, e))
        out += [e for _r, _o, e in sorted(tier, key=lambda t: (t[0], t[1]))]
        i = j
    return out


def _opens(key: tuple, es: list[Entry]) -> bool:
    """Whether a release's group holds the release itself (``3.2`` for 3.2.x, ``18.0.0`` for 18), not only later
    maintenance releases of a series that opened before the cutoff (3.1.11 when 3.1 is known)."""
    want = _bare(tuple(x for x in key if isinstance(x, int)))
    return any((lr := line_release(e.version)) is not None and _bare(lr[1]) == want for e in es)


def _highlights(entries: list[Entry]) -> tuple[list[Entry], list[Entry]]:
    """(what leads, details that take turns with the other sections): a highlights list under one heading leads whole,
    in the release's order; highlights under several headings (a section per major feature) lead with each one's
    first entry, their further paragraphs are details."""
    if len({e.headings for e in entries}) < 2:
        return entries, []
    seen: set[tuple[str, ...]] = set()
    first: list[Entry] = []
    rest: list[Entry] = []
    for e in entries:
        (rest if e.headings in seen else first).append(e)
        seen.add(e.headings)
    return first, rest


def headline_entries(delta: Delta, limit: int = MAX_HEADLINES) -> list[Entry]:
    """What SKILL.md leads with: each post-cutoff feature series' own highlights when it has them, else its top
    entries by kind and evidence, newest series first; maintenance releases of series that opened before the cutoff
    (their fixes and one-line notes), and a series released in the cutoff month itself (partly known), only fill what
    room is left; bug fixes, security one-liners, docs and internal entries never lead."""
    leading = [e for e in delta.post if e.section in LEADING and not e.internal]
    groups, order, fresh = _series_groups(leading)
    new = [k for k in fresh if _opens(k, groups[k])] or fresh
    # a series opened by its major release (18.0.0: every 18.x in it) before the minors of another line; else newest first
    new.sort(key=lambda k: len(_bare(tuple(x for x in k if isinstance(x, int)))))
    later = [k for k in fresh if k not in new]
    share = max(6, limit // max(1, len(new)))
    chosen: list[Entry] = []
    seen: set[int] = set()
    # each new series its share, then the rest of the new ones, then maintenance releases, then the cutoff month's own
    for keys, n in ((new, share), (new, limit), (later, limit), ([k for k in order if k not in fresh], limit)):
        for k in keys:
            for e in _best_of_release(groups[k], k)[:n]:
                if len(chosen) >= limit:
                    return chosen
                if id(e) not in seen:
                    chosen.append(e)
                    seen.add(id(e))
    return chosen
