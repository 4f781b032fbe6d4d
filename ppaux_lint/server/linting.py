"""One analysis of the project as the editor sees it: the open documents' buffers over the files on disk.

Every open document is both an overlay (its unsaved text is what is checked, and what every other file's
names resolve against) and a file asked about, so a cross-file finding (a PPA015 pair) that involves one is
reported wherever it is located. Excludes apply to documents as ``--force-exclude`` applies them, as in
ruff's server: opening a vendored or excluded file does not light it up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path

from lsprotocol import types

from ppaux_lint.check.engine import Analysis, Options, analyze
from ppaux_lint.fixes.sources import read_source
from ppaux_lint.server.positions import Lines
from ppaux_lint.support.encoding import source_encoding
from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.records import dataclass


@dataclass(frozen=True)
class Document:
    """An open document as the client last sent it."""

    uri: str
    version: int | None
    text: str


@dataclass
class Result:
    """An analysis, the documents it was made from, and the positions of the files it reports on."""

    documents: Mapping[str, Document]  # by file_key
    analysis: Analysis | None  # None when no document is open
    encoding: str = types.PositionEncodingKind.Utf16
    error: str | None = None  # a usage or config error that kept some documents out of ``analysis``
    _lines: dict[str, Lines] = field(default_factory=dict, repr=False, compare=False)

    def uri(self, path: str) -> str:
        """The client's own URI for an open document (its spelling, not ours), else the file's."""
        document = self.documents.get(path)
        return document.uri if document is not None else Path(path).as_uri()

    def lines(self, path: str) -> Lines:
        """The text the findings of ``path`` were computed from: the buffer's, or the file's on disk."""
        if path not in self._lines:
            try:
                text = read_source(path, self.analysis.overlays if self.analysis is not None else None)[0]
            except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
                text = ""  # positions then pass through unconverted
            self._lines[path] = Lines(text, self.encoding)
        return self._lines[path]


def lint(documents: Mapping[str, Document], encoding: str = types.PositionEncodingKind.Utf16) -> Result:
    """Analyse the project with ``documents`` (by file_key) as overlays and as the files asked about. A document
    whose project cannot be read (a broken ppaux-lint table, in a repository opened beside the user's own) does
    not take the others' diagnostics with it: each document is then tried alone, and those that can be analysed
    are, together; the error comes with them (``Result.error``). UsageError when none can."""
    if not documents:
        return Result(documents, None, encoding)
    try:
        return Result(documents, _analyze(documents), encoding)
    except UsageError as error:
        if len(documents) < 2:
            raise
        usable = {path: document for path, document in documents.items() if _analyzable(path, document)}
        if not usable:
            raise
        return Result(documents, _analyze(usable), encoding, error=str(error))


def _analyze(documents: Mapping[str, Document]) -> Analysis:
    options = Options(overlays={path: encode(document.text) for path, document in documents.items()},
                      force_exclude=True, in_process=True)
    return analyze(list(documents), options)


def _analyzable(path: str, document: Document) -> bool:
    try:
        _analyze({path: document})
    except UsageError:
        return False
    return True


def encode(text: str) -> bytes:
    """A buffer's bytes as they would be saved: in the encoding its coding cookie declares (which the
    summaries decode with), else UTF-8."""
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no file can hold: kept, so the file is PPA000, not the server stuck
        data = text.encode("utf-8", "surrogatepass")
    try:
        declared = source_encoding(data)
        return data if declared.startswith("utf-8") else text.encode(declared)
    except (SyntaxError, LookupError, UnicodeError):
        return data  # the summary reports the undecodable file as PPA000
