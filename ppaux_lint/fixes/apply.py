"""Turning plans into edits, and edits into files: ``--fix`` and ``--diff``.

Each plan is materialized on its own and turned into line edits, so that fixes to one file can be combined:
those that do not overlap go in together, an overlapping one waits for the next round, after the project is
re-analysed (as ruff does). A file whose result would not compile is left as it was, and so is one that
writing.py may not or cannot write: its findings remain, and the other files are fixed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field, replace
from typing import TYPE_CHECKING

from ppaux_lint.facts.findings import Edit, Finding
from ppaux_lint.fixes.codemod import Unfixable, transform
from ppaux_lint.fixes.plan import Plan
from ppaux_lint.fixes.planning import plan_fixes
from ppaux_lint.fixes.render import quote_style
from ppaux_lint.fixes.sources import read_source_data, writes_back
from ppaux_lint.fixes.writing import CheckedFiles, NotWritten, encode_source
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.check.engine import Analysis

MAX_ROUNDS = 10


# -- edits --------------------------------------------------------------------------------------------
def line_edits(old: str, new: str) -> tuple[Edit, ...]:
    """The smallest line-level edits turning ``old`` into ``new`` (character offsets into ``old``)."""
    import difflib  # here: a check that only plans its fixes (most runs with findings) never needs it

    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    edits = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            edits.append(Edit(starts[i1], starts[i2], "".join(new_lines[j1:j2])))
    return tuple(edits)


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    out, cursor = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out.append(text[cursor:edit.start])
        out.append(edit.text)
        cursor = edit.end
    out.append(text[cursor:])
    return "".join(out)


def overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end and b.start == b.end:
        return False  # two insertions at one point: both go in, in order
    return (a.start < b.end and b.start < a.end) or (a.start == a.end and b.start < a.start < b.end) or (
        b.start == b.end and a.start < b.start < a.end)


# -- rounds -------------------------------------------------------------------------------------------
@dataclass
class FileResult:
    path: str
    encoding: str
    original: str
    fixed: str
    applied: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.original != self.fixed


@dataclass
class FixRound:
    files: dict[str, FileResult]
    applied: list[Finding]  # findings whose fix went in, with their edits
    deferred: list[Plan]  # overlapped an applied fix: try again next round
    failed: list[tuple[Plan, str]]  # could not be materialized (and why)


def applicable(plans: Iterable[Plan], unsafe: bool) -> list[Plan]:
    return [p for p in plans if p.safe or unsafe]


def fix_round(plans: Sequence[Plan], overlays: Mapping[str, bytes] | None = None) -> FixRound:
    """Materialize every plan, apply the non-overlapping ones per file (in memory), to the overlay's text
    where the analysis read one."""
    by_path: dict[str, list[Plan]] = {}
    for plan in plans:
        by_path.setdefault(plan.path, []).append(plan)
    files: dict[str, FileResult] = {}
    applied: list[Finding] = []
    deferred: list[Plan] = []
    failed: list[tuple[Plan, str]] = []
    for path, group in by_path.items():
        try:
            data, text, encoding = read_source_data(path, overlays)
        except (OSError, UnicodeDecodeError, SyntaxError) as exc:
            failed.extend((plan, f"cannot read: {exc}") for plan in group)
            continue
        if not writes_back(data, text, encoding):
            failed.extend((plan, f"the file's encoding, {encoding}, does not write back the bytes it was read from")
                          for plan in group)
            continue
        accepted: list[tuple[Plan, tuple[Edit, ...]]] = []
        taken: list[Edit] = []
        quote = quote_style(text)  # here, not in the plans: only a fix that is applied needs to tokenize the file
        for plan in sorted(group, key=lambda p: p.finding.sort_key):
            try:
                edits = line_edits(text, transform([plan], text, quote))
            except Unfixable as exc:
                failed.append((plan, str(exc)))
                continue
            except Exception as exc:  # noqa: BLE001 - a fix must never take the run down
                failed.append((plan, f"{type(exc).__name__}: {exc}"))
                continue
            if not edits:
                continue
            if any(edits == other for _, other in accepted):
                accepted.append((plan, ()))  # the same change again (one def near-missed by two classes)
                continue
            edits = tuple(e for e in edits if e not in taken)  # a change an earlier plan makes too: the same import
            if not edits:
                accepted.append((plan, ()))
                continue
            if any(overlaps(e, t) for e in edits for t in taken):
                deferred.append(plan)
                continue
            accepted.append((plan, edits))
            taken.extend(edits)
        if not accepted:
            continue
        fixed = apply_edits(text, taken)
        try:
            compile(fixed, path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            failed.extend((plan, f"the fix would not compile: {exc.msg} (line {exc.lineno})")
                          for plan, _ in accepted)
            continue
        result = FileResult(path, encoding, text, fixed)
        for plan, edits in accepted:
            finding = replace(plan.finding, fix=replace(plan.fix, edits=edits))
            result.applied.append(finding)
            applied.append(finding)
        files[path] = result
    return FixRound(files, applied, deferred, failed)


# -- output -------------------------------------------------------------------------------------------
def unified_diff(results: Iterable[FileResult]) -> str:
    import difflib

    from ppaux_lint.report.paths import display_path, printable

    chunks = []
    for result in sorted(results, key=lambda r: r.path):
        if not result.changed:
            continue
        name = printable(display_path(result.path))  # a name holding a line break would forge the diff's lines
        bom = "\ufeff" if result.encoding == "utf-8-sig" else ""  # on disk before the first line: a patch needs it
        old = (bom + result.original).splitlines(keepends=True)
        new = (bom + result.fixed).splitlines(keepends=True)
        for line in difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}"):
            chunks.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def failure_warnings(failed: Sequence[tuple[Plan, str]], unwritten: Mapping[str, str] | None = None) -> list[str]:
    """A warning for each fix that could not be made, and one for each file that was not written; the command
    line prints them as its other warnings."""
    from ppaux_lint.report.paths import display_path

    return ([f"could not fix {plan.finding.code} in {display_path(plan.path)}:{plan.finding.span.line}: {why}"
             for plan, why in failed]
            + [f"{display_path(path)}: not fixed: {why}" for path, why in (unwritten or {}).items()])


# -- commands -----------------------------------------------------------------------------------------
@dataclass
class FixOutcome:
    fixed: list[Finding]  # every finding whose fix was applied, over all rounds
    analysis: Analysis  # the analysis after the last write: what remains
    written: list[str]
    failed: list[tuple[Plan, str]]
    rounds: int
    unwritten: dict[str, str] = field(default_factory=dict)  # path -> why it was not written (NotWritten)


def fix_project(analysis: Analysis, reanalyze: Callable[[], Analysis], unsafe: bool = False,
                max_rounds: int = MAX_ROUNDS, save: Callable[[FileResult], None] | None = None) -> FixOutcome:
    """``--fix``: apply, write, re-analyse, until nothing applicable is left (or ``max_rounds``). ``save``
    writes a fixed file: by default to the checked files on disk (writing.py), standard input's back into its
    overlay. A file it raises NotWritten for keeps its text and its findings, and no later round tries it."""
    save = save or _to_disk(CheckedFiles(analysis.discovery.targets, analysis.discovery.linked))
    fixed: list[Finding] = []
    written: list[str] = []
    failed: list[tuple[Plan, str]] = []
    unwritten: dict[str, str] = {}
    attempted: set[tuple] = set()
    rounds = 0
    while rounds < max_rounds:
        plans = [p for p in applicable(plan_fixes(analysis), unsafe)
                 if _key(p.finding) not in attempted and p.path not in unwritten]
        if not plans:
            break
        rounds += 1
        result = fix_round(plans, analysis.overlays)
        failed.extend(result.failed)
        attempted.update(_key(p.finding) for p, _ in result.failed)
        saved = 0
        for file in result.files.values():
            try:
                save(file)
            except NotWritten as why:
                unwritten[file.path] = str(why)
                continue
            saved += 1
            if file.path not in written:
                written.append(file.path)
            fixed.extend(file.applied)
            attempted.update(_key(f) for f in file.applied)
        if not saved:
            break
        analysis = reanalyze()  # deferred fixes, and fixes that an applied one made possible, come next round
    return FixOutcome(fixed, analysis, written, failed, rounds, unwritten)


def _to_disk(files: CheckedFiles) -> Callable[[FileResult], None]:
    def save(result: FileResult) -> None:
        files.write(result.path, result.fixed, result.encoding, result.original)

    return save


def preview(analysis: Analysis, unsafe: bool = False,
            reanalyze: Callable[[Mapping[str, bytes]], Analysis] | None = None) -> FixRound:
    """``--diff``: what ``--fix`` would write, in memory; nothing is written. ``reanalyze`` analyses the project
    again with the given overlays in place of the files: every round's result goes into them, and the next round
    plans from that analysis, as ``fix_project`` does after writing, so fixes that an earlier one made possible
    (a rename, then the method it lets a fix add) are shown too. Without it, one round."""
    if reanalyze is None:
        return fix_round(applicable(plan_fixes(analysis), unsafe), analysis.overlays)
    current = dict(analysis.overlays)
    files: dict[str, FileResult] = {}

    def save(result: FileResult) -> None:
        current[result.path] = encode_source(result.fixed, result.encoding)
        first = files.get(result.path)
        files[result.path] = FileResult(result.path, result.encoding, first.original if first else result.original,
                                        result.fixed, [*(first.applied if first else ()), *result.applied])

    outcome = fix_project(analysis, lambda: reanalyze(current), unsafe=unsafe, save=save)
    return FixRound({path: file for path, file in files.items() if file.changed}, outcome.fixed, [],
                    outcome.failed)


def _key(finding: Finding) -> tuple:
    """A finding's identity across re-analyses: not its position, which earlier fixes may have moved."""
    return (finding.code, finding.path, finding.symbol, finding.message)
