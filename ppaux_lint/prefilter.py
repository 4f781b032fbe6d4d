"""A byte-level test that a file cannot change any finding, so most of a large tree is never parsed.

Soundness argument (why a skipped file provably cannot matter):

1. Every finding is about (a) a class that is an output, an observer, or
   defines a transport method, (b) a call of a PP helper, or (c) a use of the
   transport key prefix. (c) needs the literal prefix in the file, or the name
   of a helper module's constant for it (``_OUTPUT_PREFIX``, imported under
   that name by an import the file spells), (b) the
   helper's name (an alias ``import ... as x`` is bound by an import that
   spells the real name, in a file that then also holds the call only if the
   import is there, i.e. the name is in the file).
2. A class is an output or observer only if it defines ``copy_to_host`` or
   ``after_sample`` (structural), defines a transport method, or has a base
   that is one. Python names a base by an identifier written in the class's
   own file: the class's name, an alias bound there (``import ... as``,
   ``Alias = Name``), or an attribute path ending in the class's name. So its
   file contains that identifier.
3. The token set therefore starts from the root Protocols' names, the
   method names, the helper names and the prefix, and grows, until nothing
   changes, by every name a parsed file binds to something already in the
   set: possibly-relevant classes it defines and aliases it creates. A file
   that contains no token of the final set defines no relevant class, makes
   no helper call and uses no prefix.
4. Files a relevant class needs for resolution (a plain base class, a
   re-exporting ``__init__``) are not skipped for good: the index loads them
   on demand when a name resolves through them.
5. A forward observer takes a PPA001 away only from an output its file
   names (``after_forward`` builds or declares it), or one that a file naming
   it hands to the observer (``routes.py``): that file holds the output's name,
   a token, and the observer's own file is loaded on demand.

Limits, stated rather than hidden: identifiers written with non-ASCII
characters that NFKC-normalise to a token are not matched, and names built at
run time (``getattr(mod, "Ba" + "se")``) are invisible to any static checker.
The tests compare findings with and without the prefilter on the fixtures and
on generated projects.
"""

from __future__ import annotations

from collections.abc import Iterable

from ppaux_lint.config import Protocols
from ppaux_lint.names import AFTER_FORWARD, AFTER_SAMPLE, COPY_TO_HOST, FROM_PP, PREFIX_CONSTANTS, TO_PP
from ppaux_lint.pp_errors import PP_KEY_PREFIX
from ppaux_lint.summarize import HELPER_NAMES
from ppaux_lint.summary import ClassSummary, FileSummary

STRUCTURAL_METHODS = (COPY_TO_HOST, AFTER_SAMPLE, TO_PP, FROM_PP)
# A forward observer is classified when its file is parsed, but its hook is no token: a forward observer can
# take a finding away only by naming the output, whose name is one (routes.py), and "after_forward" is also
# the tail of common keyword names (reshard_after_forward), which would parse files for nothing.
_STRUCTURAL = frozenset({*STRUCTURAL_METHODS, AFTER_FORWARD})


def initial_tokens(protocols: Protocols) -> frozenset[str]:
    roots = (*protocols.output, *protocols.observer, *protocols.pp_output, *protocols.pp_observer,
             *protocols.forward_observer)
    return frozenset({r.rsplit(".", 1)[-1] for r in roots} | set(STRUCTURAL_METHODS) | set(HELPER_NAMES)
                     | set(PREFIX_CONSTANTS) | {PP_KEY_PREFIX.rstrip(".")})


def needles(tokens: Iterable[str]) -> tuple[bytes, ...]:
    """The tokens to search for: one that contains another is implied by it, so it is dropped."""
    ordered = sorted(set(tokens), key=len)
    kept: list[str] = []
    for token in ordered:
        if not any(shorter in token for shorter in kept):
            kept.append(token)
    return tuple(t.encode("utf-8") for t in kept)


def contains_any(data: bytes, search: tuple[bytes, ...]) -> bool:
    return any(needle in data for needle in search)


def possibly_relevant(cls: ClassSummary, tokens: frozenset[str]) -> bool:
    """Judged from the class alone: it defines a transport or structural method, or names a token as a base.
    Only such classes can be outputs or observers (point 2 above), so only they are classified."""
    own = {m.name for m in cls.methods} | {a.name for a in cls.assigns}
    return bool(own & _STRUCTURAL) or any(base.rsplit(".", 1)[-1] in tokens for base in cls.bases)


def bound_names(summary: FileSummary, tokens: frozenset[str]) -> set[str]:
    """Names this file binds to something possibly relevant: the growth step of the fixpoint."""
    names = {cls.name for cls in summary.classes if possibly_relevant(cls, tokens)}
    for imported in summary.imports:
        if not imported.star and imported.target.rsplit(".", 1)[-1] in tokens:
            names.add(imported.local)
    for local, value in summary.assignments:
        if value.rsplit(".", 1)[-1] in tokens:
            names.add(local)
    return names
