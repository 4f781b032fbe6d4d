"""Rendering verify's results: a rich table for people, JSON for tools, JUnit XML for CI."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ppaux_lint.runtime.terms.helpers import STAND_INS_LABEL
from ppaux_lint.runtime.terms.results import ERROR, FAIL, PASS, SKIP, STATUSES, VerifyResult, failures

_STYLES = {PASS: "green", FAIL: "bold red", SKIP: "yellow", ERROR: "bold magenta"}
STAND_INS_NOTE = ("sglang is not installed: its protocol modules were ppaux-lint's stand-ins and the bundled "
                  "helpers judged; install sglang to verify against it")
# Characters XML 1.0 cannot carry at all; exception messages and worker stderr may hold them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render_json(results: Sequence[VerifyResult]) -> str:
    return json.dumps([r.to_json() for r in results], indent=2) + "\n"


def render_table(results: Sequence[VerifyResult], console: Console, helpers: str) -> None:
    """The table, then a footer with the counts and ``helpers``, the label of the helpers that judged.

    Every text (a row's cells and reproducer, the footer and its note) is printed as it is, never read as Rich
    markup: an exception's words may hold ``[/]``. Rows from a launched run (``torchrun/launch.py``) add the
    ranks each one crossed, sender first: ``2→0``. After the table, each counterexample that ``--explore`` shrank
    comes as a ``ppaux_example`` to paste. Where SGLang is not installed, the footer says what judged instead
    (``STAND_INS_NOTE``): a pass there is a pass against the contract, not against an installed SGLang.
    """
    table = Table(show_edge=False, header_style="bold", expand=False)
    launched = any(r.ranks is not None for r in results)
    columns = ("Class", "Status", "Device", *(("Ranks",) if launched else ()), "Tensors", "Time", "Message")
    for column in columns:
        table.add_column(column, overflow="fold", no_wrap=column not in ("Class", "Message"),
                         ratio=3 if column == "Message" else None)
    for r in results:
        ranks = ("→".join(map(str, r.ranks or ())),) if launched else ()
        middle = (r.device, *ranks, str(len(r.tensors)) if r.tensors else "", f"{r.seconds:.2f}s")
        table.add_row(Text(r.symbol), Text(r.status, style=_STYLES[r.status]), *map(Text, middle), Text(r.message))
    console.print(table)
    for r in results:
        if r.reproducer:
            console.print(Text(f"\n{r.symbol}: to reproduce, paste into the class:"))
            console.print(Text(r.reproducer), soft_wrap=True)
    console.print(Text(summary_line(results, helpers)))
    if helpers == STAND_INS_LABEL:
        console.print(Text(STAND_INS_NOTE))


def summary_line(results: Sequence[VerifyResult], helpers: str) -> str:
    """The counts of rows by status; where a pair's two rows share one failure, how many failures there are."""
    counts = Counter(r.status for r in results)
    distinct = failures(list(results))
    shared = f" ({distinct} failure{'s' if distinct != 1 else ''}: a pair's two rows share one)"
    parts = [f"{counts[s]} {s}{shared if s == FAIL and distinct < counts[s] else ''}" for s in STATUSES if counts[s]]
    noun = "class" if len(results) == 1 else "classes"
    return f"{len(results)} {noun} verified: {', '.join(parts) or 'nothing to verify'} (helpers: {helpers})"


def write_junit(results: Sequence[VerifyResult], path: Path) -> None:
    """One testcase per class, in a single suite; fail -> failure, error -> error, skip -> skipped. JUnit counts
    testcases, so a pair's shared failure counts on both rows; each carries the ``pair`` property."""
    counts = Counter(r.status for r in results)
    suite = ET.Element(
        "testsuite",
        name="ppaux-lint verify",
        tests=str(len(results)),
        failures=str(counts[FAIL]),
        errors=str(counts[ERROR]),
        skipped=str(counts[SKIP]),
        time=f"{sum(r.seconds for r in results):.3f}",
    )
    for r in results:
        module, _, name = r.symbol.rpartition(".")
        case = ET.SubElement(suite, "testcase", classname=_clean(module or r.symbol), name=_clean(name),
                             time=f"{r.seconds:.3f}")
        props = ET.SubElement(case, "properties")
        properties = [("device", r.device), ("transport", r.transport), ("helpers", r.helpers)]
        if r.ranks is not None:
            properties += [("ranks", ",".join(map(str, r.ranks))), ("hosts", ",".join(r.hosts or ()))]
        if r.pair:
            properties.append(("pair", ",".join(r.pair)))
        for key, value in properties:
            ET.SubElement(props, "property", name=key, value=_clean(value))
        tag = {FAIL: "failure", ERROR: "error", SKIP: "skipped"}.get(r.status)
        if tag is not None:
            element = ET.SubElement(case, tag, message=_clean(r.message))
            element.text = _clean(r.detail or r.message)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
