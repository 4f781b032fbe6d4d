"""``ppaux-lint inventory``: every output and observer the analysis sees, how, and whether it can cross a stage.

It reads the same :class:`~ppaux_lint.check.engine.Analysis` as ``check``, so what
it shows is exactly what the rules judged: recognition (subclass path or
structural), pairing (observer -> the output its ``from_pp_tensors`` or
``after_sample`` builds, and back), and the PP status of the transport
method, found along the MRO as the runtime ``isinstance`` check would. An
output that only forward observers return is marked as one (``forward_only_by``
names what routes it there): it needs no transport method. Each output lists
its producers (``returned_by``: the sampling observers that return it;
``forward_by``: the forward routes), and a class the rules do not judge for
transport says why (``not_instantiated``: abstract, or a base only subclassed;
``no_output``: an observer whose ``after_sample`` never returns an output;
``part_of``: a part, sent only inside the mapping of the containers named, which
``part_calls`` names too when they call its own ``to_pp_tensors``, and ``part_uses`` cites
where each uses it). For
each file asked about it shows the module name it was given and the config
it follows, which is what explains a finding that is missing or misnamed.

PP status values:

- ``defined``: the class defines the method itself;
- ``inherited``: a base or mixin in the project defines it (``via`` names it);
- ``assigned``: bound by assignment (``to_pp_tensors = pack``);
- ``none``: assigned ``None``, which a runtime-checkable Protocol treats as missing;
- ``stub``: only the PP Protocol's stub, which returns ``None``;
- ``near-miss``: missing, but a misspelt method is there (``via`` names it);
- ``missing``: nowhere along the MRO;
- ``uncertain``: not found, but a base the analysis cannot see might define it;
- ``dynamic``: not in any namespace, offered only through a project ``__getattr__`` (``via`` names its class),
  which the helpers' ``isinstance`` check consults on Python 3.11 and older only;
- ``unknown``: code the analysis cannot follow touches the class's namespace, or a base's the lookup passes.

The keys a ``defined`` or ``inherited`` method sends or reads are listed when the analysis computes them all
(``keys``); otherwise ``keys_unknown`` says why (a key it cannot compute, a return it cannot list, a received
mapping used other than through constant reads), which is what leaves PPA015 silent on the pair.

A member that code around the class statement gave it (a decorator, an assignment after the class:
``index/namespaces.py``) says how (``origin``). A class that code the analysis cannot follow touches lists each
such touch, with where it is (``unknown``); no rule judged it, and the summary counts the classes that would
have been judged (``ClassInfo.could_not_be_judged``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from ppaux_lint.contract.names import FROM_PP, TO_PP
from ppaux_lint.index.model import OBSERVER, OUTPUT, ClassInfo
from ppaux_lint.report.paths import display_path, printable
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.check.engine import Analysis
    from ppaux_lint.facts.summary import MethodSummary
    from ppaux_lint.index.project_index import ProjectIndex

OK_STATUSES = frozenset({"defined", "inherited", "assigned"})
INVENTORY_FORMAT = 1


@dataclass(frozen=True)
class PPStatus:
    method: str
    status: str
    via: str | None = None  # the class that provides it (or the misspelt method's qualified name)
    keys: tuple[str, ...] | None = None  # statically known keys sent/read, when exactly known
    origin: str | None = None  # how code around the class statement gave it the member
    keys_unknown: str | None = None  # why ``keys`` is None for a method it reads: PPA015 compared nothing

    @property
    def ok(self) -> bool:
        return self.status in OK_STATUSES

    def record(self) -> dict:
        return {"method": self.method, "status": self.status, "ok": self.ok, "via": self.via,
                "keys": list(self.keys) if self.keys is not None else None, "origin": self.origin,
                "keys_unknown": self.keys_unknown}


def build(analysis: Analysis) -> dict:
    """The inventory as plain data (what ``--output-format json`` prints)."""
    targets = {str(p) for p in analysis.discovery.targets}
    infos = [info for info in analysis.classes.values() if info.roles and info.path in targets]
    infos.sort(key=lambda i: (i.path, i.summary.span.line, i.fqn))
    findings: dict[str, list[str]] = {}
    for f in analysis.findings:
        findings.setdefault(f.symbol, [])
        if f.code not in findings[f.symbol]:
            findings[f.symbol].append(f.code)
    rebuilt_by: dict[str, list[str]] = {}
    for info in analysis.classes.values():
        if info.is_observer and info.pair is not None:
            rebuilt_by.setdefault(info.pair, []).append(info.fqn)
    outputs, observers = [], []
    for info in infos:
        base = {
            "fqn": info.fqn,
            "path": display_path(info.path),
            "line": info.summary.span.line,
            "column": info.summary.span.column,
            "roles": sorted(info.roles),
            "interface": info.is_interface,
            "unresolved_bases": list(info.unresolved_bases),
            "mro": list(info.ancestry),
            "findings": findings.get(info.fqn, []),
            "not_instantiated": info.not_instantiated or None,
            "unknown": [{"what": t.what, "path": display_path(t.path), "line": t.line} for t in info.unknown],
            "could_not_be_judged": info.could_not_be_judged,
            "part_of": list(info.part_of),
            "part_calls": [{"container": container, "how": how} for container, how in info.part_calls],
            "part_uses": [{"container": container, "how": how, "line": line,
                           "path": display_path(analysis.classes[container].path)}
                          for container, how, line in info.part_uses if container in analysis.classes],
        }
        if info.is_output:
            outputs.append({**base, "recognized": info.recognized[OUTPUT],
                            "rebuilt_by": sorted(rebuilt_by.get(info.fqn, [])),
                            "forward_only_by": list(info.forward_only_by),
                            "returned_by": list(info.returned_by), "forward_by": list(info.forward_by),
                            "pp": pp_status(analysis, info, TO_PP).record()})
        if info.is_observer:
            observers.append({**base, "recognized": info.recognized[OBSERVER], "rebuilds": info.pair,
                              "paired_from": _paired_from(analysis, info), "may_rebuild": _may_rebuild(analysis, info),
                              "no_output": info.no_output or None,
                              "pp": pp_status(analysis, info, FROM_PP).record()})
    return {
        "format": INVENTORY_FORMAT,
        "root": str(analysis.project.root),
        "files": [_file_record(analysis, path) for path in sorted(targets)],
        "outputs": outputs,
        "observers": observers,
        "summary": {
            "outputs": sum(1 for o in outputs if not o["interface"]),
            "observers": sum(1 for o in observers if not o["interface"]),
            "interfaces": sum(1 for i in infos if i.is_interface),
            "pp_ready_outputs": sum(1 for o in outputs if o["pp"]["ok"] and not o["interface"]),
            "pp_ready_observers": sum(1 for o in observers if o["pp"]["ok"] and not o["interface"]),
            "unpaired_observers": sum(1 for o in observers if o["rebuilds"] is None and not o["interface"]),
            "unknown": sum(1 for info in infos if info.could_not_be_judged),
        },
    }


def _file_record(analysis: Analysis, path: str) -> dict:
    """How the project model sees a file asked about: the module name it was given (and, when another file
    claims that name, which one), and the config it follows: what explains a finding that is not there."""
    discovery = analysis.discovery
    config = discovery.config_of(path)
    return {"path": display_path(path), "module": discovery.module_of(path),
            "config": display_path(str(config.path)) if config.path is not None else None,
            "shadowed_by": display_path(discovery.shadowed[path]) if path in discovery.shadowed else None}


def pp_status(analysis: Analysis, info: ClassInfo, method: str) -> PPStatus:
    index = analysis.index_for(info.path)
    member = index.lookup(info.fqn, method)
    if member is None:
        near = _near_miss(analysis, info, method)
        if near is not None:
            return PPStatus(method, "near-miss", near)
        dynamic = index.dynamic_attributes(info.fqn)
        if dynamic is not None and not info.unresolved_bases:
            return PPStatus(method, "dynamic", dynamic.owner)
        return PPStatus(method, "uncertain" if info.unresolved_bases else "missing")
    if member.unknown is not None:
        return PPStatus(method, "unknown", member.unknown.what)
    via = None if member.owner == info.fqn else member.owner
    origin = member.origin or None
    if member.stub_of_protocol:
        return PPStatus(method, "stub", member.owner)
    if member.is_none:
        return PPStatus(method, "none", via, origin=origin)
    if member.assign is not None:
        return PPStatus(method, "assigned", via or member.assign.value or None, origin=origin)
    written = (member.site.module, member.site.scope) if member.site is not None else ("", "")
    keys, why = _keys(index, member.owner, info.fqn, member.method, method, written)
    return PPStatus(method, "defined" if via is None else "inherited", via, keys, origin, why or None)


def _keys(index: ProjectIndex, owner: str, instance: str, method_summary: MethodSummary | None,
          method: str, written: tuple[str, str]) -> tuple[tuple[str, ...] | None, str]:
    """The keys the method sends or reads, as Python computes them (constants resolved), or None if unknown,
    with why ("" when known, or when there is no summary to read: a method the analysis did not summarise)."""
    if method_summary is None or owner not in index.classes:
        return None, ""
    from ppaux_lint.rules.sent import read_keys_or_why, sent_keys_or_why

    keys_or_why = sent_keys_or_why if method == TO_PP else read_keys_or_why
    keys, why = keys_or_why(index, owner, method_summary, instance, written)
    return (tuple(sorted(keys)) if keys is not None else None), why


def _near_miss(analysis: Analysis, info: ClassInfo, method: str) -> str | None:
    found = analysis.index_for(info.path).near_miss(info.fqn, method)
    return f"{found[0]}.{found[1].name}" if found is not None else None


def _may_rebuild(analysis: Analysis, info: ClassInfo) -> list[str]:
    """The output classes an observer left unpaired can give, when there are several (none is the one)."""
    if info.pair is not None:
        return []
    candidates, _ = analysis.index_for(info.path).rebuild_candidates(info.fqn)
    return list(candidates) if len(candidates) > 1 else []


def _paired_from(analysis: Analysis, info: ClassInfo) -> str | None:
    """Which hook told the pairing: ``from_pp_tensors`` when it builds or declares the output, else ``after_sample``."""
    found = analysis.index_for(info.path).pairing(info.fqn) if info.pair is not None else None
    return found[1] if found is not None else None


# -- rendering ----------------------------------------------------------------------------------------
_STYLE = {"defined": "green", "inherited": "green", "assigned": "green", "none": "red", "stub": "red",
          "near-miss": "red", "missing": "red", "uncertain": "yellow", "dynamic": "yellow", "unknown": "yellow"}
_MARK = {True: "✓", False: "✗"}
_WORDS = {"none": "assigned None (counts as missing)", "stub": "only the Protocol's stub (returns None)",
          "near-miss": "missing; near miss", "uncertain": "not found (a base the analysis cannot see may define it)",
          "dynamic": "only through `__getattr__` (isinstance asks it up to Python 3.11 only)",
          "unknown": "unknown:"}


def _files_branch(root, data: dict) -> None:
    """The files that hold a listed class, each with its module name and the config it follows."""

    holding = {r["path"] for r in data["outputs"] + data["observers"]}
    files = [f for f in data["files"] if f["path"] in holding or f["shadowed_by"]]
    branch = root.add(f"[bold]Files[/] ({len(files)} of {len(data['files'])} checked)")
    for record in files:
        config = _shown(record["config"]) if record["config"] else "defaults"
        node = branch.add(f"{_shown(record['path'])}  [dim]module[/] {_shown(record['module'] or '-')}  "
                          f"[dim]config[/] {config}")
        if record["shadowed_by"]:
            node.add(f"[yellow]not checked[/]: {_shown(record['shadowed_by'])} is module {_shown(record['module'])}")


def render_json(data: dict, out: TextIO) -> None:
    import json

    json.dump(data, out, indent=2)
    out.write("\n")


def render_tree(data: dict, out: TextIO) -> None:
    from rich.tree import Tree

    from ppaux_lint.report.console import make_console

    terminal = hasattr(out, "isatty") and out.isatty()
    console = make_console(file=out, highlight=False, soft_wrap=True, width=None if terminal else 1000)
    root = Tree(f"[bold]{_shown(data['root'])}[/]")
    sections = (("Outputs", data["outputs"], "rebuilt by"), ("Observers", data["observers"], "rebuilds"))
    for title, records, pairing in sections:
        branch = root.add(f"[bold]{title}[/] ({len(records)})")
        for record in records:
            pp = record["pp"]
            forward = bool(record.get("forward_only_by"))  # needs no to_pp_tensors: marked apart
            unjudged = record["not_instantiated"] or record.get("no_output") or _part(record)  # none meets the helper
            unknown = record["could_not_be_judged"]
            mark = ("•" if record["interface"] else "→" if forward else "○" if unjudged and not record["findings"]
                    else "?" if unknown else "!" if pp["ok"] and record["findings"] else _MARK[pp["ok"]])
            style = ("dim" if record["interface"] else "cyan" if forward else "dim" if unjudged
                     and not record["findings"] else "yellow" if unknown or (pp["ok"] and record["findings"])
                     else _STYLE.get(pp["status"], ""))
            label = (f"[{style}]{mark}[/] [bold]{_shown(record['fqn'])}[/]  "
                     f"[dim]{_shown(record['path'])}:{record['line']}[/]")
            if record["findings"]:
                label += "  [red]" + " ".join(record["findings"]) + "[/]"
            node = branch.add(label)
            if record["interface"]:
                node.add("[dim]interface (lists Protocol among its bases): not checked[/]")
            for reason in (record["not_instantiated"], record.get("no_output"), _part(record)):
                if reason:
                    node.add(f"[dim]not judged for transport: {_shown(reason)}[/]")
            for touch in record["unknown"]:
                node.add(f"[yellow]could not be judged[/]: {_shown(touch['what'])} "
                         f"[dim]{_shown(touch['path'])}:{touch['line']}[/]")
            if record["part_calls"]:
                calls = ", ".join(f"{c['container']}.{TO_PP} ({c['how']})" for c in record["part_calls"])
                node.add(f"part of {_shown(', '.join(record['part_of']))}: its `{TO_PP}` runs inside {_shown(calls)}")
            node.add(f"recognised: {_shown(record['recognized'])}")
            if pairing == "rebuilds":
                if record["rebuilds"]:
                    node.add(f"rebuilds: {_shown(record['rebuilds'])} [dim](from {record['paired_from']})[/]")
                elif record["may_rebuild"]:
                    node.add(f"rebuilds: [yellow]unknown[/] [dim](it can give several output classes: "
                             f"{_shown(', '.join(record['may_rebuild']))}; not judged against either)[/]")
                else:
                    node.add("rebuilds: [yellow]unknown[/] [dim](no constructed or declared output found)[/]")
            else:
                rebuilt = ", ".join(record["rebuilt_by"]) or "[dim]no observer in the project[/]"
                node.add(f"rebuilt by: {_shown(rebuilt) if record['rebuilt_by'] else rebuilt}")
                producers = [*record["returned_by"], *(f"{f} (forward)" for f in record["forward_by"])]
                node.add(f"returned by: {_shown(', '.join(producers))}" if producers
                         else "returned by: [dim]no observer the analysis can follow[/]")
                if record["forward_only_by"]:
                    node.add(f"forward output of {_shown(', '.join(record['forward_only_by']))} "
                             "[dim](never crosses a stage: no forward observer runs with pp_size > 1)[/]")
            status = f"[{_STYLE.get(pp['status'], '')}]{_WORDS.get(pp['status'], pp['status'])}[/]"
            if pp["via"]:
                status += f" {_shown(pp['via'])}" if pp["status"] == "unknown" else f" via {_shown(pp['via'])}"
            if pp["origin"]:
                status += f" ({_shown(pp['origin'])})"
            if pp["keys"] is not None:
                status += f" [dim]— keys: {_shown(', '.join(pp['keys']))}[/]"
            elif pp["keys_unknown"]:
                status += f" [dim]— keys not known: {_shown(pp['keys_unknown'])}[/]"
            node.add(f"{pp['method']}: {status}")
            if record["unresolved_bases"]:
                node.add(f"[yellow]unresolved bases[/]: {_shown(', '.join(record['unresolved_bases']))}")
    _files_branch(root, data)
    console.print(root)
    s = data["summary"]
    interfaces = f", {s['interfaces']} interface{'s' if s['interfaces'] != 1 else ''}" if s["interfaces"] else ""
    unknown = f", {s['unknown']} could not be judged" if s["unknown"] else ""
    console.print(f"{s['outputs']} outputs ({s['pp_ready_outputs']} with `{TO_PP}`), {s['observers']} observers "
                  f"({s['pp_ready_observers']} with `{FROM_PP}`, {s['unpaired_observers']} unpaired){interfaces}"
                  f"{unknown}")


_PART_USES = {"merged": "flattened", "renamed": "flattened under names of its own", "returned": "its mapping returned",
              "read": "flattened (its fields sent)", "sent": "sent whole as a value (the container's finding)"}


def _part(record: dict) -> str:
    """Why a part that no container calls is not judged, in words, citing each use ("part of pkg.Bundle, flattened
    at line 12 (pkg/outputs.py)"); "" for any other class."""
    if not record["part_of"] or record["part_calls"]:
        return ""
    uses = "; ".join(f"part of {use['container']}, {_PART_USES.get(use['how'], use['how'])} at line {use['line']} "
                     f"({use['path']})" for use in record["part_uses"]) or f"part of {', '.join(record['part_of'])}"
    return f"{uses}: it travels only inside their mapping, and no observer returns it alone"


def _shown(text: str) -> str:
    """Text from the checked tree as the tree shows it: literally (no rich markup) and printable."""
    from rich.markup import escape

    return escape(printable(text))
