"""A synthesis run's inputs, resolved in one pass: the options checked, ``crawl.json`` read once, the
run.jsonl items read once (only as far as the first values still needed: a URL, the topic, the cutoff),
then the topic, target model, cutoff, "today", output folder and context size decided."""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from synth.core.errors import SynthFailure
from synth.evidence.cutoff import Cutoff, CutoffError, default_model, parse_month, resolve_cutoff
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
    target_model: str
    cutoff: Cutoff
    today: str
    out_dir: Path
    context_tokens: int
    since_version: str | None = None  # --since-version, else the crawl's since_version argument
    llm_timeout: float = 300.0
    llm_total_timeout: float = 3600.0

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
    if options.since_version is not None:
        from synth.delta.versions import check_since_version

        try:
            check_since_version(options.since_version)
        except ValueError as exc:
            raise SynthFailure(2, f"--since-version: {exc}") from None
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
    cut, target_model = _cutoff(options, crawl, recorded_cutoff, first.get("cutoff"), datetime.fromisoformat(today).date())
    out_dir = Path(options.output_dir) if options.output_dir else Path(paths[0]).parent
    if not options.dry_run:
        from synth.output.outdir import output_dir_problem

        problem = output_dir_problem(out_dir)  # before any model call
        if problem:
            raise SynthFailure(2, problem)
    timeout, total = llm_timeouts(options)
    return Inputs(paths=paths, crawl=crawl, topic=str(topic), target_model=target_model, cutoff=cut, today=today,
                  out_dir=out_dir, context_tokens=options.context_tokens or DEFAULT_CONTEXT_TOKENS,
                  since_version=_since_version(options, crawl), llm_timeout=timeout, llm_total_timeout=total)


def _since_version(options: SynthOptions, crawl: CrawlRecord) -> str | None:
    """``--since-version``, else the one the crawl recorded (a malformed recorded one is ignored)."""
    from synth.delta.versions import check_since_version

    if options.since_version:
        return check_since_version(options.since_version)
    try:
        return check_since_version(crawl.arg("since_version"))
    except ValueError:
        return None


def _cutoff(options: SynthOptions, crawl: CrawlRecord, recorded: Any, item_cutoff: str | None,
            today: date) -> tuple[Cutoff, str]:
    """The cutoff and the target model; the recorded cutoff's origin goes to run.json's ``cutoff.source``."""
    model_for_cutoff = options.target_model or crawl.arg("target_model")
    target_model = model_for_cutoff or default_model()
    if recorded:
        how = crawl.meta.get("cutoff_source")
        recorded_from = f"crawl.json {crawl.path}" + (f" (the crawl's {how})" if isinstance(how, str) and how else "")
    else:
        recorded, recorded_from = item_cutoff, "the cutoff recorded in the run.jsonl items"
    try:
        if options.cutoff or options.target_model or not recorded:
            return resolve_cutoff(model_for_cutoff, options.cutoff, today=today), target_model
        return replace(resolve_cutoff(target_model, parse_month(str(recorded))), source=recorded_from), target_model
    except CutoffError as exc:
        raise SynthFailure(2, str(exc)) from None
