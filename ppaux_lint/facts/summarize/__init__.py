"""One parse of one file, producing its FileSummary.

This is the only package that sees syntax trees. It records facts, not
verdicts: which names a class lists as bases, what its methods return, which
keys they read. Whether any of that is a problem needs the whole project, and
is decided by the index and the rules.

It parses with the standard library's ``ast``, not libcst: analysis needs no
concrete syntax, and CPython's C parser is 10-50x faster than building a
libcst tree with position metadata (see docs/design.md). libcst is
kept for what it is best at, rewriting code losslessly in ``--fix``.

Each module extracts one kind of fact, so a rule's author can see where the
fields they read come from:

- ``text``: decoding (coding cookie, BOM), character columns of every ``Span``, ``noqa``;
- ``walker``: the single source-order pass that hands statements to the modules below, and ``defs``;
- ``classes``: ``ClassSummary``, its bases, decorators, ``MemberAssign`` and ``Field`` facts (``init_fields``:
  what ``__init__`` stores, with the annotation it is stored from);
- ``methods``: ``MethodSummary`` and ``Param``: signatures, return annotations, stub bodies;
- ``returns``: ``ReturnFact``/``KeyFact``/``ValueFact`` of what a method returns, and generator-ness,
  judged with ``values`` (certainly not a tensor) and ``flow`` (falling off the end);
- ``built``: the ``ReturnFact`` of a returned local that the method builds step by step (``out = {}``,
  ``out["a"] = t``, ``return out``), followed path by path;
- ``key_reads``: the keys a method reads from the mapping it receives;
- ``imports``: ``Import`` (relative made absolute), ``all_names`` and module-level ``assignments``;
- ``calls``: ``CallSite`` of the transport helpers and ``PrefixUse`` of the key prefix;
- ``frames``: what a name is bound to, when certain (``observer = None``, ``_PREFIX = "..."``), for ``calls``;
- ``handoffs``: ``Handoff`` of new objects passed to calls, which route outputs to forward observers and say what
  a constructor's parameters receive;
- ``flows``: ``FunctionFlow`` of what each function returns and binds, for the inference;
- ``namespaces``: what code outside class bodies does to classes (``NamespaceEdit``, ``ClassEditor``), the
  ``ClassSummary`` of each ``type(name, bases, ns)`` call, and ``FunctionSummary`` of the functions that may
  become methods;
- ``uses``: ``value_names``, the class-like names used other than as bases or annotations;
- ``constants``: ``constants`` and ``rebound``, the names a module or class binds once to a constant
  expression (keys written as names, type variables), and the module's names bound more than once;
- ``syntax``: dotted names, literals and scopes, read the same way by all of them.

This module turns the file's bytes into a tree and the collected facts into a
summary, and any failure on the way into a summary that carries the error.
"""

from __future__ import annotations

import ast
import sys
import warnings

from ppaux_lint.facts.summarize import handoffs
from ppaux_lint.facts.summarize.calls import HELPER_NAMES, worth_scanning
from ppaux_lint.facts.summarize.syntax import dotted
from ppaux_lint.facts.summarize.text import Positions, Unreadable, decode, noqa_comments
from ppaux_lint.facts.summarize.uses import value_names
from ppaux_lint.facts.summarize.walker import Collector
from ppaux_lint.facts.summary import FileSummary, ParseError, Span

__all__ = ["HELPER_NAMES", "dotted", "summarize_source"]


def summarize_source(source: bytes, path: str, module: str, is_package: bool,
                     target: int | None = None) -> FileSummary:
    """Summarize one file's bytes; undecodable or unparsable input becomes a summary carrying the error.

    ``target`` is the Python 3 minor version whose grammar the file is read with (``project.python_versions``
    says which one a project targets; None: the running interpreter's own). ``ast``'s ``feature_version``
    refuses what is newer than the target (``match`` before 3.10, ``except*`` before 3.11, ``type`` statements
    and generic parameters before 3.12, ``except A, B:`` before 3.14) on every interpreter that knows it, so the
    findings do not depend on the Python that runs ppaux-lint. It cannot accept what is newer than that Python:
    such a syntax error says the interpreter, not the file, may be the cause."""
    try:
        with warnings.catch_warnings():  # the checked code's SyntaxWarnings (and its codecs' warnings) are
            warnings.simplefilter("ignore")  # not ours to print; under PYTHONWARNINGS=error they would fail it
            text = decode(source)
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
        with warnings.catch_warnings():  # string annotations are parsed too
            warnings.simplefilter("ignore")
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
