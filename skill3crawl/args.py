"""The `learn` spider's arguments as one typed model.

Every ``skill3 learn --x-y`` option is ``-a x_y=`` on the spider. Values come in
as strings from ``scrapy crawl -a``; :func:`parse_args` validates them all and
raises :class:`ArgsError` with one line naming the bad argument and the fix.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, ValidationInfo, field_validator, model_validator

from skill3crawl.corpus import Corpus, CorpusError, read_corpus
from synth.core.errors import UsageError
from synth.evidence.cutoff import Cutoff, CutoffError, resolve_cutoff
from synth.evidence.urls import host_of
from synth.llm.model import LLMError
from synth.llm.registry import Choice, Provider, check_provider
from synth.output.outdir import output_dir_problem
from synth.pipeline.options import MIN_CONTEXT_TOKENS, SynthOptions
from synth.skill.names import topic_slug
from synth.vet.redact import redact_urls

MAX_PAGES_LIMIT = 100_000
DEFAULT_DEPTH_LIMIT = 20
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
# Arguments that are secrets: never logged, never written to crawl.json.
SECRET_ARGS = frozenset({"brave_key"})


class ArgsError(UsageError, ValueError):
    """A bad spider argument; ``str()`` is one line naming it."""


def arg_default(name: str) -> Any:
    """The default of the spider argument ``name`` (help texts take it from here)."""
    return LearnArgs.model_fields[name].get_default(call_default_factory=True)


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

    topic: str
    target_model: str | None = None
    cutoff_time: str | None = None
    strict_cutoff: bool = False
    since_version: str | None = None  # the target model knows the topic up to this version
    authoritative: list[str] = Field(default_factory=list)
    start_urls: list[str] = Field(default_factory=list)
    input_file: str | None = None
    max_pages: int = 200
    output_dir: str | None = None
    synth: bool = True
    llm_provider: Provider = "auto"
    llm_endpoint: str | None = None
    llm_model: str | None = None
    llm_timeout: float | None = None  # seconds one synthesis model call may take, retries included
    verify: bool = False
    fail_on_findings: bool = True  # synthesis' exit-3 gate (skill3 learn --no-fail-on-findings)
    fresh: bool = False  # ignore the previous run in the output folder (synth.agents.refresh)
    context_tokens: int | None = None  # synthesis: the model's context window (default DEFAULT_CONTEXT_TOKENS)
    brave_key: SecretStr | None = None
    package: str | None = None  # pypi:NAME / npm:NAME / crates:NAME pins the registry package the topic is
    role: Literal["main", "worker"] = "main"
    # Direct (docs-mode) discovery of start URLs and authoritative hosts (skill3crawl.sitecrawl.crawl).
    depth_limit: int = DEFAULT_DEPTH_LIMIT  # link hops from a start URL / sitemap / llms.txt entry
    sitemap_filter: list[str] = Field(default_factory=list)  # path prefixes
    locales: Literal["skip", "keep"] = "skip"
    # Distributed crawls (skill3crawl.distributed): this worker's id, and the feed file it writes.
    worker_id: str | None = None
    feed_name: str = "run.jsonl"

    # Derived in the model validator.
    cutoff: Cutoff | None = None
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

    @field_validator("strict_cutoff", "synth", "verify", "fail_on_findings", "fresh", mode="before")
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

    @field_validator("target_model", "cutoff_time", "input_file", "output_dir", "llm_model", mode="before")
    @classmethod
    def _blank_is_none(cls, v: Any) -> Any:
        return None if v is None or str(v).strip() == "" else str(v).strip()

    @field_validator("since_version", mode="before")
    @classmethod
    def _since_version(cls, v: Any) -> str | None:
        from synth.evidence.delta.versions import check_since_version

        return check_since_version(v)

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
            cutoff = resolve_cutoff(self.target_model, self.cutoff_time, today=datetime.now(timezone.utc).date())
        except CutoffError as exc:
            raise ArgsError(str(exc)) from None
        corpus = None
        if self.input_file:
            try:
                corpus = read_corpus(self.input_file)
            except CorpusError as exc:
                raise ArgsError(str(exc)) from None
        object.__setattr__(self, "cutoff", cutoff)
        object.__setattr__(self, "corpus", corpus)
        out = self.output_dir or str(Path("output") / topic_slug(self.topic))
        object.__setattr__(self, "output_dir", out)
        problem = output_dir_problem(out)  # before anything is fetched
        if problem:
            raise ArgsError(f"bad argument output_dir: {problem}")
        return self

    # ----------------------------------------------------------------- helpers
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

        if self.role == "worker" or not self.needs_model() or self.llm_provider not in ("openai", "anthropic"):
            return None
        return model_problem(self.llm_provider, self.llm_endpoint)

    def public_dict(self) -> dict[str, Any]:
        """The arguments as given, secrets removed (for crawl.json and logs)."""
        data = self.model_dump(exclude={"cutoff", "corpus", *SECRET_ARGS})
        data["start_urls"] = redact_urls(*self.start_urls)[0]  # a token in a start URL is a secret too
        if self.llm_endpoint:
            data["llm_endpoint"] = redact_urls(self.llm_endpoint)[0][0]
        data["cutoff"] = self.cutoff.month if self.cutoff else None
        data["brave_key_set"] = self.brave_token() is not None
        return data

    def synth_options(self, today: str | None = None, auto_choice: Choice | None = None) -> SynthOptions:
        """The synthesis run of this crawl (the one build, for the crawl's trigger and ``skill3 learn``): its
        feed into its folder, with its topic, cutoff, model and synthesis options. ``today``: the crawl's day
        (``SKILL3_TODAY``); ``auto_choice``: the provider ``auto`` already resolved to (one probe per run).
        The cutoff is passed as given (``cutoff_time``, else the target model's): synthesis resolves it the
        same way and records where it came from."""
        return SynthOptions(
            paths=(str(self.feed_path),), output_dir=str(self.output_dir), topic=self.topic,
            target_model=self.target_model, cutoff=self.cutoff_time,
            llm_provider=self.llm_provider, llm_endpoint=self.llm_endpoint, llm_model=self.llm_model,
            llm_timeout=self.llm_timeout, verify=self.verify, strict_cutoff=self.strict_cutoff,
            since_version=self.since_version, context_tokens=self.context_tokens, fail_on_findings=self.fail_on_findings,
            today=today, fresh=self.fresh, auto_choice=auto_choice,
        )


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
        known = ", ".join(k for k in LearnArgs.model_fields if k not in ("cutoff", "corpus", "feed_name"))
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
    for derived in ("cutoff", "corpus", "feed_name"):
        if derived in raw:
            hint = {"cutoff": "did you mean cutoff_time?", "corpus": "did you mean input_file?",
                    "feed_name": "the feed is <output_dir>/run.jsonl (run-<worker_id>.jsonl for workers)"}[derived]
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
