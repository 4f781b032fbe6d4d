"""What an observer really returns, by any route (``inference.py``), and which classes have instances
(``instances.py``): issue 22's items 1-3.

Each route gets two small projects of its own: the output reached only by a forward observer through that route
(silent: it never crosses a stage), and the same output reached by a sampling observer through the same route
(PPA001: it does). A route the inference did not follow would make the first loud or the second silent.
"""

from __future__ import annotations

import textwrap

import pytest
from lintkit import lint, reported, run_analysis

OUTPUTS = """
from dataclasses import dataclass, field

import torch


class Capture:
    def __init__(self, values):
        self.values = values

    def copy_to_host(self, copy_tensor):
        return self

    @classmethod
    def from_rows(cls, rows):
        return cls(torch.stack(rows))

    @staticmethod
    def empty():
        return Capture(None)
"""
CAPTURE = "pkg.outputs.Capture"
FORWARD = "    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):\n"
SAMPLE = "    def is_active(self, sampling_info):\n        return True\n\n" \
         "    def after_sample(self, state, token_ids):\n"

# Each route: (extra modules, the observer module's imports, the hook's body, other members of the observer).
ROUTES = {
    "constructor": ({}, "from pkg.outputs import Capture", "return Capture(batch)", ""),
    "alternate-constructor": ({}, "from pkg.outputs import Capture", "return Capture.from_rows([batch])", ""),
    "staticmethod-factory": ({}, "from pkg import outputs", "return outputs.Capture.empty()", ""),
    "function-in-another-module": (
        {"pkg/factory.py": "from pkg.outputs import Capture\n\n\ndef make(rows):\n    out = Capture(rows)\n"
                           "    return out\n\n\ndef make_twice(rows):\n    return make(rows)\n"},
        "from pkg.factory import make_twice as build", "return build(batch)", ""),
    "own-method": ({}, "from pkg.outputs import Capture", "return self._build(batch)",
                   "    def _build(self, rows):\n        return Capture(rows) if rows else None\n"),
    "attribute": ({}, "from pkg.outputs import Capture", "self.last = Capture(batch)\n        return self.last",
                  "    last = None\n"),
    "attribute-set-elsewhere": ({}, "from pkg.outputs import Capture", "self._record(batch)\n        return self.last",
                                "    def _record(self, rows):\n        self.last = Capture(rows)\n"),
    "local-or": ({}, "from pkg.outputs import Capture", "out = None\n        out = out or Capture(batch)\n"
                 "        return out", ""),
    "early-return": ({}, "from pkg.outputs import Capture",
                     "if batch is None:\n            return None\n        return Capture(batch)", ""),
    "annotation-of-a-helper": (
        {"pkg/factory.py": "from typing import Optional\n\nfrom pkg.outputs import Capture\n\n\n"
                           "def make(rows) -> Optional[Capture]:\n    return _registry[rows]()\n"},
        "from pkg.factory import make", "return make(batch)", ""),
    "dataclasses-replace": ({}, "import dataclasses\nfrom pkg.outputs import Capture",
                            "return dataclasses.replace(self._template, values=batch)",
                            "    def __init__(self):\n        self._template = Capture(None)\n"),
    "type-of-self-output": ({}, "from pkg.outputs import Capture", "return type(self.proto)(batch)",
                            "    proto = None\n\n    def __init__(self):\n        self.proto = Capture(None)\n"),
    # functools.partial of a class is a constructor of it, of a factory that factory, however it is kept
    "partial-called-at-once": ({}, "import functools\nfrom pkg.outputs import Capture",
                               "return functools.partial(Capture)(batch)", ""),
    "partial-in-an-attribute": ({}, "from functools import partial\nfrom pkg.outputs import Capture",
                                "return self._make(batch)",
                                "    def __init__(self):\n        self._make = partial(Capture)\n"),
    "partial-at-module-level": ({}, "import functools\nfrom pkg import outputs\n\nMAKE = functools.partial("
                                "outputs.Capture.from_rows)", "return MAKE([batch])", ""),
    "partial-from-a-helper": ({}, "from functools import partial\nfrom pkg.outputs import Capture",
                              "return self._maker()(batch)",
                              "    def _maker(self):\n        return partial(Capture)\n"),
    # a class kept on the observer and called through it
    "class-attribute-holding-the-class": ({}, "from pkg.outputs import Capture", "return self.output_cls(batch)",
                                          "    output_cls = Capture\n"),
    # an attribute no method assigns, declared by a class-level annotation
    "annotated-attribute": ({}, "from typing import Optional\n\nfrom pkg.outputs import Capture",
                            "return self.last", "    last: Optional[Capture] = None\n"),
}


def _observer(hook: str, imports: str, body: str, members: str, name: str = "Watcher") -> str:
    """An observer module: ``body`` is the hook's, written at the method body's own indentation."""
    return (f"{imports}\n\n\nclass {name}:\n{members}\n{hook}        {body}\n"
            + ("\n    def from_pp_tensors(self, tensors):\n        return None\n" if hook == SAMPLE else ""))


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_an_output_only_a_forward_observer_returns_is_silent_by_any_route(lint_project, route):
    extra, imports, body, members = ROUTES[route]
    lint_project({"pkg/outputs.py": OUTPUTS, **extra, "pkg/watch.py": _observer(FORWARD, imports, body, members)})
    assert reported(lint()) == set()
    assert run_analysis().classes[CAPTURE].forward_only_by == ("pkg.watch.Watcher",)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_the_same_route_from_a_sampling_observer_crosses_a_stage(lint_project, route):
    extra, imports, body, members = ROUTES[route]
    lint_project({"pkg/outputs.py": OUTPUTS, **extra, "pkg/watch.py": _observer(SAMPLE, imports, body, members)})
    analysis = run_analysis()
    assert (CAPTURE, "PPA001") in reported(analysis.findings)
    assert analysis.classes[CAPTURE].returned_by == ("pkg.watch.Watcher",)
    assert analysis.classes["pkg.watch.Watcher"].pair == CAPTURE


def test_a_forward_observer_file_that_never_names_the_output_is_read(lint_project):
    """The forward observer reaches the output through a factory only: its file holds no output name, and the
    prefilter must still read it (``def after_forward`` is a token), with or without the prefilter."""
    extra = ROUTES["function-in-another-module"][0]
    lint_project({"pkg/outputs.py": OUTPUTS, **extra,
                  "pkg/zz_hooks.py": _observer(FORWARD, "from pkg import factory as f", "return f.make(batch)", "",
                                               name="Zq")})
    assert reported(lint()) == set()
    assert reported(lint(prefilter=False)) == set()


def test_an_output_both_kinds_return_is_reported_naming_the_forward_route(lint_project):
    lint_project({"pkg/outputs.py": OUTPUTS,
                  "pkg/fwd.py": _observer(FORWARD, "from pkg.outputs import Capture", "return Capture(batch)", "",
                                          name="Fwd"),
                  "pkg/smp.py": _observer(SAMPLE, "from pkg.outputs import Capture", "return Capture(token_ids)",
                                          "", name="Smp")})
    (finding,) = [f for f in lint() if f.code == "PPA001"]
    assert "`pkg.fwd.Fwd`" in finding.message and "`pkg.smp.Smp`" in finding.message
    assert "forward observer returns it too" in finding.message


def test_a_recursive_route_terminates_and_keeps_what_the_other_branch_returns(lint_project):
    lint_project({"pkg/outputs.py": OUTPUTS, "pkg/watch.py": _observer(
        FORWARD, "from pkg.outputs import Capture", "return self._a(batch)",
        "    def _a(self, rows):\n        return self._b(rows) if rows else Capture(rows)\n\n"
        "    def _b(self, rows):\n        return self._a(rows[1:])\n")})
    assert run_analysis().classes[CAPTURE].forward_only_by == ("pkg.watch.Watcher",)


def test_what_the_inference_cannot_see_keeps_todays_verdict(lint_project):
    """An output from an outside library's factory is unknown: no forward route, so PPA001 stays."""
    lint_project({"pkg/outputs.py": OUTPUTS, "pkg/watch.py": _observer(
        FORWARD, "import somelib\nfrom pkg.outputs import Capture", "return somelib.wrap(batch)", ""),
        "pkg/smp.py": _observer(SAMPLE, "from pkg.watch import Watcher", "return self.inner.after_forward()",
                                "    def __init__(self):\n        self.inner = make()\n", name="Smp")})
    assert (CAPTURE, "PPA001") in reported(lint())


# -- observers that never return an output -----------------------------------------------------------------
OUT_WITH_PP = """
class Out:
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"x": self.x}
"""


@pytest.mark.parametrize("body", [
    "return None",
    "self.count += 1",
    "if token_ids is None:\n    return\nself.seen = token_ids",
    "return self._nothing()",
    "raise RuntimeError('observes only')",
])
def test_an_observer_whose_after_sample_never_returns_an_output_needs_no_from_pp_tensors(lint_project, body):
    lint_project({"pkg/outputs.py": OUT_WITH_PP, "pkg/obs.py": (
        "from pkg.outputs import Out\n\n\nclass Counter:\n"
        "    def is_active(self, sampling_info):\n        return True\n\n"
        "    def after_sample(self, state, token_ids):\n" + textwrap.indent(body, " " * 8) + "\n\n"
        "    def _nothing(self):\n        pass\n")})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert "returns None on every path" in analysis.classes["pkg.obs.Counter"].no_output


@pytest.mark.parametrize("bases, body", [
    ("(SamplingObserver)", "pass"),  # inherits the Protocol's stub
    ("(SamplingObserver)", "def is_active(self, sampling_info): return True"),
    ("(Base)", "pass"),  # a project Protocol-like base whose stub returns None
])
def test_an_observer_that_inherits_a_stub_after_sample_needs_no_from_pp_tensors(lint_project, bases, body):
    lint_project({"pkg/obs.py": f"""
        from typing import Protocol

        from sglang.srt.sampling.sampling_observer import SamplingObserver


        class Base(Protocol):
            def is_active(self, sampling_info): ...

            def after_sample(self, state, token_ids): ...


        class Quiet{bases}:
            {body}
        """, "pkg/more.py": "from pkg.obs import Base\n\n\nclass Impl(Base):\n    pass\n"})
    assert reported(lint()) == set()


def test_an_observer_returning_an_output_on_one_path_still_needs_from_pp_tensors(lint_project):
    lint_project({"pkg/outputs.py": OUT_WITH_PP, "pkg/obs.py": """
        from pkg.outputs import Out


        class Sometimes:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids):
                if state is None:
                    return None
                return self._make()

            def _make(self):
                return Out()
        """})
    assert reported(lint()) == {("pkg.obs.Sometimes", "PPA002")}


def test_an_observer_whose_after_sample_the_tool_cannot_see_is_still_judged(lint_project):
    lint_project({"pkg/obs.py": """
        class Hidden:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids):
                return self.produce(token_ids)
        """})
    assert reported(lint()) == {("pkg.obs.Hidden", "PPA002")}


# -- classes with no instance of their own -----------------------------------------------------------------
@pytest.mark.parametrize("header", ["class Base(abc.ABC):", "class Base(metaclass=abc.ABCMeta):",
                                    "class Base(Meta2):"])
def test_an_abstract_output_is_judged_through_its_concrete_subclasses(lint_project, header):
    lint_project({"pkg/outputs.py": f"""
        import abc


        class Meta(abc.ABC):
            pass


        class Meta2(Meta):
            pass


        {header}
            def copy_to_host(self, copy_tensor):
                return self

            @abc.abstractmethod
            def summary(self): ...


        class Good(Base):
            def summary(self):
                return 1

            def to_pp_tensors(self):
                return {{"x": self.x}}


        class Bad(Base):
            def summary(self):
                return 2


        Base.register(int)
        """})
    assert reported(lint()) == {("pkg.outputs.Bad", "PPA001")}
    assert "`summary` left abstract" in run_analysis().classes["pkg.outputs.Base"].not_instantiated


def test_an_abstract_base_whose_methods_are_all_implemented_is_judged(lint_project):
    lint_project({"pkg/outputs.py": """
        import abc


        class Base(abc.ABC):
            def copy_to_host(self, copy_tensor):
                return self


        x = Base()
        """})
    assert reported(lint()) == {("pkg.outputs.Base", "PPA001")}


BASE_ONLY = """
class Base:
    def copy_to_host(self, copy_tensor):
        return self


class Leaf(Base):
    def to_pp_tensors(self):
        return {"x": self.x}
"""


def test_an_output_base_only_subclassed_is_judged_through_its_subclasses(lint_project):
    lint_project({"pkg/outputs.py": BASE_ONLY, "pkg/use.py": """
        from pkg.outputs import Base, Leaf


        def make() -> Base:
            assert isinstance(Leaf(), Base)
            return Leaf()
        """})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert "a base only" in analysis.classes["pkg.outputs.Base"].not_instantiated


@pytest.mark.parametrize("made", [
    'Made = type("Made", (Base,), {"to_pp_tensors": _tensors})',
    'Made = type("Made", (Base, object), {"to_pp_tensors": _tensors})',
    'import builtins\n\nMade = builtins.type("Made", (Base,), {"to_pp_tensors": _tensors})',
])
def test_an_output_base_used_only_to_make_classes_with_type_is_judged_through_them(lint_project, made):
    """The bases of ``type(name, bases, ns)`` construct nothing, as a class statement's do not (issue 33)."""
    lint_project({"pkg/outputs.py": BASE_ONLY, "pkg/made.py": f"""
from pkg.outputs import Base


def _tensors(self):
    return {{"x": self.x}}


{made}
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert "a base only" in analysis.classes["pkg.outputs.Base"].not_instantiated


@pytest.mark.parametrize("use", [
    "from pkg.outputs import Base\n\nx = Base()",
    "from pkg.outputs import Base as B\n\nx = B()",
    "from pkg import outputs\n\nx = outputs.Base()",
    "from pkg.outputs import Base as make_base\n\nx = make_base()",
    "from pkg.outputs import Base\n\nREGISTRY = {'base': Base}",
    "from pkg.outputs import Base\n\nx = Base.create()",
    "from pkg.outputs import Base\n\nMade = type('Made', (Base,), {'make': Base})",  # named in the namespace
])
def test_an_output_base_constructed_anywhere_is_judged_itself(lint_project, use):
    lint_project({"pkg/outputs.py": BASE_ONLY, "pkg/use.py": use})
    made = {("pkg.use.Made", "PPA001")} if "type(" in use else set()  # a class like any other (issue 33, item 1)
    assert reported(lint()) == {("pkg.outputs.Base", "PPA001")} | made


# -- PPA014 and what the annotation says --------------------------------------------------------------------
@pytest.mark.parametrize("body, reported_", [
    ("return Out()", False),
    ("return self._make(tensors)", False),
    ("return Out() if tensors else Out.empty()", False),
    ("return self._maybe(tensors)", True),
    ("return unknown_helper(tensors)", True),
])
def test_an_optional_from_pp_tensors_is_reported_only_when_none_can_come_back(lint_project, body, reported_):
    lint_project({"pkg/obs.py": f"""
        from typing import Optional


        class Out:
            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {{"x": self.x}}

            @classmethod
            def empty(cls):
                return cls()


        class Obs:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids):
                return Out()

            def from_pp_tensors(self, tensors) -> Optional[Out]:
                {body}

            def _make(self, tensors):
                return Out()

            def _maybe(self, tensors):
                return Out() if tensors else None
        """})
    assert (("pkg.obs.Obs", "PPA014") in reported(lint())) is reported_


def test_a_route_through_super_is_followed(lint_project):
    """``super().after_sample(...)`` returns what the next class along the MRO returns."""
    lint_project({"pkg/outputs.py": OUTPUTS, "pkg/obs.py": """
        from pkg.outputs import Capture


        class Hooks:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids):
                return None


        class Quiet(Hooks):
            def after_sample(self, state, token_ids):
                self.seen = token_ids
                return super().after_sample(state, token_ids)


        class Loud(Hooks):
            def after_sample(self, state, token_ids):
                return super().after_sample(state, token_ids) or self._make(token_ids)

            def _make(self, token_ids):
                return Capture(token_ids)
        """})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.obs.Loud", "PPA002"), (CAPTURE, "PPA001")}
    assert analysis.classes["pkg.obs.Quiet"].no_output
    assert analysis.classes[CAPTURE].returned_by == ("pkg.obs.Loud",)


def test_recognition_names_the_chain_of_bases_it_goes_through(lint_project):
    """Item 8: "via" lists the classes the inheritance really goes through, not every class of the MRO."""
    lint_project({"pkg/obs.py": """
        from sglang.srt.sampling.sampling_observer import SamplingObserver


        class _Hooks:
            def is_active(self, sampling_info):
                return True


        class QuietBase(_Hooks, SamplingObserver):
            pass


        class Child(QuietBase):
            def after_sample(self, state, token_ids):
                return token_ids
        """})
    (finding,) = lint()
    assert "(subclass of sglang.srt.sampling.sampling_observer.SamplingObserver via pkg.obs.QuietBase)" \
        in finding.message


def test_attributes_assigned_from_each_other_terminate(lint_project):
    lint_project({"pkg/outputs.py": OUTPUTS, "pkg/watch.py": _observer(
        FORWARD, "from pkg.outputs import Capture", "self.a = self.b or Capture(batch)\n        return self.a",
        "    def swap(self):\n        self.b = self.a\n")})
    assert run_analysis().classes[CAPTURE].forward_only_by == ("pkg.watch.Watcher",)


def test_a_protocol_in_the_project_routes_nothing_and_its_annotation_names_no_output(lint_project):
    """SGLang's own tree defines the ForwardObserver Protocol, annotated ``-> Optional[DeviceAuxiliaryOutput]``:
    neither the Protocol (an interface, not an observer) nor that annotation (every output fits the Protocol)
    makes each output a forward output, nor does a helper whose parameter is annotated with it."""
    lint_project({"pkg/protocols.py": """
        from typing import Optional, Protocol


        class DeviceAuxiliaryOutput(Protocol):
            def copy_to_host(self, copy_tensor): ...


        class ForwardObserver(Protocol):
            def after_forward(self, batch, forward_batch, logits_output, *,
                              can_run_graph) -> Optional[DeviceAuxiliaryOutput]: ...
        """, "pkg/impl.py": """
        from pkg.protocols import DeviceAuxiliaryOutput


        class Out(DeviceAuxiliaryOutput):
            def copy_to_host(self, copy_tensor):
                return self


        def passthrough(output: DeviceAuxiliaryOutput) -> DeviceAuxiliaryOutput:
            return output


        class Watch:
            def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
                return passthrough(logits_output)


        SAMPLE = Out()
        """}, config='[tool.ppaux-lint.protocols]\noutput = ["pkg.protocols.DeviceAuxiliaryOutput"]\n'
                   'forward-observer = ["pkg.protocols.ForwardObserver"]\n')
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.impl.Out", "PPA001")}
    assert analysis.classes["pkg.impl.Out"].forward_by == ()


def test_a_chain_of_locals_past_any_real_body_is_unknown_not_a_crash(lint_project):
    """``x1 = x0``, ``x2 = x1``, ... each read was a few recursive calls, and a hook whose value goes through a
    thousand locals ended inventory (which pairs every observer) with an internal error, RecursionError; now an
    evaluation nested deeper than _NESTING is unknown, and a shorter chain is followed as before."""
    chain = "".join(f"        x{i} = x{i - 1}\n" for i in range(1, 1500))
    short = "".join(f"        y{i} = y{i - 1}\n" for i in range(1, 20))
    lint_project({"pkg/outputs.py": OUTPUTS,
                  "pkg/far.py": _observer(SAMPLE, "from pkg.outputs import Capture",
                                          "x0 = Capture(None)\n" + chain + "        return x1499", "", "Far"),
                  "pkg/near.py": _observer(SAMPLE, "from pkg.outputs import Capture",
                                           "y0 = Capture(None)\n" + short + "        return y19", "", "Near")})
    analysis = run_analysis()
    assert analysis.classes["pkg.near.Near"].pair == CAPTURE
    assert (CAPTURE, "PPA001") in reported(analysis.findings)


def test_a_local_bound_twice_from_the_one_before_is_read_in_bounded_time(lint_project):
    """``x1 = x0`` twice, ``x2 = x1`` twice, ... forty times (eighty lines): every path through the bindings was
    read, two to the fortieth, and check (or the language server) never ended. Each expression's value now has a
    budget of evaluations, past which what is left is unknown; the run ends in seconds."""
    import signal

    twice = "".join(f"        x{i} = x{i - 1}\n        x{i} = x{i - 1}\n" for i in range(1, 40))
    lint_project({"pkg/outputs.py": OUTPUTS,
                  "pkg/dag.py": _observer(SAMPLE, "from pkg.outputs import Capture",
                                          "x0 = Capture(None)\n" + twice + "        return x39", "", "Dag")})

    def expire(signum, frame):
        raise TimeoutError("the inference did not end")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)  # a guard against the hang, not a timing: two to the fortieth paths never end
    try:
        analysis = run_analysis()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert "pkg.dag.Dag" in analysis.classes
