"""What a synthesis run takes (:class:`SynthOptions`) and what it gives back (:class:`SynthResult`).

One options object is shared by ``skill3 synth``, ``skill3 learn``, the crawl's synthesis trigger
(``SKILL3_SYNTH_FUNCTION``) and the spider's arguments (``LearnArgs.synth_options``).
:func:`synth.pipeline.run.run_synth` prints its progress and warnings while it runs, never its outcome:
the caller prints that with :meth:`SynthResult.print_outcome`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, get_args, get_type_hints

from synth.core.errors import ExitCode
from synth.delta.scope import Scope
from synth.llm.bounds import DEFAULT_TIMEOUT, DEFAULT_TOTAL_TIMEOUT
from synth.llm.registry import DEFAULT_ENDPOINT, PROVIDERS, Choice

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from synth.pipeline.dryrun import DryRunReport

ERROR_PREFIX = "skill3 synth: error: "
DEFAULT_CONTEXT_TOKENS = 8192  # the model's context window when --context-tokens is not given
MIN_CONTEXT_TOKENS = 1024  # a smaller --context-tokens leaves no room for sources


_OTHERS = [p for p in PROVIDERS if p != "auto"]


def _opt(default: Any, help: str, *, name: str | None = None, metavar: str | None = None, negated: bool = False,
         learn: bool = False) -> Any:
    """A :class:`SynthOptions` field that is a ``skill3 synth`` option, defined here once: ``help`` its one help text
    (``{default}`` in it: the default); ``name`` the option's when it is not the field's (``--x-y`` for ``x_y``);
    ``negated``: a flag that turns the field off; ``learn``: ``skill3 learn`` has it too, as the spider argument
    ``name`` (``skill3crawl.args.LearnArgs`` takes its default and help from here)."""
    return field(default=default, metadata={"help": help, "name": name, "metavar": metavar, "negated": negated,
                                            "learn": learn})


@dataclass(frozen=True)
class SynthOptions:
    """Everything one synthesis run takes.

    ``paths``: the run.jsonl files (several workers: all of them). ``output_dir`` (default: the first
    file's folder), ``topic``, ``target_model``, ``cutoff_time`` (month ``YYYY-MM``) and ``since_version`` default
    to what the crawl resolved and recorded in crawl.json (:func:`synth.delta.scope.resolve_scope`). ``llm_provider`` is ``auto`` (openai when the endpoint answers, else extractive),
    ``openai``, ``anthropic`` or ``extractive``; ``llm_timeout`` the seconds one model call may take, its
    retries included (default ``SKILL3_LLM_TIMEOUT``, else 300). ``today`` (``YYYY-MM-DD``) bounds the freshness
    window (default: the day the run starts). ``fail_on_findings``: exit 3 when high-severity findings remain.
    ``auto_choice``: ``auto`` already resolved by the caller (``skill3 learn``, the crawl's planner), which
    told the user about a fallback: synthesis uses it without a second probe or a second warning.
    ``model_checked``: the caller checked that the explicitly chosen model answers (``skill3 learn``, before the
    crawl): synthesis does not probe it again. ``scope``: the cutoff, target model and since-version the crawl
    resolved (its trigger and ``skill3 learn`` pass the one it wrote into crawl.json): used as they are.

    The fields made with ``_opt`` are the options of ``skill3 synth`` (:func:`synth_options`, in this order);
    ``paths`` is its argument.
    """

    paths: tuple[str, ...] = field(metadata={"help": "run.jsonl file(s) written by the crawl (several workers: pass them all)"})
    output_dir: str | None = _opt(None, "where the skill, run.json and index.html go (default: the first file's folder)")
    topic: str | None = _opt(None, "topic (default: from crawl.json or the items)")
    target_model: str | None = _opt(None, "the model the skill is for (cutoff lookup only)", learn=True)
    cutoff_time: str | None = _opt(None, "cutoff month YYYY-MM; wins over --target-model", learn=True)
    llm_provider: str = _opt("auto", "{default} (the default: openai if the endpoint answers GET /models with a 2xx "
                                          "JSON model list, else extractive), " + ", ".join(_OTHERS[:-1]) + f" or {_OTHERS[-1]}",
                                  learn=True)
    llm_endpoint: str | None = _opt(None, f"OpenAI-compatible endpoint (default {DEFAULT_ENDPOINT})", learn=True)
    llm_model: str | None = _opt(None, "model name at the endpoint", learn=True)
    verify: bool = _opt(False, "one more model call re-grounds the draft against its sources", learn=True)
    strict_cutoff: bool = _opt(False, "drop pre-cutoff and undated sources", learn=True)
    since_version: str | None = _opt(None, "the target model knows the topic up to this version: every newer version is "
                                           "the delta, dated or not (for sites that print no release dates)", learn=True)
    context_tokens: int | None = _opt(None, f"the model's context window in tokens (default {DEFAULT_CONTEXT_TOKENS})",
                                      learn=True)
    llm_timeout: float | None = _opt(None, f"seconds one model call may take, its retries included (default "
                                           f"SKILL3_LLM_TIMEOUT, else {DEFAULT_TIMEOUT:g}; all calls of a run together: "
                                           f"SKILL3_LLM_TOTAL_TIMEOUT, else {DEFAULT_TOTAL_TIMEOUT:g})",
                                     metavar="SECONDS", learn=True)
    dry_run: bool = _opt(False, "print the ranked sources and the bundle size; call no model, write nothing")
    fail_on_findings: bool = _opt(True, "exit 3 when high-severity findings remain", learn=True)
    fresh: bool = _opt(False, "ignore the previous run in the output folder: no unchanged short cut, no diff (the previous "
                              "skill is still kept in .history/)", learn=True)
    progress: bool = _opt(True, "no progress display", name="quiet", negated=True)
    today: str | None = None
    auto_choice: Choice | None = None
    model_checked: bool = False
    scope: Scope | None = None

    def __post_init__(self) -> None:
        paths: Any = self.paths
        if isinstance(paths, (str, Path)):  # one file given bare
            paths = (paths,)
        object.__setattr__(self, "paths", tuple(str(p) for p in paths))
        if isinstance(self.output_dir, Path):
            object.__setattr__(self, "output_dir", str(self.output_dir))


def option_kind(annotation: Any) -> type:
    """What the command line parses for a field of type ``annotation``: ``bool`` (a flag), ``int``, ``float``, else
    ``str`` (lists comma-separated)."""
    kinds = {a for a in (get_args(annotation) or (annotation,)) if a is not type(None)}
    for kind in (bool, int, float):
        if kinds == {kind}:
            return kind
    return str


@dataclass(frozen=True)
class CommandOption:
    """A command-line option: ``name`` the parameter, ``--x-y`` for ``x_y``; ``kind`` what the command line parses
    (:func:`option_kind`); ``default`` the option's; ``help`` its one help text, its default filled in; ``metavar``.
    ``skill3 synth``'s are :class:`SynthOption`, ``skill3 learn``'s ``skill3crawl.args.LearnOption``."""

    name: str
    kind: type
    default: Any
    help: str
    metavar: str | None = None

    @property
    def flag(self) -> str:
        """``--x-y``, and ``--x-y/--no-x-y`` for a flag that is on by default."""
        dashed = "--" + self.name.replace("_", "-")
        return f"{dashed}/--no-{dashed[2:]}" if self.kind is bool and self.default else dashed


@dataclass(frozen=True)
class SynthOption(CommandOption):
    """A :class:`SynthOptions` field as a ``skill3 synth`` option: ``field`` the field it sets (``name``, the option,
    may differ: ``--quiet`` sets ``progress``); ``negated``: a flag that turns the field off (``--quiet``: no
    progress display), so ``default`` is the flag's; ``learn``: ``skill3 learn`` has it too, as the spider
    argument ``name``."""

    field: str = ""
    negated: bool = False
    learn: bool = False

    def value(self, given: Any) -> Any:
        """The field's value for the option's value ``given``."""
        return not given if self.negated else given


@cache
def synth_options() -> tuple[SynthOption, ...]:
    """``skill3 synth``'s options, one per :class:`SynthOptions` field made with ``_opt``, in the fields' order."""
    hints = get_type_hints(SynthOptions)
    options = []
    for f in fields(SynthOptions):
        meta = f.metadata
        if "learn" not in meta:  # not an option (``paths`` is the command's argument)
            continue
        default = not f.default if meta["negated"] else f.default
        options.append(SynthOption(meta["name"] or f.name, bool if meta["negated"] else option_kind(hints[f.name]), default,
                                   meta["help"].format(default=f.default), meta["metavar"], field=f.name,
                                   negated=meta["negated"], learn=meta["learn"]))
    return tuple(options)


def synth_option(name: str) -> SynthOption:
    """The ``skill3 synth`` option ``name`` (the option's name: ``quiet``, not the field ``progress``)."""
    return next(o for o in synth_options() if o.name == name)


def option_help(name: str) -> str:
    """The help text of the :class:`SynthOptions` field ``name`` (``paths``: the command's argument)."""
    f = next(f for f in fields(SynthOptions) if f.name == name)
    return str(f.metadata["help"]).format(default=f.default)


@dataclass(frozen=True)
class SynthResult:
    """The outcome of one run: the exit code (0 done; 1 failure; 2 bad usage or input; 3 skill written but
    high-severity findings remain), the one-line ``error`` of a failed run, what was written, the warnings
    and the timings per phase (seconds), and for a dry run the ranking to print."""

    exit_code: int  # an ExitCode (an int given is made one)
    error: str | None = None
    skill_dir: Path | None = None
    manifest: Path | None = None
    preview: Path | None = None
    written: tuple[Path, ...] = ()
    sources: int = 0
    provider: str | None = None
    warnings: tuple[str, ...] = ()
    timings: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    blocking_findings: int = 0
    finding_rules: tuple[str, ...] = ()
    fail_on_findings: bool = True
    dry_run: "DryRunReport | None" = None
    unchanged: bool = False  # a refresh found nothing new: the skill folder was left as it was
    summary: tuple[str, ...] = ()  # a refresh's "since last learn" lines

    def __post_init__(self) -> None:
        object.__setattr__(self, "exit_code", ExitCode(self.exit_code))
        object.__setattr__(self, "summary", tuple(self.summary))
        object.__setattr__(self, "timings", MappingProxyType(dict(self.timings)))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        object.__setattr__(self, "written", tuple(self.written))
        object.__setattr__(self, "finding_rules", tuple(self.finding_rules))

    @property
    def ok(self) -> bool:
        """The run succeeded (exit 0)."""
        return self.exit_code == 0

    def outcome_lines(self) -> list[tuple[str, str]]:
        """The outcome as (stream, line) pairs, ``stream`` ``"out"`` or ``"err"`` (the dry-run table aside)."""
        lines: list[tuple[str, str]] = []
        if self.error is not None:
            return [("err", ERROR_PREFIX + self.error)]
        if self.skill_dir is not None and self.unchanged:
            lines.append(("out", f"skill3: unchanged {self.skill_dir / 'SKILL.md'} (left as it was); "
                                 f"manifest {self.manifest}, preview {self.preview}"))
        elif self.skill_dir is not None:
            lines.append(("out", f"skill3: wrote {self.skill_dir / 'SKILL.md'} ({self.sources} sources, provider {self.provider}); "
                                 f"manifest {self.manifest}, preview {self.preview}"))
        lines += [("out", f"skill3: {line}") for line in self.summary]
        if self.blocking_findings:
            rules = ", ".join(self.finding_rules)
            state = f"exit {int(self.exit_code)}" if self.exit_code == ExitCode.FINDINGS else "gate disabled (--no-fail-on-findings)"
            lines.append(("err", f"skill3 synth: {self.blocking_findings} HIGH/CRITICAL finding(s) remain "
                                 f"({rules}; see run.json vet): {state}"))
        return lines

    def print_outcome(self, out: "Console | None" = None, err: "Console | None" = None) -> None:
        """Print the outcome: the dry-run table, or what was written (stdout), the remaining findings and
        the error line (stderr)."""
        if self.dry_run is not None:
            self.dry_run.print(out)
        for stream, line in self.outcome_lines():
            if stream == "out" and out is None:
                print(line)
                continue
            console = out if stream == "out" else err
            if console is None:
                from rich.console import Console

                console = Console(stderr=True, highlight=False, soft_wrap=True)
            console.print(line, markup=False)
