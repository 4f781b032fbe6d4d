"""Where ``--fix`` may write, and how: the checked files only, each replaced whole or not at all.

``--fix`` runs on repositories nobody has read, so a file in one must not lead it elsewhere, and a fix is worth
less than the file it rewrites:

- Only a checked file is written. A symlink is followed only to another checked file, which is then fixed and
  the link kept; one that leads anywhere else is not followed, nor is a file named through a directory link that
  leads out of the project (``vendor -> /elsewhere``, committed, and ``check --fix */*.py``). A file with other
  hard links is not written either: its other names may be anywhere, and writing in place would change them
  while replacing it would part it from them.
- The kernel is asked first whether this process may write the file (``fileio.writable_file``), so a read-only
  file or file system, or an immutable file, is refused before anything is written.
- The file is replaced atomically (``fileio.replace_file``): a temporary file beside it, synced, given its mode,
  owner and extended attributes and renamed over it; a kill, a full disk or a crash leaves the old text or the
  new one. A kill before the rename leaves the temporary file, which the next write of that file removes. Its
  directory is opened by a descriptor, one component at a time without following a link, and every step of
  the write goes through it: a directory swapped for a link after the checks above cannot redirect it.
- Just before the rename the file is read again: one saved since the fix read it (an editor, another tool)
  keeps what was saved, and the fix is not written.

A file refused is :class:`NotWritten`, a warning for that file: it keeps its text and its findings, and the
other files are fixed.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from ppaux_lint.support.fileio import ChangedMeanwhile, replace_file, writable_file


class NotWritten(Exception):
    """A fixed file left as it was, and why (one line, for the warning)."""


class CheckedFiles:
    """Writes fixed text to the checked files (by discovery's names: absolute, directories resolved)."""

    def __init__(self, checked: Collection[str], linked: Collection[str] = ()) -> None:
        self.checked = checked
        self.linked = linked

    def write(self, path: str, text: str, encoding: str, original: str) -> None:
        """Replace ``path``'s ``original`` text (as read, in ``encoding``) with ``text``."""
        real = os.path.realpath(path)
        if real != path and real not in self.checked:
            raise NotWritten(f"it is a symlink to {real}, which is not one of the checked files")
        if path in self.linked or real in self.linked:
            raise NotWritten("it was named through a link in a repository that leads out of that repository")
        data = encode_source(text, encoding)
        expected = encode_source(original, encoding)
        try:
            info = writable_file(real)
            if info.st_nlink > 1:
                raise NotWritten(f"it has {info.st_nlink} hard links, whose other names were not checked: a fix "
                                 "would change them too, or part the file from them")
            replace_file(real, data, like=info, durable=True, expected=expected, resolved=True, strays=True)
        except ChangedMeanwhile:
            raise NotWritten("it changed since it was read (saved meanwhile): its own text is kept; run again to fix "
                             "it") from None
        except OSError as error:
            raise NotWritten(f"cannot write it: {error.strerror or error}") from None


def encode_source(text: str, encoding: str) -> bytes:
    """``text`` in a source file's ``encoding`` (its coding cookie's), or NotWritten: Python reads source in any
    codec that decodes, and some do not encode what they decoded (``idna`` refuses a line longer than a domain
    label with a UnicodeError that is no UnicodeEncodeError) or give back other text."""
    try:
        data = text.encode(encoding)
        same = data.decode(encoding) == text
    except (UnicodeError, LookupError):
        same = False
    if not same:
        raise NotWritten(f"the fixed text cannot be written in the file's encoding, {encoding}")
    return data
