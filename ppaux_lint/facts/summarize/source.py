"""``summarize_source``: one file's bytes to its ``FileSummary``, through the fact modules of this package."""

from __future__ import annotations

import ast
import sys
import warnings

from ppaux_lint.facts.summarize import handoffs
from ppaux_lint.facts.summarize.calls import HELPER_NAMES, worth_scanning
from ppaux_lint.facts.summarize.shadows import shadowed
from ppaux_lint.facts.summarize.text import Positions, SourceText, Unreadable, decode, noqa_comments
from ppaux_lint.facts.summarize.uses import value_names
from ppaux_lint.facts.summarize.walker import Collector
from ppaux_lint.facts.summary import FileSummary, ParseError, Span


def summarize_source(source: bytes, path: str, module: str, is_package: bool,
                     target: int | None = None) -> FileSummary:
    """Summarize one file's bytes; undecodable or unparsable input becomes a summary carrying the error.

    ``target`` is the Python 3 minor version whose grammar the file is read with (``project.python_versions``
    says which one a project targets; None: the running interpreter's own). ``ast``'s ``feature_version``
    refuses what is newer than the target (``match`` before 3.10, ``except*`` before 3.11, ``type`` statements
    and generic parameters before 3.12, ``except A, B:`` before 3.14) on every interpreter that knows it, so the
    findings do not depend on the Python that runs ppaux-lint. It cannot accept what is newer than that Python:
    such a syntax error says the interpreter, not the file, may be the cause."""
    # The checked code's SyntaxWarnings (its codecs' warnings, those of the string annotations parsed) are not
    # ours to print, and under PYTHONWARNINGS=error they would fail the file: one filter for the whole file.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _summarize(source, path, module, is_package, target)


def _summarize(source: bytes, path: str, module: str, is_package: bool, target: int | None) -> FileSummary:
    try:
        text = SourceText(decode(source))
        tree = ast.parse(source, filename=path, type_comments=False,
                         feature_version=None if target is None else (3, target))
    except Unreadable as exc:
        return _with_error(path, module, is_package, exc.error)
    except SyntaxError as exc:
        line = exc.lineno or 1
        column = max(1, exc.offset or 1)
        return _with_error(path, module, is_package,
                           ParseError(f"syntax error: {exc.msg}{_too_old(target)}", Span(line, column, line, column)))
    except (RecursionError, MemoryError):
        return _with_error(path, module, is_package,
                           ParseError("too deeply nested for the Python parser", Span(1, 1, 1, 1)))
    except ValueError as exc:  # what some Python versions raise instead of SyntaxError
        return _with_error(path, module, is_package, ParseError(f"cannot parse: {exc}", Span(1, 1, 1, 1)))
    collector = Collector(module, is_package, Positions(text))
    try:
        collector.walk(tree, deep=worth_scanning(text), forward=handoffs.worth_scanning(text))
    except RecursionError:
        return _with_error(path, module, is_package,
                           ParseError("too deeply nested to analyse", Span(1, 1, 1, 1)))
    bindings = collector.bindings
    constants, rebound = collector.constants.finish(text)
    return FileSummary(
        path=path,
        module=module,
        is_package=is_package,
        classes=tuple(collector.classes),
        imports=tuple(sorted(bindings.imports, key=lambda i: i.nested)),
        all_names=bindings.all_names,
        assignments=tuple(bindings.assignments),
        calls=tuple(collector.uses.helper_calls()),
        prefix_uses=tuple(collector.uses.prefix_uses),
        noqa=noqa_comments(text, tree),
        defs=tuple(collector.defs),
        defines_helpers=set(collector.defs) >= HELPER_NAMES,
        handoffs=tuple(collector.handoffs.found),
        flows=tuple(collector.flows.found),
        value_names=value_names(tree),
        edits=tuple(collector.namespaces.edits),
        editors=tuple(collector.namespaces.editors),
        functions=tuple(collector.namespaces.functions),
        constants=constants,
        rebound=rebound,
        shadowed=shadowed(tree, rebound, module, is_package) if rebound else (),
    )


def _too_old(target: int | None) -> str:
    """What a syntax error adds when the interpreter is older than the target: the file may be right."""
    running = sys.version_info[:2]
    if target is None or running >= (3, target):
        return ""
    return (f" (ppaux-lint runs on Python {running[0]}.{running[1]}, older than Python 3.{target} that the project"
            f" targets, and cannot read syntax newer than its own: run ppaux-lint on Python 3.{target} or newer)")


def _with_error(path: str, module: str, is_package: bool, error: ParseError) -> FileSummary:
    return FileSummary(path=path, module=module, is_package=is_package, error=error)
