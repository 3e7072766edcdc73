"""A synthesis run's inputs, resolved in one pass: the options checked, ``crawl.json`` read once, the
run.jsonl items read once (only as far as the first values still needed: a URL, the topic, the cutoff),
then the topic, target model, cutoff, "today", output folder and context size decided."""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from synth.core.errors import SynthFailure
from synth.delta.scope import Scope, resolve_scope
from synth.evidence.cutoff import Cutoff, CutoffError
from synth.llm.model import LLMError
from synth.llm.registry import check_provider
from synth.pipeline.bundle import BundleError, iter_items, rank_sources
from synth.pipeline.options import DEFAULT_CONTEXT_TOKENS, MIN_CONTEXT_TOKENS, SynthOptions


@dataclass(frozen=True)
class CrawlRecord:
    """``crawl.json`` beside the first run.jsonl (``meta`` empty when absent or unreadable) and where it is."""

    meta: dict[str, Any] = field(default_factory=dict)
    path: str | None = None

    def arg(self, key: str) -> Any:
        """A crawl argument: ``args[key]`` when set, else the top-level ``key``."""
        args: dict = self.meta["args"] if isinstance(self.meta.get("args"), dict) else {}
        return args.get(key) if args.get(key) not in (None, "") else self.meta.get(key)

    @property
    def queries(self) -> list[str]:
        """The search queries the crawl ran (or planned)."""
        queries = self.meta.get("queries") or self.meta.get("planned_queries") or []
        return queries if isinstance(queries, list) else []


@dataclass(frozen=True)
class Inputs:
    """Everything the run reads or decides before ranking."""

    paths: tuple[str, ...]
    crawl: CrawlRecord
    topic: str
    scope: Scope  # the cutoff, the target model and the since-version (synth.delta.scope.resolve_scope)
    today: str
    out_dir: Path
    context_tokens: int
    llm_timeout: float = 300.0
    llm_total_timeout: float = 3600.0

    @property
    def cutoff(self) -> Cutoff:
        """The resolved cutoff."""
        return self.scope.cutoff

    @property
    def target_model(self) -> str:
        """The model the skill is for (the cutoff table's default when none was given nor recorded)."""
        return self.scope.target_model

    @property
    def since_version(self) -> str | None:
        """The newest version the target model knows (``--since-version``, else the crawl's), or None."""
        return self.scope.since_version

    @property
    def today_date(self) -> date:
        """``today`` as a date."""
        return datetime.fromisoformat(self.today).date()


def read_crawl_json(paths: tuple[str, ...] | list[str]) -> CrawlRecord:
    """``crawl.json`` beside the first file, read once (a file that is not a JSON object reads as empty)."""
    import json

    p = Path(paths[0]).parent / "crawl.json"
    if not p.is_file():
        return CrawlRecord()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return CrawlRecord({}, str(p))
    return CrawlRecord(data if isinstance(data, dict) else {}, str(p))


def first_values(paths: tuple[str, ...] | list[str], names: tuple[str, ...]) -> dict[str, str]:
    """The first non-empty value of each of ``names`` among the items, in one read that stops once all are found."""
    found: dict[str, str] = {}
    if not names:
        return found
    try:
        with closing(iter_items(list(paths))) as items:  # type: ignore[type-var]  # a generator: it closes
            for _where, item in items:
                for name in names:
                    value = getattr(item, name, None)
                    if name not in found and value:
                        found[name] = str(value)
                if len(found) == len(names):
                    break
    except BundleError:
        pass
    return found


def check_options(options: SynthOptions) -> None:
    """Usage errors found without reading anything (exit 2): no input, a provider without its key, a context
    window too small, an input that is not a file."""
    if not options.paths:
        raise SynthFailure(2, "no input: pass one or more run.jsonl files")
    provider = options.llm_provider
    try:
        check_provider(provider, options.llm_endpoint)
    except LLMError as exc:
        raise SynthFailure(2, str(exc)) from None
    if options.context_tokens is not None and options.context_tokens < MIN_CONTEXT_TOKENS:
        raise SynthFailure(2, f"--context-tokens must be at least {MIN_CONTEXT_TOKENS}, got {options.context_tokens}")
    llm_timeouts(options)
    for p in options.paths:
        if not Path(p).is_file():
            raise SynthFailure(2, f"{p}: no such file (pass a run.jsonl written by the crawl)")


def llm_timeouts(options: SynthOptions) -> tuple[float, float]:
    """(seconds per model call, seconds for all of a run's model calls): ``--llm-timeout`` /
    ``SKILL3_LLM_TIMEOUT`` and ``SKILL3_LLM_TOTAL_TIMEOUT``; a bad value is a usage error (exit 2)."""
    from synth.llm.bounds import configured_timeout, configured_total_timeout

    try:
        return configured_timeout(options.llm_timeout), configured_total_timeout()
    except ValueError as exc:
        raise SynthFailure(2, str(exc)) from None


def resolve_inputs(options: SynthOptions, started: datetime) -> Inputs:
    """Check the options, read ``crawl.json`` and the first items once, decide topic, target model, cutoff
    (``--cutoff-time``; then an explicit ``--target-model``; then what the crawl recorded; then the default
    model), today and the output folder. Raises :class:`SynthFailure` (exit 2) on bad usage or input."""
    check_options(options)
    paths = options.paths
    crawl = read_crawl_json(paths)
    topic = options.topic or crawl.arg("topic")
    recorded_cutoff = crawl.arg("cutoff") or crawl.arg("cutoff_time")
    wanted = ("url",) + (() if topic else ("topic",)) + (() if recorded_cutoff else ("cutoff",))
    first = first_values(paths, wanted)
    if "url" not in first:  # no valid item at all: report it with the malformed lines
        try:
            rank_sources(list(paths), cutoff_start=date(2000, 1, 1), today=started.date())
        except BundleError as exc:
            raise SynthFailure(2, str(exc)) from None
    topic = topic or first.get("topic")
    if not topic:
        raise SynthFailure(2, "no topic in the items or crawl.json: pass --topic")
    today = options.today or started.date().isoformat()
    scope = _scope(options, crawl, recorded_cutoff, first.get("cutoff"), datetime.fromisoformat(today).date())
    out_dir = Path(options.output_dir) if options.output_dir else Path(paths[0]).parent
    if not options.dry_run:
        from synth.output.outdir import output_dir_problem

        problem = output_dir_problem(out_dir)  # before any model call
        if problem:
            raise SynthFailure(2, problem)
    timeout, total = llm_timeouts(options)
    return Inputs(paths=paths, crawl=crawl, topic=str(topic), scope=scope, today=today, out_dir=out_dir,
                  context_tokens=options.context_tokens or DEFAULT_CONTEXT_TOKENS, llm_timeout=timeout,
                  llm_total_timeout=total)


def _scope(options: SynthOptions, crawl: CrawlRecord, recorded_cutoff: Any, item_cutoff: str | None, today: date) -> Scope:
    """The cutoff, target model and since-version: this run's options, else what the crawl resolved and recorded in
    crawl.json (else the items' cutoff), through :func:`synth.delta.scope.resolve_scope`; the recorded cutoff's
    origin goes to run.json's ``cutoff.source``. The crawl's own synthesis hands its resolved scope on (``scope``)."""
    if options.scope is not None:
        return options.scope
    if recorded_cutoff:
        how = crawl.meta.get("cutoff_source")
        recorded_from = f"crawl.json {crawl.path}" + (f" (the crawl's {how})" if isinstance(how, str) and how else "")
    else:
        recorded_cutoff, recorded_from = item_cutoff, "the cutoff recorded in the run.jsonl items"
    recorded = {"cutoff": recorded_cutoff, "target_model": crawl.arg("target_model"),
                "since_version": crawl.arg("since_version")}
    try:
        return resolve_scope(options.target_model, options.cutoff_time, options.since_version, today=today,
                             recorded=recorded, recorded_from=recorded_from)
    except CutoffError as exc:
        raise SynthFailure(2, str(exc)) from None
    except ValueError as exc:  # the given since-version is not a version
        raise SynthFailure(2, f"--since-version: {exc}") from None
