"""One ``ExitCode`` enum and one exception base: every error class of skill3 derives from ``Skill3Error``
and carries the exit code a command ends with; no module defines exit codes of its own."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from synth.core.errors import ExitCode, Skill3Error, UsageError

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("synth", "skill3", "skill3crawl")


def modules() -> list[Path]:
    return [p for top in PACKAGES for p in sorted((ROOT / top).rglob("*.py"))]


def error_classes() -> list[type]:
    """Every class a package module defines whose name says it is an error, or that derives from an exception."""
    found = []
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
        if not names:
            continue
        mod = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
        found += [c for c in (getattr(mod, n) for n in names)
                  if isinstance(c, type) and issubclass(c, BaseException) and c.__module__ == mod.__name__]
    return found


def test_the_exit_codes() -> None:
    assert {c.name: int(c) for c in ExitCode} == {"OK": 0, "FAILURE": 1, "USAGE": 2, "FINDINGS": 3, "INTERRUPTED": 130,
                                                  "TERMINATED": 143}


def test_every_error_class_derives_from_the_base() -> None:
    classes = error_classes()
    assert len(classes) >= 19
    assert [c.__qualname__ for c in classes if not issubclass(c, Skill3Error)] == []


@pytest.mark.parametrize("name, code", [
    ("skill3crawl.args.ArgsError", 2), ("skill3crawl.corpus.CorpusError", 2), ("skill3crawl.runner.SettingError", 2),
    ("skill3crawl.discovery.registries.SpecError", 2), ("synth.evidence.cutoff.CutoffError", 2), ("synth.pipeline.bundle.BundleError", 2),
    ("synth.output.ownership.OwnershipError", 2), ("synth.lint.model.LintError", 2), ("synth.llm.model.MissingKeyError", 2),
    ("synth.llm.model.UnknownProviderError", 2), ("synth.llm.model.LLMError", 1), ("synth.llm.model.ContextLengthError", 1),
    ("synth.skill.postprocess.PostProcessError", 1), ("synth.pipeline.checks.LintFailure", 1), ("synth.vet.runner.ScannerUnavailable", 1),
    ("synth.vet.input_vet.AllSourcesQuarantined", 1), ("synth.vet.findings.ReportError", 1), ("synth.vet.record.RecordError", 1),
])
def test_each_error_carries_its_exit_code(name: str, code: int) -> None:
    module, _, cls = name.rpartition(".")
    error = getattr(importlib.import_module(module), cls)
    assert error.exit_code == code and isinstance(error.exit_code, ExitCode)


def test_an_error_can_carry_another_code() -> None:
    from synth.core.errors import SynthFailure
    from synth.vet.install import SetupError

    assert SynthFailure(2, "bad input").exit_code == ExitCode.USAGE == SynthFailure(2, "x").code
    assert SetupError("no python").exit_code == ExitCode.FAILURE and SetupError("bad path", 2).exit_code == ExitCode.USAGE
    assert str(UsageError("one line")) == "one line" and UsageError("x").exit_code == ExitCode.USAGE


def test_no_module_defines_exit_codes_of_its_own() -> None:
    pattern = re.compile(r"^\s*(?:EXIT_\w+|GATE_EXIT)\s*(?:,\s*\w+\s*)*=", re.M)
    assert [str(p.relative_to(ROOT)) for p in modules() if pattern.search(p.read_text(encoding="utf-8"))] == []


def error_tree() -> list[str]:
    """The exception classes of :mod:`synth.core.errors` as its docstring draws them: subclasses under their base,
    in definition order, each with its foreign bases and exit code."""
    import synth.core.errors as errors

    classes = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, BaseException) and c.__module__ == errors.__name__]
    lines: list[str] = []

    def walk(cls: type, depth: int) -> None:
        foreign = [b.__name__ for b in cls.__bases__ if b.__module__ != errors.__name__]
        lines.append("  " * depth + ("+ " if depth else "") + cls.__name__ + (f" ({', '.join(foreign)})" if foreign else "")
                     + f" — exit {int(cls.exit_code)}")  # type: ignore[attr-defined]
        for sub in classes:
            if cls in sub.__bases__:
                walk(sub, depth + 1)

    walk(errors.Skill3Error, 0)
    return lines


def test_every_error_class_is_defined_in_the_errors_module_and_drawn_in_its_tree() -> None:
    import synth.core.errors as errors

    elsewhere = [f"{c.__module__}.{c.__qualname__}" for c in error_classes() if c.__module__ != errors.__name__]
    assert elsewhere == []
    doc = errors.__doc__ or ""
    drawn = [line[4:] for line in doc[doc.index("::\n\n") + 4:].split("\n\n")[0].splitlines()]
    assert drawn == error_tree()
