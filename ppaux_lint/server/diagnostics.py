"""Findings as LSP diagnostics, and which files to publish them for after each analysis.

A client shows a file's diagnostics until it is sent a new list, so a file whose findings went away must be
sent an empty one: the publisher remembers which files it left showing some.
"""

from __future__ import annotations

from lsprotocol import types

from ppaux_lint.facts.findings import Finding
from ppaux_lint.report.sarif import HELP_URI
from ppaux_lint.server.linting import Result

SOURCE = "ppaux-lint"
_SEVERITIES = {"warning": types.DiagnosticSeverity.Warning, "info": types.DiagnosticSeverity.Information,
               "note": types.DiagnosticSeverity.Information}


def diagnostic(finding: Finding, result: Result) -> types.Diagnostic:
    """The finding, linked to its rule's document, with the other end of a cross-file finding as related
    information (so an editor can jump from the sender to the receiver)."""
    related = [types.DiagnosticRelatedInformation(
        location=types.Location(uri=result.uri(r.path), range=result.lines(r.path).span_range(r.span)),
        message=r.message) for r in finding.related]
    return types.Diagnostic(
        range=result.lines(finding.path).span_range(finding.span), message=finding.message,
        severity=_SEVERITIES.get(finding.severity, types.DiagnosticSeverity.Error), code=finding.code,
        code_description=types.CodeDescription(href=HELP_URI.format(code=finding.code)), source=SOURCE,
        related_information=related or None)


class Publisher:
    """Turns each analysis into the publishDiagnostics notifications that bring the client up to date."""

    def __init__(self) -> None:
        self._showing: set[str] = set()  # URIs last sent a non-empty list

    def updates(self, result: Result) -> list[types.PublishDiagnosticsParams]:
        """Every open document (an empty list clears it), every file a finding is located in (a PPA015
        pair's other end, even when it is not open), and an empty list for each file that showed some."""
        lists: dict[str, list[types.Diagnostic]] = {document.uri: [] for document in result.documents.values()}
        for finding in result.analysis.findings if result.analysis is not None else ():
            lists.setdefault(result.uri(finding.path), []).append(diagnostic(finding, result))
        for uri in self._showing - lists.keys():
            lists[uri] = []
        self._showing = {uri for uri, found in lists.items() if found}
        versions = {document.uri: document.version for document in result.documents.values()}
        return [types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=versions.get(uri))
                for uri, found in sorted(lists.items())]
