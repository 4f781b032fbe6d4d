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
5. A forward observer takes a PPA001 away from an output it returns by any
   route (``routes.py``: through a factory in another module, a classmethod,
   an attribute), so its file need not name the output: a structural forward
   observer's file holds ``def after_forward``, a token of its own (not the
   bare method name, which is also the tail of keywords such as
   ``reshard_after_forward``), and one built on the Protocol holds the root's
   name. An output handed to an observer's constructor is named where it is
   handed, a token. What the hooks call is loaded on demand when resolved.

6. Later rounds need not search every remaining file. The second round also
   guesses the tokens the fixpoint will reach (lookahead.py) and one search
   finds the files holding a guessed token; a round whose new tokens are all
   guessed searches only those, since any other file holds none of them, and
   a round with an unguessed token searches every remaining file. The guess
   thus decides what is read, never what is found.

7. A round searches only for its new tokens that contain no older one (``uncovered``): a file that holds
   ``TopKMasked`` holds ``TopK``, so it was read in the round that searched for ``TopK`` (or for a token
   ``TopK`` holds, and so on down to one that was searched). That skips a search, never a step of point 3:
   before a round decides what to search, every binding of the summaries read so far is followed to its end
   (``Bound.settle``: ``TopKMaskedScaled(TopKMasked)`` read in the same round as ``TopKMasked(TopK)`` makes
   both names tokens at once). So when a round has nothing left to search, no file read binds a name that is
   not a token and no file unread holds a token: that is the fixpoint of point 3, however many names
   extend each other (``L1``, ``L10``, ... ``L499``).

8. The search reads the file's text as Python does (``searchable``): a coding cookie that names another
   codec than UTF-8 (``latin-1``, or ``utf-7``, in which ``copy+AF8-to+AF8-host`` spells ``copy_to_host``)
   has the file decoded and searched as UTF-8, which is how the tokens are spelt. A file Python cannot
   decode cannot be imported, so its raw bytes stand in for it.

9. A class's final namespace is made by code around its statement too (``namespaces.py``), and that code can
   make a class an output or an observer, or change what its transport methods are. Each form is covered:
   - An assignment to a class outside its body (``Plain.copy_to_host = fn``, ``setattr(Plain, ...)``) names
     the class in the file that assigns. When it sets a structural or transport method, that file holds the
     method's name, a token, and its summary binds the class's name (``bindings``); the class's own file then
     holds a token, and the class, named by a token, is classified (``possibly_relevant``). Any other
     assignment only matters to a class that is relevant already, whose name is a token: the file that
     assigns holds it, so it is read (a name built at run time is the limit below).
   - A decorator is named where it is applied (``@deco``, or ``Out = deco(Out)``, which binds ``Out`` once
     ``deco`` is a token). A function that sets a structural or transport method on the
     class it is handed holds the method's name, and its summary binds its own name and the names of its
     enclosing definitions (a factory's, a class's for a method), so the decorated class's file holds a
     token and the class, decorated by one, is classified. A decorator that does anything else only matters
     to a class relevant already; its module is loaded when the decorator's name resolves (point 4).
   - A ``type(name, bases, ns)`` call is summarized as a class, and joins the growth as one does.
   - A base's ``__init_subclass__`` runs on its subclasses, which name it as a base: point 2.
   The index applies the edits of the files read first (``Namespaces``): a file that assigns to a relevant
   class is among them, by the first form.

Limits, stated rather than hidden: identifiers written with non-ASCII
characters that NFKC-normalise to a token are not matched, and names built at
run time (``getattr(mod, "Ba" + "se")``) are invisible to any static checker.
The tests compare findings with and without the prefilter on the fixtures and
on generated projects.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ppaux_lint.contract.names import (
    AFTER_FORWARD,
    AFTER_SAMPLE,
    COMPOSITE_OUTPUT,
    COPY_TO_HOST,
    FROM_PP,
    HELPER_NAMES,
    PREFIX_CONSTANTS,
    TO_PP,
)
from ppaux_lint.contract.pp_errors import PP_KEY_PREFIX
from ppaux_lint.facts.summary import ClassSummary, FileSummary
from ppaux_lint.project.config import Protocols
from ppaux_lint.scan.search import Substrings

STRUCTURAL_METHODS = (COPY_TO_HOST, AFTER_SAMPLE, TO_PP, FROM_PP)
# A forward observer's hook is found by its definition (point 5): "after_forward" alone is also the tail of
# common keyword names (reshard_after_forward), which would parse files for nothing.
FORWARD_DEFINITION = f"def {AFTER_FORWARD}"
_STRUCTURAL = frozenset({*STRUCTURAL_METHODS, AFTER_FORWARD})


def initial_tokens(protocols: Protocols) -> frozenset[str]:
    roots = (*protocols.output, *protocols.observer, *protocols.pp_output, *protocols.pp_observer,
             *protocols.forward_observer, COMPOSITE_OUTPUT)  # the index's output roots (``graph.py``)
    return frozenset({r.rsplit(".", 1)[-1] for r in roots} | set(STRUCTURAL_METHODS) | set(HELPER_NAMES)
                     | set(PREFIX_CONSTANTS) | {PP_KEY_PREFIX.rstrip("."), FORWARD_DEFINITION})


def encoded(tokens: Iterable[str]) -> tuple[bytes, ...]:
    """The tokens as the bytes a scan searches for (identifiers are ASCII or UTF-8 in a source file)."""
    return tuple(t.encode("utf-8") for t in tokens)


def searchable(data: bytes) -> bytes:
    """A file's bytes as a token search must see them: its text in UTF-8. Python reads the coding cookie from
    the first two lines, so a file that does not spell "coding" there is UTF-8 (a BOM changes no token) and is
    searched as it is: the common case costs three ``find`` calls and no decoding."""
    end = data.find(b"\n", data.find(b"\n") + 1)  # of the second line; -1: there is no second line break
    if data.find(b"coding", 0, end if end >= 0 else len(data)) < 0:
        return data
    import codecs

    from ppaux_lint.support.encoding import source_encoding

    try:
        encoding = source_encoding(data)
        if codecs.lookup(encoding).name == "utf-8":
            return data
        return data.decode(encoding).encode("utf-8", "surrogatepass")
    except (SyntaxError, LookupError, UnicodeError):  # Python cannot decode it either, so cannot import it
        return data


def uncovered(added: Iterable[str], older: Iterable[str]) -> frozenset[str]:
    """The added tokens that contain no older one: a file holding one that does was matched already."""
    added = tuple(added)
    if not added:  # the fixpoint's last round: nothing to index the older tokens for
        return frozenset()
    return Uncovered(older)(added)


class Uncovered:
    """``uncovered`` along a fixpoint: each call's ``added`` against every token held before it (the tokens it
    started with and all added since), whose index grows by what each call adds instead of being made anew."""

    def __init__(self, tokens: Iterable[str]) -> None:
        self._older = Substrings(encoded(tokens))

    def __call__(self, added: Iterable[str]) -> frozenset[str]:
        """The added tokens (none held already) that contain no older one; then they are held too."""
        added = tuple(added)
        found = frozenset(t for t in added if not self._older.any_in(t.encode("utf-8")))
        self._older.add(encoded(added))
        return found


def possibly_relevant(cls: ClassSummary, tokens: frozenset[str]) -> bool:
    """Judged from the class alone: it defines a transport or structural method, names a token as a base or a
    decorator, or is named by one (something assigns such a method to it). Only such classes can be outputs or
    observers (points 2 and 9 above), so only they are classified."""
    return _structural(cls) or cls.name in tokens or any(base.rsplit(".", 1)[-1] in tokens for base in cls.bases) \
        or any(d.name.rsplit(".", 1)[-1] in tokens for d in cls.decorations)


def _structural(cls: ClassSummary) -> bool:
    return bool(({m.name for m in cls.methods} | {a.name for a in cls.assigns}) & _STRUCTURAL)


def bindings(summary: FileSummary) -> Iterator[tuple[str | None, str]]:
    """(name, bound): this file binds ``bound`` to something possibly relevant once ``name`` is a token, or
    whatever the tokens are when ``name`` is None (a class with a structural method, a class this file gives
    one, a function that gives one to the class it is handed): the growth step."""
    for cls in summary.classes:
        if _structural(cls):
            yield None, cls.name
        else:
            yield from ((base.rsplit(".", 1)[-1], cls.name) for base in cls.bases)
    for edit in summary.edits:
        if edit.name in _STRUCTURAL and edit.target:
            yield None, edit.target.rsplit(".", 1)[-1]
        elif edit.kind == "decorate":  # ``Out = deco(Out)``: decorated, as by ``@deco``
            yield edit.how.removesuffix("()").rsplit(".", 1)[-1], edit.target.rsplit(".", 1)[-1]
    for editor in summary.editors:
        if any(edit.name in _STRUCTURAL for edit in editor.edits):
            yield from ((None, part) for part in editor.qualname.split(".") if part != "<locals>")
    for imported in summary.imports:
        if not imported.star:
            yield imported.target.rsplit(".", 1)[-1], imported.local
    for local, value in summary.assignments:
        yield value.rsplit(".", 1)[-1], local


class Bound:
    """The names the summaries so far bind to tokens so far, kept as both grow: asking every summary again
    each round would cost rounds x files."""

    def __init__(self) -> None:
        self._names: set[str] = set()
        self._waiting: dict[str, set[str]] = {}  # token-to-be -> the names it would bind

    def add(self, summaries: Iterable[FileSummary], tokens: frozenset[str]) -> None:
        for summary in summaries:
            for name, bound in bindings(summary):
                if name is None or name in tokens:
                    self._names.add(bound)
                else:
                    self._waiting.setdefault(name, set()).add(bound)

    def waiting_edges(self) -> dict[bytes, set[bytes]]:
        """What the summaries so far would bind once more names are tokens, as lookahead edges: exact, where
        the lookahead's own are read from bytes."""
        return {name.encode("utf-8"): {b.encode("utf-8") for b in bound} for name, bound in self._waiting.items()}

    def settle(self, tokens: frozenset[str]) -> frozenset[str]:
        """The names, not in ``tokens`` yet, that the summaries so far bind to ``tokens`` directly or through
        one another (point 3's growth, run to its end over what has been read): the caller makes them all
        tokens. ``Sub3(Sub2)``, ``Sub2(Sub1)`` and ``Sub1(Token)`` read in one round give all three."""
        fresh = self._names - tokens
        todo = list(fresh)
        while todo:
            for bound in self._waiting.pop(todo.pop(), ()):
                if bound not in tokens and bound not in fresh:
                    fresh.add(bound)
                    todo.append(bound)
        self._names |= fresh
        return frozenset(fresh)
