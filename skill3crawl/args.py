"""The `learn` spider's arguments as one typed model.

Every ``skill3 learn --x-y`` option is ``-a x_y=`` on the spider. Values come in
as strings from ``scrapy crawl -a``; :func:`parse_args` validates them all and
raises :class:`ArgsError` with one line naming the bad argument and the fix.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr, ValidationError, ValidationInfo, field_validator, model_validator

from skill3crawl.corpus import Corpus, CorpusError
from skill3crawl.corpus_formats import read_corpus
from synth.core.errors import (
    ArgsError,  # noqa: F401 - defined with every error (synth.core.errors)
    )
from synth.delta.scope import Scope, resolve_scope
from synth.evidence.cutoff import Cutoff, CutoffError
from synth.evidence.urls import host_of
from synth.llm.model import LLMError
from synth.llm.registry import PROVIDERS, Choice, check_provider
from synth.output.outdir import output_dir_problem
from synth.pipeline.options import MIN_CONTEXT_TOKENS, CommandOption, SynthOptions, option_kind, synth_option, synth_options
from synth.skill.names import topic_slug
from synth.vet.redact import redact_urls

MAX_PAGES_LIMIT = 100_000
DEFAULT_DEPTH_LIMIT = 20
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
# Resolved once into ``LearnArgs.scope`` (written into crawl.json, handed to synthesis as resolved).
SCOPE_ARGS = ("target_model", "cutoff_time", "since_version")
# Arguments that are secrets: never logged, never written to crawl.json.
SECRET_ARGS = frozenset({"brave_key"})


# Not spider arguments: derived by the model (parse_args refuses them with a hint).
DERIVED = {"cutoff": "did you mean cutoff_time?", "scope": "did you mean cutoff_time or since_version?",
           "corpus": "did you mean input_file?",
           "feed_name": "the feed is <output_dir>/run.jsonl (run-<worker_id>.jsonl for workers)"}


def arg_default(name: str) -> Any:
    """The default of the spider argument ``name`` (help texts take it from here)."""
    return LearnArgs.model_fields[name].get_default(call_default_factory=True)


def _synth(name: str) -> Any:
    """The spider argument of the synthesis option ``name`` that ``skill3 learn`` shares with ``skill3 synth``: its
    default and help are :class:`SynthOptions`' (:func:`synth.pipeline.options.synth_options`), written there once."""
    option = synth_option(name)
    if not option.learn:
        raise ValueError(f"{name} is not a synthesis option skill3 learn shares")
    extra: dict[str, Any] | None = {"metavar": option.metavar} if option.metavar else None
    return Field(option.default, description=option.help.replace("{", "{{").replace("}", "}}"), json_schema_extra=extra)


def _split_csv(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
    else:
        items = str(value).split(",")
    return [s.strip() for s in items if s.strip()]


def _bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise ValueError(f"must be 0 or 1, got {value!r}")


def _whole_number(value: Any, low: int, high: int, unit: str) -> int:
    try:
        n = int(str(value).strip())
    except ValueError:
        raise ValueError(f"must be a whole number of {unit}, got {value!r}") from None
    if not low <= n <= high:
        raise ValueError(f"must be between {low} and {high}, got {n}")
    return n


class LearnArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    # Each argument with a description is a `skill3 learn` option too (--x-y for x_y, the same value; see
    # :func:`learn_options`): its description is the option's help, ``{default}`` in it the default below.
    # The synthesis options skill3 synth has too (``_synth``): their defaults and help texts are SynthOptions'.
    topic: str
    target_model: str | None = _synth("target_model")
    cutoff_time: str | None = _synth("cutoff_time")
    strict_cutoff: bool = _synth("strict_cutoff")
    since_version: str | None = _synth("since_version")  # the target model's last version
    authoritative: list[str] = Field(default_factory=list, description="comma-separated authoritative hosts (weight 1.0)")
    start_urls: list[str] = Field(default_factory=list, description="comma-separated URLs to crawl directly, each within its "
                                                                    "path prefix (docs mode)")
    input_file: str | None = Field(None, description="offline corpus: an === SOURCE === file, JSON Lines, a WARC file or a "
                                                     "folder of .html/.md pages (docs/corpus.md)")
    max_pages: int = Field(200, description=f"pages written, 1–{MAX_PAGES_LIMIT} (default {{default}})")
    output_dir: str | None = Field(None, description="output folder (default output/<topic>)")
    synth: bool = True  # synthesise when the crawl ends (skill3 learn passes 0: it synthesises itself)
    llm_provider: str = _synth("llm_provider")
    llm_endpoint: str | None = _synth("llm_endpoint")
    llm_model: str | None = _synth("llm_model")
    llm_timeout: float | None = _synth("llm_timeout")
    verify: bool = _synth("verify")
    fail_on_findings: bool = _synth("fail_on_findings")  # synthesis' exit-3 gate
    fresh: bool = _synth("fresh")  # ignore the previous run (synth.agents.refresh)
    context_tokens: int | None = _synth("context_tokens")  # synthesis: the model's window
    brave_key: SecretStr | None = Field(None, description="Brave Search API key (default BRAVE_SEARCH_API_KEY)")
    package: str | None = Field(None, description="the registry package the topic is: pypi:NAME, npm:NAME or crates:NAME "
                                                  "(default: looked up by the topic's name)")
    packages: bool = Field(True, description="read the package's release archives (changelog, docs, README, API delta) as "
                                             "official sources (docs/packages.md)")
    role: Literal["main", "worker"] = "main"
    # Direct (docs-mode) discovery of start URLs and authoritative hosts (skill3crawl.sitecrawl.crawl).
    depth_limit: int = Field(DEFAULT_DEPTH_LIMIT, description="link hops from a start URL, sitemap or llms.txt entry "
                                                              "(default {default})")
    sitemap_filter: list[str] = Field(default_factory=list, description="comma-separated path prefixes sitemap and link "
                                                                        "URLs must start with")
    locales: Literal["skip", "keep"] = Field("skip", description="skip: leave /ja/, /zh-cn/ … translations out; keep "
                                                                 "(default {default})")
    # Distributed crawls (skill3crawl.distributed): this worker's id, and the feed file it writes.
    worker_id: str | None = None
    feed_name: str = "run.jsonl"

    # Derived in the model validator.
    _scope: Scope | None = PrivateAttr(None)  # the cutoff, target model and since-version (:attr:`scope`)
    corpus: Corpus | None = None  # checked, streamed by the spider

    @field_validator("topic", mode="before")
    @classmethod
    def _topic(cls, v: Any) -> str:
        s = str(v or "").strip()
        if not s or not topic_slug(s):
            raise ValueError("must name a topic with at least one letter or digit, e.g. topic=mcp")
        if len(s) > 200:
            raise ValueError("is longer than 200 characters")
        return s

    @field_validator("strict_cutoff", "synth", "verify", "fail_on_findings", "fresh", "packages", mode="before")
    @classmethod
    def _flags(cls, v: Any, info: ValidationInfo) -> bool:
        return _bool(v, info.field_name or "")

    @field_validator("max_pages", mode="before")
    @classmethod
    def _max_pages(cls, v: Any) -> int:
        return _whole_number(v, 1, MAX_PAGES_LIMIT, "pages")

    @field_validator("context_tokens", mode="before")
    @classmethod
    def _context(cls, v: Any) -> int | None:
        return None if v is None or str(v).strip() == "" else _whole_number(v, MIN_CONTEXT_TOKENS, 10_000_000, "tokens")

    @field_validator("depth_limit", mode="before")
    @classmethod
    def _depth(cls, v: Any) -> int:
        return _whole_number(v, 0, 1000, "link hops")

    @field_validator("sitemap_filter", mode="before")
    @classmethod
    def _filters(cls, v: Any) -> list[str]:
        return ["/" + f.lstrip("/") for f in _split_csv(v)]

    @field_validator("worker_id", mode="before")
    @classmethod
    def _wid(cls, v: Any) -> str | None:
        from skill3crawl.distributed import worker_id

        return None if v in (None, "") else worker_id(str(v))

    @field_validator("authoritative", mode="before")
    @classmethod
    def _hosts(cls, v: Any) -> list[str]:
        hosts = []
        for item in _split_csv(v):
            host = host_of(item if "//" in item else f"//{item}")
            if not host or not re.fullmatch(r"[a-z0-9.-]+", host) or "." not in host.strip("."):
                raise ValueError(f"{item!r} is not a host name like docs.example.org")
            hosts.append(host.strip("."))
        return hosts

    @field_validator("start_urls", mode="before")
    @classmethod
    def _urls(cls, v: Any) -> list[str]:
        urls = _split_csv(v)
        for u in urls:
            p = urlsplit(u)
            if p.scheme not in ("http", "https") or not p.hostname:
                raise ValueError(f"{u!r} is not an absolute http(s) URL")
        return urls

    @field_validator("llm_provider", mode="before")
    @classmethod
    def _llm_provider(cls, v: Any) -> str:
        if v not in PROVIDERS:  # the names of the registered providers, and auto
            names = ", ".join(repr(p) for p in PROVIDERS[:-1]) + f" or {PROVIDERS[-1]!r}"
            raise ValueError(f"must be one of {names}, got {v!r}")
        return str(v)

    @field_validator("llm_timeout", mode="before")
    @classmethod
    def _llm_timeout(cls, v: Any) -> float | None:
        from synth.llm.bounds import timeout_value

        return None if v in (None, "") else timeout_value(v, "llm_timeout")

    @field_validator("llm_endpoint", mode="before")
    @classmethod
    def _endpoint(cls, v: Any) -> str | None:
        if v in (None, ""):
            return None
        p = urlsplit(str(v))
        if p.scheme not in ("http", "https") or not p.hostname:
            raise ValueError(f"{v!r} is not an http(s) URL like http://localhost:11434/v1")
        return str(v)

    @field_validator("target_model", "cutoff_time", "since_version", "input_file", "output_dir", "llm_model", mode="before")
    @classmethod
    def _blank_is_none(cls, v: Any) -> Any:
        return None if v is None or str(v).strip() == "" else str(v).strip()

    @field_validator("package", mode="before")
    @classmethod
    def _package(cls, v: Any) -> str | None:
        from skill3crawl.discovery.registries import parse_spec

        if v is None or str(v).strip() == "":
            return None
        eco, name = parse_spec(str(v))
        return f"{eco}:{name}"

    @field_validator("brave_key", mode="before")
    @classmethod
    def _key(cls, v: Any) -> Any:
        return None if v is None or str(v).strip() == "" else str(v).strip()

    @model_validator(mode="after")
    def _derive(self) -> "LearnArgs":
        try:
            scope = resolve_scope(self.target_model, self.cutoff_time, self.since_version,
                                  today=datetime.now(timezone.utc).date())
        except CutoffError as exc:
            raise ArgsError(str(exc)) from None
        except ValueError as exc:  # since_version is not a version
            raise ArgsError(f"bad argument since_version: {exc}") from None
        corpus = None
        if self.input_file:
            try:
                corpus = read_corpus(self.input_file)
            except CorpusError as exc:
                raise ArgsError(str(exc)) from None
        self._scope = scope
        object.__setattr__(self, "corpus", corpus)
        out = self.output_dir or str(Path("output") / topic_slug(self.topic))
        object.__setattr__(self, "output_dir", out)
        problem = output_dir_problem(out)  # before anything is fetched
        if problem:
            raise ArgsError(f"bad argument output_dir: {problem}")
        return self

    # ----------------------------------------------------------------- helpers
    @property
    def scope(self) -> Scope:
        """The cutoff, target model and since-version, resolved once from the arguments (written into crawl.json,
        where synthesis reads them)."""
        assert self._scope is not None  # set by the model validator
        return self._scope

    @property
    def cutoff(self) -> Cutoff:
        """The resolved cutoff (:attr:`scope`'s)."""
        return self.scope.cutoff

    @property
    def slug(self) -> str:
        return topic_slug(self.topic)

    @property
    def feed_path(self) -> Path:
        return Path(str(self.output_dir)) / self.feed_name  # set by the model validator

    def site_roots(self, *, authoritative: bool = True) -> list[str]:
        """Where the direct crawl starts: the start URLs, then (``authoritative``) the root of
        each authoritative host no start URL is on."""
        roots = list(self.start_urls)
        if authoritative:
            covered = {host_of(u) for u in roots}
            roots += [f"https://{h}/" for h in self.authoritative if h not in covered]
        return list(dict.fromkeys(roots))

    def brave_token(self) -> str | None:
        """The search key: ``-a brave_key`` or ``BRAVE_SEARCH_API_KEY``. Never log it."""
        if self.brave_key is not None:
            return self.brave_key.get_secret_value()
        return os.environ.get("BRAVE_SEARCH_API_KEY") or None

    def usage_problem(self) -> str | None:
        """One line for what the environment makes unusable: a hosted model without its key (the check of
        :func:`synth.llm.registry.check_provider`, which ``skill3 learn`` and ``skill3 synth`` make too)."""
        if self.needs_model():  # synthesis or planning
            try:
                check_provider(self.llm_provider, self.llm_endpoint)
            except LLMError as exc:
                return str(exc)
        # Nothing configured is fine: the topic is looked up in the package registries first, and a
        # run that finds nothing there (and has no search provider) ends with one "nothing found" line.
        return None

    def needs_model(self) -> bool:
        """Whether this crawl calls the model: its synthesis, or query planning (search without a corpus)."""
        return self.synth or (self.corpus is None and self.brave_token() is not None)

    def model_problem(self) -> str | None:
        """One line when the model chosen explicitly (``llm_provider`` openai/anthropic) does not answer and
        the crawl needs it (:func:`synth.llm.registry.model_problem`); a network probe, so it runs once,
        before the crawl (``scrapy crawl``'s argument check), never in the spider."""
        from synth.llm.registry import model_problem

        if self.role == "worker" or not self.needs_model():
            return None
        return model_problem(self.llm_provider, self.llm_endpoint)  # None for auto and for a provider calling no model

    def public_dict(self) -> dict[str, Any]:
        """The arguments as given, secrets removed (for crawl.json and logs)."""
        data = self.model_dump(exclude={"corpus", *SECRET_ARGS})
        data["start_urls"] = redact_urls(*self.start_urls)[0]  # a token in a start URL is a secret too
        if self.llm_endpoint:
            data["llm_endpoint"] = redact_urls(self.llm_endpoint)[0][0]
        data["brave_key_set"] = self.brave_token() is not None
        return data

    def synth_options(self, today: str | None = None, auto_choice: Choice | None = None,
                      model_checked: bool = False) -> SynthOptions:
        """The synthesis run of this crawl (the one build, for the crawl's trigger and ``skill3 learn``): its
        feed into its folder, with its topic, cutoff, model and synthesis options. ``today``: the crawl's day
        (``SKILL3_TODAY``); ``auto_choice``: the provider ``auto`` already resolved to (one probe per run);
        ``model_checked``: the explicitly chosen model was checked before the crawl (not probed again).
        The cutoff, target model and since-version go as the crawl resolved them (:attr:`scope`, the record it
        wrote into crawl.json), not as given: synthesis does not resolve them again."""
        shared = {o.field: getattr(self, o.name) for o in synth_options() if o.learn and o.name not in SCOPE_ARGS}
        return SynthOptions(paths=(str(self.feed_path),), output_dir=str(self.output_dir), topic=self.topic, today=today,
                            auto_choice=auto_choice, model_checked=model_checked, scope=self.scope, **shared)


@dataclass(frozen=True)
class LearnOption(CommandOption):
    """A spider argument that is a `skill3 learn` option: ``--x-y`` for ``-a x_y``; ``default`` the argument's,
    ``help`` its description with the default filled in."""

    def spider_value(self, value: Any) -> str | None:
        """The ``-a`` value for the option's ``value``: a flag 1 or 0; ``None`` when the option was left out
        (the argument's default applies)."""
        if value is None or value == "":
            return None
        if self.kind is bool:
            return "1" if value else "0"
        return str(value)


def learn_options() -> list[LearnOption]:
    """The `skill3 learn` options, one per described spider argument, in the model's order."""
    options = []
    for name, f in LearnArgs.model_fields.items():
        if f.description:
            default = f.get_default(call_default_factory=True)
            extra = f.json_schema_extra if isinstance(f.json_schema_extra, dict) else {}
            metavar = extra.get("metavar")
            options.append(LearnOption(name, option_kind(f.annotation), default, f.description.format(default=default),
                                       metavar if isinstance(metavar, str) else None))
    return options


def learn_spider_args(topic: str, values: dict[str, Any]) -> dict[str, str]:
    """`skill3 learn TOPIC --x-y V` as the spider's ``-a`` arguments (``values``: option name → value), with
    ``synth=0``: the command synthesises itself. An option left out (``None``) is not passed: its default applies
    (``output_dir`` included: ``output/<topic-slug>``)."""
    kw = {"topic": topic, "synth": "0"}
    for option in learn_options():
        value = option.spider_value(values.get(option.name))  # left out, or None: not passed
        if value is not None:
            kw[option.name] = value
    return kw


def _one_line(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__")
    msg = err.get("msg", "invalid")
    ctx_err = (err.get("ctx") or {}).get("error")
    if isinstance(ctx_err, Exception):
        msg = str(ctx_err)
    elif msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if err.get("type") == "literal_error":
        msg = f"must be one of {err['ctx']['expected']}, got {err.get('input')!r}"
    if err.get("type") == "missing":
        return f"missing argument {loc}: pass -a {loc}=…"
    if err.get("type") == "extra_forbidden":
        known = ", ".join(k for k in LearnArgs.model_fields if k not in DERIVED)
        return f"unknown argument {loc!r} (known: {known})"
    return f"bad argument {loc}: {msg}" if loc else msg


def docs_defaults(raw: dict[str, Any]) -> dict[str, Any]:
    """``scrapy crawl docs``: authoritative hosts stand in for missing start URLs (crawled from their
    root), the topic defaults to the first start URL's host, the start hosts are authoritative."""
    raw = dict(raw)
    urls = _split_csv(raw.get("start_urls"))
    if not urls and raw.get("role") != "worker":  # a worker's start URLs come with the planner's arguments
        urls = [f"https://{h}/" for h in _split_csv(raw.get("authoritative"))]
        if not urls:
            raise ArgsError("missing argument start_urls: docs mode needs -a start_urls=URL[,URL…] (or -a authoritative=HOSTS)")
        raw["start_urls"] = ",".join(urls)
    if not raw.get("topic") and urls:
        raw["topic"] = host_of(urls[0])
    if not raw.get("authoritative") and urls:
        raw["authoritative"] = ",".join(dict.fromkeys(host_of(u) for u in urls))
    return raw


def output_dir_of(raw: dict[str, Any], *, docs: bool = False) -> str:
    """The output folder the arguments name (``output_dir``, else ``output/<topic-slug>``), without checking the rest."""
    raw = {k: v for k, v in raw.items() if not str(k).startswith("_")}
    if docs:
        raw = docs_defaults(raw)
    given = str(raw.get("output_dir") or "").strip()
    return given or str(Path("output") / topic_slug(str(raw.get("topic") or "").strip()))


def parse_args(raw: dict[str, Any], *, docs: bool = False, feed_name: str = "run.jsonl") -> LearnArgs:
    """Validate ``-a`` arguments (``docs``: with :func:`docs_defaults`); raise :class:`ArgsError`
    with one line on the first problem. The environment is checked by :meth:`LearnArgs.usage_problem`."""
    # Runner bookkeeping such as scrapyd's _job/_version is not a skill3 argument.
    raw = {k: v for k, v in raw.items() if not str(k).startswith("_")}
    for derived, hint in DERIVED.items():
        if derived in raw:
            raise ArgsError(f"unknown argument {derived!r}: {hint}")
    if docs:
        raw = docs_defaults(raw)
    try:
        return LearnArgs(**raw, feed_name=feed_name)
    except ArgsError:
        raise
    except ValidationError as exc:
        raise ArgsError(_one_line(exc)) from None


def checked_args(raw: dict[str, Any], *, docs: bool = False, feed_name: str = "run.jsonl") -> LearnArgs:
    """:func:`parse_args`, then :meth:`LearnArgs.usage_problem` (what the environment makes unusable,
    e.g. a hosted model without its key) as an :class:`ArgsError` too: the arguments a crawl can run with."""
    args = parse_args(raw, docs=docs, feed_name=feed_name)
    problem = args.usage_problem()
    if problem:
        raise ArgsError(problem)
    return args
