"""The modules the index will load first when it resolves the bases of the classes it judges.

The prefilter leaves unparsed the file that defines a plain base class, or re-exports one; the index loads it
when a base's name resolves through it (``graph.py``), one module at a time, each a parse the run waits for:
232 of them, one after another, in a cold check of the 50,000-file synthetic project. The first module each
name leads to is already written in the class's own file: the import that binds the base's first name, read as
``ProjectGraph`` reads it (its target, or the longest part of it that is a project module). Summarizing those
modules together beforehand (``SummaryStore.prefetch``) spreads them over the workers. It is only a guess at
what the index will ask for: a module guessed and never asked for costs one parse, and one asked for and not
guessed is loaded as before, so what the index sees does not depend on it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from ppaux_lint.facts.summary import ClassSummary, FileSummary


def first_hops(classes: Iterable[tuple[FileSummary, ClassSummary]], known: Collection[str]) -> Iterator[str]:
    """The project modules (of ``known``) that the import binding each base's first name of ``classes`` (each
    with its file's summary) leads to first."""
    for summary, cls in classes:
        heads = {base.partition(".")[0] for base in cls.bases}
        for imported in summary.imports:
            if imported.local in heads and not imported.star:
                module = _longest_module(imported.target, known)
                if module is not None:
                    yield module


def _longest_module(dotted: str, known: Collection[str]) -> str | None:
    """``dotted`` if it is a project module, else the longest of its prefixes that is one (as
    ``ProjectGraph._resolve_absolute`` cuts it)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if module in known:
            return module
    return None
