"""Planning a verify run from the static pass: rows, pairs, overrides, what cannot be imported, and what the
user declared never crosses a stage."""

from __future__ import annotations

from dataclasses import replace

from ppaux_lint.check.selection import Suppressed
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import ClassSummary, Span
from ppaux_lint.index.model import OBSERVER, OUTPUT, ClassInfo
from ppaux_lint.rules import all_rules
from ppaux_lint.runtime.terms.targets import (
    VerifySettings,
    VerifyTarget,
    build_targets,
    targets_from_analysis,
    untransported,
)


def info(fqn: str, *roles: str, pair: str | None = None, interface: bool = False, module: str | None = None,
         qualname: str | None = None) -> ClassInfo:
    mod, _, name = fqn.rpartition(".")
    summary = ClassSummary(name=name, qualname=qualname or name, span=Span(1, 1, 1, 2), class_line=1, bases=(),
                           decorators=(), methods=(), assigns=())
    return ClassInfo(fqn=fqn, module=mod if module is None else module, path=f"/p/{mod}.py", summary=summary,
                     ancestry=(fqn,), unresolved_bases=(), is_interface=interface, roles=frozenset(roles),
                     recognized={}, pair=pair)


def by_symbol(targets: list[VerifyTarget]) -> dict[str, VerifyTarget]:
    return {t.symbol: t for t in targets}


def test_an_output_and_its_observer_share_one_round_trip():
    targets = by_symbol(build_targets([info("p.m.Out", OUTPUT), info("p.m.Obs", OBSERVER, pair="p.m.Out")],
                                      VerifySettings()))
    out, obs = targets["p.m.Out"], targets["p.m.Obs"]
    assert out.output.symbol == obs.output.symbol == "p.m.Out"
    assert out.observer.symbol == obs.observer.symbol == "p.m.Obs"
    assert out.run_key == obs.run_key


def test_rows_are_sorted_and_only_for_implementations_with_a_role():
    classes = [info("p.m.Z", OUTPUT), info("p.m.A", OUTPUT), info("p.m.Proto", OUTPUT, interface=True),
               info("p.m.Host")]
    assert [t.symbol for t in build_targets(classes, VerifySettings())] == ["p.m.A", "p.m.Z"]


def test_an_output_nobody_rebuilds_runs_its_sending_half_alone():
    (target,) = build_targets([info("p.m.Out", OUTPUT)], VerifySettings())
    assert target.observer is None and not target.skip


def test_observers_without_a_known_output_are_driven_on_what_they_return_with_a_reason_for_the_probe():
    targets = by_symbol(build_targets([info("p.m.Free", OBSERVER), info("p.m.Elsewhere", OBSERVER, pair="x.Y")],
                                      VerifySettings()))
    free, elsewhere = targets["p.m.Free"], targets["p.m.Elsewhere"]
    assert free.observer.symbol == free.producer.symbol == "p.m.Free"
    assert (free.output.symbol, free.output.returned_by, free.output.qualname) == (
        "what p.m.Free.after_sample returns", "p.m.Free", "")  # whatever it returns, known class or not
    assert (elsewhere.output.symbol, elsewhere.output.returned_by) == ("x.Y", "p.m.Elsewhere")
    assert "rebuilds no known output class" in free.reason and '"p.m.Free"' in free.reason
    assert "rebuilds x.Y, which is not a discovered output class" in elsewhere.reason


def test_a_pairs_override_wins_and_may_name_a_class_the_static_pass_never_saw():
    classes = [info("p.m.Out", OUTPUT), info("p.m.Obs", OBSERVER, pair="p.m.Out")]
    settings = VerifySettings(pairs={"p.m.Out": "other.pkg.Outer.Observer"})
    targets = by_symbol(build_targets(classes, settings))
    chosen = targets["p.m.Out"].observer
    assert chosen.symbol == "other.pkg.Outer.Observer" and chosen.module == "" and chosen.qualname == ""
    assert targets["p.m.Obs"].observer.symbol == "p.m.Obs"  # its own row still runs its own pair


def test_an_observer_named_by_an_override_is_paired_through_it():
    classes = [info("p.m.Out", OUTPUT), info("p.m.Obs", OBSERVER)]
    targets = by_symbol(build_targets(classes, VerifySettings(pairs={"p.m.Out": "p.m.Obs"})))
    assert targets["p.m.Obs"].output.symbol == "p.m.Out"


def test_examples_devices_and_findings_are_attached():
    classes = [info("p.m.Out", OUTPUT), info("p.m.Obs", OBSERVER, pair="p.m.Out")]
    settings = VerifySettings(examples={"p.m.Out": "p.f:make"}, devices={"p.m.Out": "cuda:1"})
    targets = by_symbol(build_targets(classes, settings, {"p.m.Obs": ["PPA015", "PPA002"]}))
    assert targets["p.m.Out"].output.factory == "p.f:make"
    assert targets["p.m.Out"].device == targets["p.m.Obs"].device == "cuda:1"
    assert targets["p.m.Obs"].observer.findings == ("PPA002", "PPA015")


def test_classes_that_cannot_be_imported_say_why():
    classes = [info("p.m.make.<locals>.Local", OUTPUT, qualname="make.<locals>.Local", module="p.m"),
               info("script.Loose", OUTPUT, module="")]
    targets = by_symbol(build_targets(classes, VerifySettings()))
    assert "defined inside a function (make.<locals>.Local)" in targets["p.m.make.<locals>.Local"].output.unimportable
    assert "not an importable module" in targets["script.Loose"].output.unimportable


def test_rows_can_be_limited_while_pairing_sees_everything():
    classes = [info("p.m.Out", OUTPUT), info("q.n.Obs", OBSERVER, pair="p.m.Out")]
    (target,) = build_targets(classes, VerifySettings(), rows={"p.m.Out"})
    assert target.symbol == "p.m.Out" and target.observer.symbol == "q.n.Obs"


def test_targets_survive_the_trip_to_the_worker():
    classes = [info("p.m.Out", OUTPUT), info("p.m.Obs", OBSERVER, pair="p.m.Out")]
    for target in build_targets(classes, VerifySettings(examples={"p.m.Out": "p.f:make"}), {"p.m.Out": ["X1"]}):
        assert VerifyTarget.from_json(target.to_json()) == target


def test_targets_from_the_real_static_pass(tmp_path, monkeypatch):
    from ppaux_lint.check.engine import analyze

    (tmp_path / "pyproject.toml").write_text(
        '[tool.ppaux-lint.verify.examples]\n"plug.m.Out" = "plug.f:make"\n', encoding="utf-8")
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "plug" / "m.py").write_text(
        "class Out:\n"
        "    def copy_to_host(self, f):\n        return None\n"
        "    def to_pp_tensors(self):\n        return {'a': 1}\n"
        "class Obs:\n"
        "    def is_active(self, s):\n        return True\n"
        "    def after_sample(self, s, t):\n        return Out()\n"
        "    def from_pp_tensors(self, t):\n        return Out()\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    targets = by_symbol(targets_from_analysis(analyze([str(tmp_path / "plug")])))
    assert set(targets) == {"plug.m.Out", "plug.m.Obs"}
    out = targets["plug.m.Out"]
    assert (out.output.module, out.output.qualname, out.output.factory) == ("plug.m", "Out", "plug.f:make")
    assert out.observer.symbol == "plug.m.Obs"
    assert "PPA012" in out.output.findings  # the static pass saw the non-tensor value


def test_a_class_declared_never_to_cross_a_stage_is_skipped_and_so_is_its_round_trip():
    classes = [info("p.m.Out", OUTPUT), info("p.m.Obs", OBSERVER, pair="p.m.Out"), info("p.m.Other", OUTPUT)]
    targets = by_symbol(build_targets(classes, VerifySettings(), declared={"p.m.Out": "`# noqa: PPA001` at p/m.py:3"}))
    assert targets["p.m.Out"].skip == "`# noqa: PPA001` at p/m.py:3 declares it never crosses a pipeline stage"
    assert targets["p.m.Obs"].skip == ("its round trip goes through p.m.Out, which `# noqa: PPA001` at p/m.py:3 "
                                       "declares never crosses a pipeline stage")
    assert targets["p.m.Other"].skip == ""


def suppressed(code: str, symbol: str, how: str = "noqa", where: str = "p/m.py:3") -> Suppressed:
    finding = Finding(code=code, message="", path="/p/p/m.py", span=Span(3, 7, 3, 10), symbol=symbol)
    return Suppressed(finding, how, where)


def test_which_silenced_rules_declare_a_class_untransported_is_the_rules_say():
    rules = all_rules()
    declared = untransported([suppressed(rule.code, f"p.m.C{rule.code}") for rule in rules])
    assert set(declared) == {f"p.m.C{rule.code}" for rule in rules if rule.declares_untransported}
    assert {"p.m.CPPA001", "p.m.CPPA002"} <= set(declared)  # a class without the method, silenced
    assert "p.m.CPPA015" not in declared  # a silenced key mismatch still sends the class


def test_the_declaration_says_how_and_where_it_was_made():
    declared = untransported([suppressed("PPA001", "p.m.Out"),
                              suppressed("PPA002", "p.t.Obs", "per-file-ignores", "tests/**")])
    assert declared == {"p.m.Out": "`# noqa: PPA001` at p/m.py:3",
                        "p.t.Obs": "per-file-ignores 'tests/**' for PPA002"}


def test_noqa_and_per_file_ignores_from_the_real_static_pass(tmp_path, monkeypatch):
    from ppaux_lint.check.engine import analyze

    (tmp_path / "pyproject.toml").write_text(
        '[tool.ppaux-lint]\nper-file-ignores = { "plug/debug_*.py" = ["PPA002"] }\n', encoding="utf-8")
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "plug" / "m.py").write_text(
        "import torch\n\n\n"
        "class Dump:  # noqa: PPA001\n"
        "    def copy_to_host(self, f):\n        return None\n", encoding="utf-8")
    (tmp_path / "plug" / "debug_obs.py").write_text(
        "class Probe:\n"
        "    def is_active(self, s):\n        return True\n"
        "    def after_sample(self, s, t):\n        return t\n\n\n"
        "class Quiet:\n"
        "    def is_active(self, s):\n        return True\n"
        "    def after_sample(self, s, t):\n        return None\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    targets = by_symbol(targets_from_analysis(analyze([str(tmp_path / "plug")])))
    assert targets["plug.m.Dump"].skip == ("`# noqa: PPA001` at plug/m.py:4 declares it never crosses a "
                                           "pipeline stage")
    assert targets["plug.debug_obs.Probe"].skip == ("per-file-ignores 'plug/debug_*.py' for PPA002 declares it "
                                                    "never crosses a pipeline stage")
    assert targets["plug.debug_obs.Quiet"].skip == ("never returns an output: its `after_sample` returns None on every "
                                                    "path, so no output of it crosses a pipeline stage")


def test_a_forward_output_is_skipped_and_a_pp_output_beside_it_is_not(tmp_path, monkeypatch):
    from ppaux_lint.check.engine import analyze

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'plug'\n", encoding="utf-8")
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "plug" / "capture.py").write_text(
        "from typing import Optional\n\nimport torch\n"
        "from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput\n"
        "from sglang.srt.model_executor.forward_observer import ForwardObserver\n\n\n"
        "class Capture(DeviceAuxiliaryOutput):\n"
        "    def __init__(self, hidden: torch.Tensor):\n        self.hidden = hidden\n\n"
        "    def copy_to_host(self, copy_tensor):\n        return copy_tensor(self.hidden)\n\n\n"
        "class CaptureObserver(ForwardObserver):\n"
        "    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph) -> Optional[Capture]:\n"
        "        return Capture(logits_output.hidden_states)\n\n\n"
        "class Plain(DeviceAuxiliaryOutput):\n"
        "    def copy_to_host(self, copy_tensor):\n        return None\n\n\n"
        "class Base(DeviceAuxiliaryOutput):\n"
        "    def copy_to_host(self, copy_tensor):\n        return None\n\n\n"
        "class Leaf(Base):\n    pass\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    targets = by_symbol(targets_from_analysis(analyze([str(tmp_path / "plug")])))
    assert targets["plug.capture.Capture"].skip == (
        "a forward output of plug.capture.CaptureObserver: forward observers are refused with pp_size > 1, so "
        "it never crosses a pipeline stage")
    assert targets["plug.capture.Plain"].skip == ""
    assert targets["plug.capture.Base"].skip.startswith("a base only: the project subclasses it (plug.capture.Leaf)")
    assert targets["plug.capture.Leaf"].skip == ""


def test_the_worker_imports_each_module_from_where_its_name_starts(tmp_path):
    from ppaux_lint.project.discover import SourceFile
    from ppaux_lint.runtime.run.plan import import_roots

    files = [SourceFile(str(tmp_path / "src" / "acme" / "steer" / "base.py"), "acme.steer.base", False),
             SourceFile(str(tmp_path / "src" / "acme" / "steer" / "__init__.py"), "acme.steer", True),
             SourceFile(str(tmp_path / "python" / "sglang" / "srt" / "x.py"), "sglang.srt.x", False),
             SourceFile(str(tmp_path / "loose.py"), "loose", False),
             SourceFile(str(tmp_path / "notes" / "odd-name.py"), "", False)]
    assert import_roots(tmp_path, files) == [str(tmp_path), str(tmp_path / "src"), str(tmp_path / "python")]


def test_an_observer_that_returns_its_output_is_driven_itself_not_through_another_observer_of_it():
    output = replace(info("p.m.Out", OUTPUT), returned_by=("p.m.A", "p.m.B"))
    targets = by_symbol(build_targets([output, info("p.m.A", OBSERVER, pair="p.m.Out"),
                                       info("p.m.B", OBSERVER, pair="p.m.Out"), info("p.m.C", OBSERVER, pair="p.m.Out")],
                                      VerifySettings()))
    assert targets["p.m.A"].producer.symbol == "p.m.A" and targets["p.m.B"].producer.symbol == "p.m.B"
    assert targets["p.m.C"].producer.symbol == "p.m.A"  # it returns nothing known: the first one that does
    assert targets["p.m.Out"].producer.symbol == "p.m.A" == targets["p.m.Out"].observer.symbol
