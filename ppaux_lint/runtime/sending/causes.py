"""What a failure's exception leaves unsaid, in words: a key that ``from_pp_tensors`` read and nobody sent.

SGLang's pop strips ``__sampling_observer_output__.`` from every key before ``from_pp_tensors`` sees the dict,
so an observer that reads the prefixed key, or a name its output never sends (one renamed on one side only),
raises a bare ``KeyError: '__sampling_observer_output__.keep'``: which class read it, where, and what there
was to read are left to the reader of the row. ``missing_key`` takes the exception and the names that
arrived, and gives those words. It runs where the exception is caught, in whichever process ran pop (the
receiving rank's, under ``dist``), and gives plain text, which crosses to the row in the verdict's JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType

READER = "from_pp_tensors"


def missing_key(exc: BaseException, given: Sequence[str], prefix: str) -> str:
    """Who read a key that was not among ``given`` (the names ``from_pp_tensors`` was handed) and where, what
    was given instead, and that pop strips ``prefix``; "" unless ``exc`` is a ``KeyError`` on such a key,
    raised below a ``from_pp_tensors`` frame by a frame that holds the mapping it was handed."""
    key = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 else None
    if not isinstance(key, str) or key in given:
        return ""
    frames = _frames(exc.__traceback__)
    readers = [tb for tb in frames if tb.tb_frame.f_code.co_name == READER]
    if not readers:
        return ""
    reader, innermost = readers[-1], frames[-1]
    received = _received(reader)
    if received is None or not any(value is received for value in innermost.tb_frame.f_locals.values()):
        return ""  # the key of another mapping (a table of the observer's own): the exception says what it is
    where = f"{_owner(reader)}.{READER} read it at {_place(reader)}"
    if innermost is not reader:
        where += f" (in {innermost.tb_frame.f_code.co_name} at {_place(innermost)})"
    sent = ", ".join(repr(name) for name in given) or "no tensor"
    text = f"{where}, but that key was not sent: the output sent {sent}"
    stripped = key[len(prefix):] if key.startswith(prefix) else None
    if stripped in given:
        text += (f" (SGLang's pop strips the prefix {prefix!r} before {READER} sees the keys: "
                 f"read {stripped!r})")
    return text


def _received(reader: TracebackType) -> Mapping[str, object] | None:
    """The mapping ``from_pp_tensors`` was handed, as its frame holds it: a KeyError is about a key that was not
    sent only where the frame that raised it holds that very mapping (``tensors[...]``, or a helper it was
    passed to), not where the observer looked up a table of its own."""
    code, local = reader.tb_frame.f_code, reader.tb_frame.f_locals
    return next((local[name] for name in code.co_varnames[:code.co_argcount]
                 if isinstance(local.get(name), Mapping)), None)


def _frames(tb: TracebackType | None) -> list[TracebackType]:
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    return frames


def _owner(tb: TracebackType) -> str:
    """The class whose ``from_pp_tensors`` ran in ``tb``: its instance's (or, for a classmethod, its own)."""
    local = tb.tb_frame.f_locals
    owner = local.get("self", local.get("cls"))
    klass = owner if isinstance(owner, type) else type(owner) if owner is not None else None
    if klass is None:
        return tb.tb_frame.f_globals.get("__name__", "?")
    return f"{klass.__module__}.{klass.__qualname__}"


def _place(tb: TracebackType) -> str:
    return f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
