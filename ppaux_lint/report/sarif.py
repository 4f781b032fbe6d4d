"""SARIF 2.1.0, as code-scanning services (GitHub, Azure DevOps, GitLab) read it.

One run, one driver carrying every registered rule (so ``ruleIndex`` is stable
whatever was found), one result per finding. Locations are relative to the
source root and say so with ``uriBaseId: %SRCROOT%``; the root is the
repository that holds the findings (the nearest ``.git`` above them), else the
project root (nearest ``pyproject.toml``), else the working directory. That is
what ``github/codeql-action/upload-sarif`` resolves against, also for a project
that lives in a subdirectory of its repository. A finding that involves another
file (PPA015's sender and receiver) carries it as ``relatedLocations``.

``partialFingerprints`` carry a hash of the rule, the path, the symbol and the
message with line numbers taken out, never the line itself, so a result keeps
its identity when code above it moves; identical results in one file are told
apart by their order.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from ppaux_lint import __version__
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import Span
from ppaux_lint.report.paths import strict_json
from ppaux_lint.rules import Rule, all_rules, rule_document

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/ppaux-lint/ppaux-lint"
HELP_URI = INFORMATION_URI + "/blob/main/ppaux_lint/rules/{code}.md"
FINGERPRINT_KEY = "ppauxLint/v1"
SRCROOT = "%SRCROOT%"

_LEVELS = {"error": "error", "warning": "warning", "info": "note", "note": "note"}


def render(findings: Sequence[Finding], out: TextIO, unknown_classes: int = 0) -> None:
    json.dump(strict_json(sarif_log(findings, unknown_classes=unknown_classes)), out, indent=2, ensure_ascii=False)
    out.write("\n")


def sarif_log(findings: Sequence[Finding], root: Path | None = None, unknown_classes: int = 0) -> dict:
    """The SARIF log of ``findings``; ``unknown_classes``, the classes no rule could judge since code the analysis
    cannot follow touches them, goes in the run's property bag (``unknownClasses``) where there are any, as the
    summary line of the human formats says it."""
    root = root if root is not None else source_root([path for f in findings for path in f.paths])
    rule_index = {rule.code: number for number, rule in enumerate(all_rules())}
    results = []
    seen: dict[str, int] = {}
    for f in findings:
        uri = _relative_uri(f.path, root)
        identity = _identity(f, uri)
        ordinal = seen.get(identity, 0)
        seen[identity] = ordinal + 1
        result = {
            "ruleId": f.code,
            "level": _LEVELS.get(f.severity, "error"),
            "message": {"text": f.message},
            "locations": [{
                "physicalLocation": _physical_location(uri, f.span),
                "logicalLocations": [{"fullyQualifiedName": f.symbol, "kind": "type"}] if f.symbol else [],
            }],
            "partialFingerprints": {FINGERPRINT_KEY: f"{identity}:{ordinal}"},
        }
        if f.related:  # the other end of a cross-file finding (PPA015: the sender or the receiver)
            result["relatedLocations"] = [
                {"id": number, "message": {"text": r.message},
                 "physicalLocation": _physical_location(_relative_uri(r.path, root), r.span)}
                for number, r in enumerate(f.related, start=1)]
        if not result["locations"][0]["logicalLocations"]:
            del result["locations"][0]["logicalLocations"]
        if f.code in rule_index:
            result["ruleIndex"] = rule_index[f.code]
        if f.fix is not None:
            result["properties"] = {"fix": {"description": f.fix.description,
                                            "applicability": "safe" if f.fix.safe else "unsafe"}}
        results.append(result)
    run_properties = {"properties": {"unknownClasses": unknown_classes}} if unknown_classes else {}
    return {
        "$schema": SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "ppaux-lint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [rule_descriptor(rule) for rule in all_rules()],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": root.resolve().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": True}],
            "results": results,
            **run_properties,
        }],
    }


def _physical_location(uri: str, span: Span) -> dict:
    return {
        "artifactLocation": {"uri": uri, "uriBaseId": SRCROOT},
        "region": {
            "startLine": span.line,
            "startColumn": span.column,
            "endLine": max(span.end_line, span.line),
            "endColumn": span.end_column if span.end_line > span.line else max(span.end_column, span.column),
        },
    }


def rule_descriptor(rule: Rule) -> dict:
    document = _document(rule.code)
    what = _section(document, "What it does")
    why = _section(document, "Why is this bad?")
    full = "\n\n".join(part for part in (what, why) if part) or rule.summary
    descriptor = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "helpUri": HELP_URI.format(code=rule.code),
        "defaultConfiguration": {"level": "error"},
        "properties": {"fix": rule.fix, "tags": ["pipeline-parallel", "sglang"]},
    }
    if document:
        descriptor["help"] = {"text": full, "markdown": document}
    return descriptor


def _document(code: str) -> str:
    try:
        return rule_document(code)
    except (OSError, FileNotFoundError):
        return ""


def _section(document: str, title: str) -> str:
    """The body of ``## title`` in a rule document, as plain text (paragraphs kept, lines joined)."""
    match = re.search(rf"^##\s+{re.escape(title)}\s*$(.*?)(?=^##\s|\Z)", document, flags=re.M | re.S)
    if not match:
        return ""
    paragraphs = [" ".join(line.strip() for line in block.splitlines() if line.strip())
                  for block in re.split(r"\n\s*\n", match.group(1).strip())]
    return "\n\n".join(p for p in paragraphs if p)


def source_root(paths: Sequence[str], cwd: Path | None = None) -> Path:
    """Where relative URIs start: the repository holding the paths, else their project, else ``cwd``."""
    cwd = (cwd or Path.cwd()).resolve()
    absolute = [Path(p) if os.path.isabs(p) else cwd / p for p in paths] or [cwd]
    try:
        common = Path(os.path.commonpath([str(p.resolve()) for p in absolute]))
    except ValueError:  # different drives
        return cwd
    start = common if _looks(common.is_dir) else common.parent
    for marker in (".git", "pyproject.toml"):
        for directory in (start, *start.parents):
            if _looks((directory / marker).exists):
                return directory
    return cwd


def _looks(question: Callable[[], bool]) -> bool:
    """A yes-or-no question about a path, no for one the system cannot look up at all (longer than PATH_MAX, as a
    ``--stdin-filename`` may be), which Python before 3.14 raises for."""
    try:
        return question()
    except OSError:
        return False


def _relative_uri(path: str, root: Path) -> str:
    resolved = Path(path).resolve()
    try:
        relative = resolved.relative_to(root.resolve())
    except ValueError:
        return resolved.as_uri()  # outside the root: an absolute file URI, without uriBaseId meaning
    segments = [_quote(part) for part in relative.parts]
    if segments:  # a colon in the first segment would make ``x:y.py`` a URI of scheme ``x`` (RFC 3986, 4.2)
        segments[0] = segments[0].replace(":", "%3A")
    return "/".join(segments)


def _quote(part: str) -> str:
    from urllib.parse import quote

    # A file name that is not UTF-8 percent-encodes its original bytes, as a file URI should.
    return quote(part, safe="!$&'()*+,;=:@-._~", errors="surrogateescape")


_NUMBERS = re.compile(r"\b(?:line|lines|column|col)\s+\d+\b|:\d+(?::\d+)?\b|\(\s*line\s+\d+\s*\)", re.I)


def normalized_message(message: str) -> str:
    """The message without line or column numbers, whitespace collapsed: what identifies a result."""
    return " ".join(_NUMBERS.sub("", message).split())


def _identity(f: Finding, uri: str) -> str:
    text = "\0".join((f.code, uri, f.symbol, normalized_message(f.message)))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]
