"""Name resolution, inheritance and classification (issue 2), one small project per case.

The probe in most cases is a class with an empty body whose only claim to being
an SGLang output is its base: it is reported (PPA001) if and only if the base
was resolved to ``DeviceAuxiliaryOutput``, because a base that cannot be
resolved silences the rule. A sibling that has the method proves the lookup
through the same base.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from lintkit import (
    IMPORT_AUX,
    IMPORT_OBS,
    OBSERVER_ROOT,
    OLD_OUTPUT_ROOT,
    OUTPUT_ROOT,
    lint,
    locate,
    make_project,
    only,
    positions,
    relpath,
    reported,
    roles_of,
    run_analysis,
    span_of,
)

BASE_WITH_METHOD = IMPORT_AUX + """
class Base(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"scores": self.scores}
"""


# -- imports ------------------------------------------------------------------------------------


@pytest.mark.parametrize("head, base", [
    ("import sglang.srt.managers.auxiliary_output as aux", "aux.DeviceAuxiliaryOutput"),
    ("import sglang.srt.managers.auxiliary_output", "sglang.srt.managers.auxiliary_output.DeviceAuxiliaryOutput"),
    ("import sglang.srt.managers as managers", "managers.auxiliary_output.DeviceAuxiliaryOutput"),
], ids=["import-as", "import-dotted", "import-package-as"])
def test_import_module_then_attribute_of_sglang(lint_project, head, base):
    lint_project({"pkg/impl.py": f"""
        {head}


        class X({base}):
            pass


        class Y({base}):
            def to_pp_tensors(self):
                return {{"a": self.a}}
        """})
    findings = lint()
    assert reported(findings) == {("pkg.impl.X", "PPA001")}
    assert OUTPUT_ROOT in only(findings).message  # says how it was recognised


@pytest.mark.parametrize("head, base", [
    ("import pkg.base as m", "m.Base"),
    ("import pkg.base", "pkg.base.Base"),
    ("from pkg import base as m", "m.Base"),
], ids=["import-as", "import-dotted", "from-package-import-module"])
def test_import_project_module_then_attribute(lint_project, head, base):
    lint_project({
        "pkg/base.py": BASE_WITH_METHOD,
        "pkg/impl.py": f"""
            {head}


            class X({base}):
                to_pp_tensors = None


            class Y({base}):
                pass
            """,
    })
    findings = lint()
    # X is an output only through m.Base; Y inherits Base.to_pp_tensors along the MRO.
    assert reported(findings) == {("pkg.impl.X", "PPA001")}


def test_from_import_as_alias_of_sglang_and_of_project_class(lint_project):
    lint_project({
        "pkg/base.py": BASE_WITH_METHOD,
        "pkg/impl.py": """
            from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput as AuxOut
            from pkg.base import Base as B


            class Direct(AuxOut):
                pass


            class ViaProject(B):
                to_pp_tensors = None


            class Fine(B):
                pass
            """,
    })
    assert reported(lint()) == {("pkg.impl.Direct", "PPA001"), ("pkg.impl.ViaProject", "PPA001")}


@pytest.mark.parametrize("files, symbol", [
    ({"pkg/sub/base.py": BASE_WITH_METHOD,
      "pkg/sub/impl.py": "from .base import Base\n\n\nclass X(Base):\n    to_pp_tensors = None\n"},
     "pkg.sub.impl.X"),
    ({"pkg/core.py": BASE_WITH_METHOD,
      "pkg/sub/impl.py": "from ..core import Base\n\n\nclass X(Base):\n    to_pp_tensors = None\n"},
     "pkg.sub.impl.X"),
    ({"pkg/sub/base.py": BASE_WITH_METHOD,
      "pkg/sub/impl.py": "from . import base\n\n\nclass X(base.Base):\n    to_pp_tensors = None\n"},
     "pkg.sub.impl.X"),
    ({"pkg/core.py": BASE_WITH_METHOD,
      "pkg/sub/impl.py": "from .. import core\n\n\nclass X(core.Base):\n    to_pp_tensors = None\n"},
     "pkg.sub.impl.X"),
    ({"pkg/sub/base.py": BASE_WITH_METHOD,
      "pkg/sub/__init__.py": "from .base import Base\n\n\nclass X(Base):\n    to_pp_tensors = None\n"},
     "pkg.sub.X"),
    ({"pkg/a/b/deep.py": "from ...core import Base\n\n\nclass X(Base):\n    to_pp_tensors = None\n",
      "pkg/core.py": BASE_WITH_METHOD},
     "pkg.a.b.deep.X"),
], ids=["dot-module", "dotdot-module", "from-dot-import-module", "from-dotdot-import-module", "in-package-init",
        "three-dots"])
def test_relative_imports(lint_project, files, symbol):
    lint_project(files)
    assert reported(lint()) == {(symbol, "PPA001")}


# -- re-exports ---------------------------------------------------------------------------------


@pytest.mark.parametrize("init", [
    "from .outputs import AcmeOutput\n\n__all__ = [\"AcmeOutput\"]\n",
    "from pkg.base.outputs import AcmeOutput\n\n__all__ = (\"AcmeOutput\",)\n",
    "from .outputs import AcmeOutput as AcmeOutput\n",
    "from .outputs import *\n",
], ids=["relative-with-all", "absolute-with-all-tuple", "redundant-alias", "star"])
def test_reexport_from_package_init(lint_project, init):
    lint_project({
        "pkg/base/outputs.py": """
            from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

            __all__ = ["AcmeOutput"]


            class AcmeOutput(DeviceAuxiliaryOutput):
                def copy_to_host(self, copy_tensor):
                    return self
            """,
        "pkg/base/__init__.py": init,
        "pkg/impl.py": """
            from pkg.base import AcmeOutput


            class TopK(AcmeOutput):
                pass


            def make_default():
                return AcmeOutput()
            """,
    })
    # AcmeOutput is constructed (through the re-export), so it is judged itself, not only as TopK's base
    assert reported(lint()) == {("pkg.base.outputs.AcmeOutput", "PPA001"), ("pkg.impl.TopK", "PPA001")}


def test_reexport_chain_of_two_inits_used_from_another_package(lint_project):
    lint_project({
        "acme/base/outputs.py": BASE_WITH_METHOD,
        "acme/base/__init__.py": "from .outputs import Base\n\n__all__ = [\"Base\"]\n",
        "acme/__init__.py": "from acme.base import Base\n\n__all__ = [\"Base\"]\n",
        "plugin/impl.py": """
            from acme import Base
            import acme as top


            class Broken(Base):
                to_pp_tensors = None


            class AlsoBroken(top.Base):
                to_pp_tensors = None


            class Fine(Base):
                pass
            """,
    })
    assert reported(lint()) == {("plugin.impl.Broken", "PPA001"), ("plugin.impl.AlsoBroken", "PPA001")}


def test_package_attribute_through_import_package_as(lint_project):
    # ``import acme.base as b`` + ``b.Base`` where Base lives in acme/base/outputs.py
    lint_project({
        "acme/base/outputs.py": BASE_WITH_METHOD,
        "acme/base/__init__.py": "from .outputs import Base\n",
        "plugin/impl.py": "import acme.base as b\n\n\nclass X(b.Base):\n    to_pp_tensors = None\n",
    })
    assert reported(lint()) == {("plugin.impl.X", "PPA001")}


def test_star_import(lint_project):
    lint_project({
        "pkg/base.py": BASE_WITH_METHOD,
        "pkg/impl.py": "from pkg.base import *\n\n\nclass X(Base):\n    to_pp_tensors = None\n",
        "pkg/rel.py": "from .base import *\n\n\nclass Y(DeviceAuxiliaryOutput):\n    pass\n",
    })
    # pkg.base has no __all__, so its imported DeviceAuxiliaryOutput is star-exported too
    assert reported(lint()) == {("pkg.impl.X", "PPA001"), ("pkg.rel.Y", "PPA001")}


def test_star_import_respects_all(lint_project):
    lint_project({
        "pkg/base.py": IMPORT_AUX + '\n__all__ = ["Other"]\n\n\nclass Base(DeviceAuxiliaryOutput):\n    pass\n'
                       '\n\nclass Other:\n    pass\n',
        # Base is not in __all__: after the star import the name is unbound, so X's base is unknown and X is
        # not known to be an output at all
        "pkg/impl.py": "from pkg.base import *\n\n\nclass X(Base):\n    pass\n",
    })
    assert reported(lint()) == {("pkg.base.Base", "PPA001")}


# -- fallbacks, TYPE_CHECKING, aliases ------------------------------------------------------------


@pytest.mark.parametrize("first, second", [
    ("sglang.srt.managers.auxiliary_output", "sglang.srt.sampling.sampling_observer"),
    ("sglang.srt.sampling.sampling_observer", "sglang.srt.managers.auxiliary_output"),
], ids=["new-then-old", "old-then-new"])
def test_try_except_importerror_fallback(lint_project, first, second):
    lint_project({"pkg/impl.py": f"""
        try:
            from {first} import DeviceAuxiliaryOutput
        except ImportError:
            from {second} import DeviceAuxiliaryOutput


        class X(DeviceAuxiliaryOutput):
            pass
        """})
    assert reported(lint()) == {("pkg.impl.X", "PPA001")}


def test_try_except_fallback_in_compat_module_used_elsewhere(lint_project):
    lint_project({
        "pkg/_compat.py": """
            try:
                from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
            except (ImportError, ModuleNotFoundError):  # SGLang < 0.5.23
                from sglang.srt.sampling.sampling_observer import DeviceAuxiliaryOutput
            from sglang.srt.sampling.sampling_observer import SamplingObserver
            """,
        "pkg/impl.py": """
            from pkg import _compat
            from pkg._compat import DeviceAuxiliaryOutput


            class ViaName(DeviceAuxiliaryOutput):
                pass


            class ViaModule(_compat.DeviceAuxiliaryOutput):
                pass


            class Obs(_compat.SamplingObserver):
                def after_sample(self, state, token_ids):
                    return token_ids  # not visible to the inference: may be an output
            """,
    })
    assert reported(lint()) == {("pkg.impl.ViaName", "PPA001"), ("pkg.impl.ViaModule", "PPA001"),
                                ("pkg.impl.Obs", "PPA002")}


@pytest.mark.parametrize("typing_import, condition", [("from typing import TYPE_CHECKING", "TYPE_CHECKING"),
                                                        ("import typing", "typing.TYPE_CHECKING")])
def test_type_checking_imports(lint_project, typing_import, condition):
    lint_project({
        "pkg/out.py": """
            import torch
            from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


            class Out(DeviceAuxiliaryOutput):
                def copy_to_host(self, copy_tensor):
                    return self

                def to_pp_tensors(self):
                    return {"a": self.a}
            """,
        "pkg/obs.py": f"""
            {typing_import}

            if {condition}:
                from sglang.srt.sampling.sampling_observer import SamplingObserver
                from pkg.out import Out


            class Obs(SamplingObserver):
                def after_sample(self, state, token_ids) -> "Out":
                    return self._make(state)

                def from_pp_tensors(self, tensors) -> "Out":
                    return self._rebuild(tensors["a"], tensors["b"])


            class NoPP(SamplingObserver):
                def after_sample(self, state, token_ids):
                    return token_ids  # not visible to the inference: may be an output
            """,
    })
    findings = lint()
    # NoPP's base resolves only through the TYPE_CHECKING import; Obs is paired with Out only through the
    # TYPE_CHECKING import of Out in its string annotation, and reads "b" which Out never sends.
    assert reported(findings) == {("pkg.obs.NoPP", "PPA002"), ("pkg.obs.Obs", "PPA015")}
    read = only(findings, "PPA015")
    assert "'b'" in read.message


def test_module_level_alias_assignment(lint_project):
    lint_project({
        "pkg/compat.py": """
            from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput as _Base

            Base = _Base
            """,
        "pkg/project_alias.py": """
            from pkg import project_base

            Alias = project_base.Base
            """,
        "pkg/project_base.py": BASE_WITH_METHOD,
        "pkg/impl.py": """
            from pkg.compat import Base
            from pkg.project_alias import Alias
            import sglang.srt.managers.auxiliary_output as aux

            Local = aux.DeviceAuxiliaryOutput


            class A(Base):
                pass


            class B(Local):
                pass


            class C(Alias):
                to_pp_tensors = None


            class D(Alias):
                pass
            """,
    })
    assert reported(lint()) == {("pkg.impl.A", "PPA001"), ("pkg.impl.B", "PPA001"), ("pkg.impl.C", "PPA001")}


# -- a name bound more than once: Python keeps what runs last ------------------------------------------------------

PLAIN_BASE = """
class Base:
    def copy_to_host(self, copy_tensor):
        return self
"""

PP_BASE = PLAIN_BASE + """
    def to_pp_tensors(self):
        return {"ids": self.ids}
"""

PROBE = """
class Out(Base, DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids
"""


@pytest.mark.parametrize("binding", [
    # the stub for type checkers never runs; the ``else`` always does
    "if TYPE_CHECKING:\n    from pkg.plain import Base\nelse:\n    from pkg.pp import Base\n",
    "if not TYPE_CHECKING:\n    from pkg.pp import Base\nelse:\n    from pkg.plain import Base\n",
    # the body of a ``try`` runs to its end: its import stands, whatever the handler binds, and in either order
    "try:\n    from pkg.pp import Base\nexcept ImportError:\n    Base = object\n",
    "try:\n    from pkg.pp import Base\nexcept ImportError:\n    from pkg.plain import Base\n",
    # a later import or alias replaces an earlier one
    "from pkg.plain import Base\nfrom pkg.pp import Base\n",
    "from pkg import plain, pp\nBase = plain.Base\nBase = pp.Base\n",
    # of two star imports at the top level the last wins; one that may not run (a try's handler, an if, the
    # body of if TYPE_CHECKING) does not win over one that does
    "from pkg.plain import *\nfrom pkg.pp import *\n",
    "try:\n    from pkg.pp import *\nexcept ImportError:\n    from pkg.plain import *\n",
    "from pkg.pp import *\nif TYPE_CHECKING:\n    from pkg.plain import *\n",
    "from pkg.pp import Base\nimport os\nif os.environ.get('LEGACY'):\n    from pkg.plain import *\n",
    "from pkg.pp import *\n\n\ndef legacy():\n    from pkg.plain import Base\n    return Base\n",
], ids=["type-checking-else", "not-type-checking", "try-fallback-assignment", "try-fallback-import",
        "import-twice", "alias-twice", "star-then-star", "star-in-try", "star-type-checking", "star-under-if",
        "star-beside-a-function-s-import"])
def test_a_name_bound_twice_is_what_the_module_binds_last(lint_project, binding):
    """``Out``'s base is the one with ``to_pp_tensors`` when the module has run: no finding, whichever binding the
    source shows first."""
    lint_project({"pkg/plain.py": PLAIN_BASE, "pkg/pp.py": PP_BASE,
                  "pkg/out.py": IMPORT_AUX + "from typing import TYPE_CHECKING\n" + binding + PROBE})
    assert {symbol for symbol, _ in reported(lint())} <= {"pkg.plain.Base"}  # a class of its own, judged as such


@pytest.mark.parametrize("binding", [
    "from pkg.pp import Base\nfrom pkg.plain import Base\n",
    "from pkg.pp import *\nfrom pkg.plain import *\n",
    "if TYPE_CHECKING:\n    from pkg.pp import Base\nelse:\n    from pkg.plain import Base\n",
], ids=["import-twice", "star-then-star", "type-checking-else"])
def test_a_name_bound_twice_is_judged_by_its_last_binding(lint_project, binding):
    """The same forms the other way round: the base that runs lacks the method, and ``Out`` is reported."""
    lint_project({"pkg/plain.py": PLAIN_BASE, "pkg/pp.py": PP_BASE,
                  "pkg/out.py": IMPORT_AUX + "from typing import TYPE_CHECKING\n" + binding + PROBE})
    assert ("pkg.out.Out", "PPA001") in reported(lint())


def test_a_name_bound_under_an_unknown_condition_is_not_judged(lint_project):
    """Which branch runs depends on the interpreter: ``Out``'s base is unknown, and ``inventory`` says so."""
    lint_project({"pkg/plain.py": PLAIN_BASE, "pkg/pp.py": PP_BASE, "pkg/out.py": IMPORT_AUX + """
import sys
if sys.version_info >= (3, 10):
    from pkg.plain import Base
else:
    from pkg.pp import Base
""" + PROBE})
    assert ("pkg.out.Out", "PPA001") not in reported(lint())


@pytest.mark.parametrize("base", [
    "make_base()", "Mixin if USE_PP else object", "*EXTRA",
], ids=["factory-call", "conditional", "starred"])
def test_a_base_computed_by_an_expression_makes_the_class_unknown(lint_project, base):
    lint_project({"pkg/out.py": IMPORT_AUX + f"""
USE_PP = True


class Mixin:
    def to_pp_tensors(self):
        return {{"ids": self.ids}}


EXTRA = (Mixin,)


def make_base():
    return Mixin


class Out({base}, DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    [info] = analysis.unjudged()
    assert info.unknown[0].what.startswith("a base is computed by `")


def test_a_metaclass_computed_by_an_expression_makes_the_class_unknown(lint_project):
    lint_project({"pkg/out.py": IMPORT_AUX + """

def transport_meta(keys):
    class _Meta(type):
        def __new__(mcls, name, bases, ns):
            ns["to_pp_tensors"] = lambda self: {k: getattr(self, k) for k in keys}
            return super().__new__(mcls, name, bases, ns)
    return _Meta


class Out(DeviceAuxiliaryOutput, metaclass=transport_meta(("ids",))):
    def copy_to_host(self, copy_tensor):
        return self
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    [info] = analysis.unjudged()
    assert info.unknown[0].what.startswith("its metaclass is computed by `transport_meta((")


def test_a_constant_key_imported_beside_a_star_import_that_does_not_bind_it(lint_project):
    """A star import of a project module that binds no ``KEY`` leaves the imported key what it is: the keys are
    compared, and the one read that is never sent is reported."""
    lint_project({
        "pkg/keys.py": 'KEY = "entropy"\n',
        "pkg/util.py": "def scale(x):\n    return x * 2\n",
        "pkg/out.py": IMPORT_AUX + IMPORT_OBS + """
from pkg.keys import KEY
from pkg.util import *


class Out(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {KEY: self.ids}


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Out(token_ids)

    def from_pp_tensors(self, tensors):
        return Out(tensors["entropy_v2"])
"""})
    assert ("pkg.out.Obs", "PPA015") in reported(lint())


# -- a class statement whose name holds something else when its module has run ----------------------------------

def _module(body: str, observer: bool = True) -> str:
    """A module importing both roots, with ``body`` (indented as written here) and the observer that returns ``Out``."""
    return IMPORT_AUX + IMPORT_OBS + textwrap.dedent(body) + (textwrap.dedent(FALLBACK_OBSERVER) if observer else "")


FALLBACK_OBSERVER = """
            class Obs(SamplingObserver):
                def after_sample(self, state, token_ids):
                    return Out(token_ids)

                def from_pp_tensors(self, tensors):
                    return Out(tensors["ids"])
"""


@pytest.mark.parametrize("mixin, expected", [
    ("from pkg.mixin import Base", set()),  # the import runs: Base is the project mixin with the method
    ("from fastlib.pp import Base", set()),  # a base the analysis cannot see: silent, as any unresolved base
], ids=["project-mixin", "outside-mixin"])
def test_class_in_except_importerror_is_a_fallback_the_import_replaces(lint_project, mixin, expected):
    lint_project({
        "pkg/mixin.py": """
            class Base:
                def to_pp_tensors(self):
                    return {"ids": self.ids}
            """,
        "pkg/impl.py": _module(f"""
            try:
                {mixin}
            except ImportError:
                class Base:
                    pass


            class Out(Base, DeviceAuxiliaryOutput):
                def __init__(self, ids):
                    self.ids = ids

                def copy_to_host(self, copy_tensor):
                    return self
            """),
    })
    assert reported(lint()) == expected


def test_class_in_except_importerror_before_the_protocol_import(lint_project):
    """The common shim: SGLang's Protocol imported, a stand-in defined when SGLang is absent. The import is what
    the project runs with, so subclasses are outputs by inheritance and are judged."""
    lint_project({"pkg/impl.py": """
        from typing import Protocol

        try:
            from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
        except ImportError:
            class DeviceAuxiliaryOutput(Protocol):
                def copy_to_host(self, copy_tensor): ...


        class X(DeviceAuxiliaryOutput):
            pass
        """})
    findings = lint()
    assert reported(findings) == {("pkg.impl.X", "PPA001")}
    assert f"subclass of {OUTPUT_ROOT}" in only(findings, "PPA001").message


@pytest.mark.parametrize("pp_method, expected", [
    ("def to_pp_tensors(self):\n                    return {\"ids\": self.ids}", set()),
    ("pass", {("pkg.impl._PPOut", "PPA001")}),
], ids=["replacement-has-it", "replacement-lacks-it"])
def test_class_name_rebound_to_a_subclass_after_the_statement(lint_project, pp_method, expected):
    """``Out = _PPOut``: what the observer constructs is the subclass, whose base is still the class statement
    (bases are read when the statement runs). The statement itself is reached by no name: not judged, and
    ``inventory`` says why."""
    lint_project({"pkg/impl.py": _module(f"""

            class Out(DeviceAuxiliaryOutput):
                def __init__(self, ids):
                    self.ids = ids

                def copy_to_host(self, copy_tensor):
                    return self


            class _PPOut(Out):
                {pp_method}


            Out = _PPOut
            """)})
    analysis = run_analysis()
    assert reported(analysis.findings) == expected
    line = Path("pkg/impl.py").read_text().splitlines().index("Out = _PPOut") + 1
    unjudged = {info.fqn: [touch.what for touch in info.unknown] for info in analysis.unjudged()}
    assert unjudged == {"pkg.impl.Out": [f"its name `Out` is bound to another class at line {line}, which the rest "
                                         "of the project gets instead"]}


def test_class_name_imported_from_a_module_that_rebinds_it(lint_project):
    """Another module's ``from pkg.impl import Out`` gets what ``pkg.impl`` ends with, not its class statement."""
    lint_project({
        "pkg/impl.py": _module("""
            class Out(DeviceAuxiliaryOutput):
                def copy_to_host(self, copy_tensor):
                    return self


            class _PPOut(Out):
                def to_pp_tensors(self):
                    return {"ids": self.ids}


            Out = _PPOut
            """, observer=False),
        "pkg/obs.py": _module("""
            from pkg.impl import Out
            """),
    })
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert analysis.index.info("pkg.obs.Obs").pair == "pkg.impl._PPOut"


@pytest.mark.parametrize("condition", ["sys.version_info >= (3, 8)", "USE_PP"])
def test_class_defined_under_both_branches_of_an_if_is_not_judged(lint_project, condition):
    """Which class statement binds ``Out`` depends on a condition: no finding about either, and why is shown."""
    lint_project({"pkg/impl.py": _module(f"""
            import sys

            USE_PP = True

            if {condition}:
                class Out(DeviceAuxiliaryOutput):
                    def copy_to_host(self, copy_tensor):
                        return self

                    def to_pp_tensors(self):
                        return {{"ids": self.ids}}
            else:
                class Out(DeviceAuxiliaryOutput):
                    def copy_to_host(self, copy_tensor):
                        return self
            """)})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert [info.fqn for info in analysis.unjudged()] == ["pkg.impl.Out"]


def test_sequential_redefinition_keeps_the_last_class(lint_project):
    """Two unconditional class statements of one name: the second is what the module holds, and is judged."""
    lint_project({"pkg/impl.py": _module("""

            class Out(DeviceAuxiliaryOutput):
                def copy_to_host(self, copy_tensor):
                    return self

                def to_pp_tensors(self):
                    return {"ids": self.ids}


            class Out(DeviceAuxiliaryOutput):
                def copy_to_host(self, copy_tensor):
                    return self
            """)})
    assert reported(lint()) == {("pkg.impl.Out", "PPA001")}


# -- a project's own namesake is not SGLang's ------------------------------------------------------


def test_project_class_named_like_sglang_is_not_sglang(lint_project):
    lint_project({
        "pkg/events.py": """
            class DeviceAuxiliaryOutput:
                \"\"\"An event record, nothing to do with SGLang.\"\"\"

                def consume(self, batch, commits):
                    pass


            class SamplingObserver:
                def after_sample(self, state, token_ids):
                    return token_ids


            class Event(DeviceAuxiliaryOutput):
                pass


            class Audit(SamplingObserver):
                pass
            """,
        "pkg/other.py": """
            from pkg.events import DeviceAuxiliaryOutput, SamplingObserver


            class Logged(DeviceAuxiliaryOutput):
                pass


            class Structural(DeviceAuxiliaryOutput):
                def copy_to_host(self, copy_tensor):
                    return self


            class StructuralObserver(SamplingObserver):
                def is_active(self, sampling_info):
                    return True
            """,
    })
    analysis = run_analysis()
    # Only the subclasses that are outputs/observers structurally are reported, and as structural ones.
    assert reported(analysis.findings) == {("pkg.other.Structural", "PPA001"),
                                           ("pkg.other.StructuralObserver", "PPA002")}
    for finding in analysis.findings:
        assert "structural" in finding.message
        assert "sglang" not in finding.message
    assert not roles_of(analysis, "pkg.events.Event")
    assert not roles_of(analysis, "pkg.events.DeviceAuxiliaryOutput")


# -- inheritance ----------------------------------------------------------------------------------


DEEP = {
    "alpha/base.py": """
        from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

        class A1(DeviceAuxiliaryOutput):
            def copy_to_host(self, copy_tensor):
                return self
        """,
    "beta/mid.py": "from alpha.base import A1\n\n\nclass A2(A1):\n    pass\n",
    "gamma/leaf.py": "from beta.mid import A2\n\n\nclass A3(A2):\n    pass\n",
    "gamma/sub/leaf.py": "from gamma.leaf import A3\n\n\nclass A4(A3):\n    pass\n",
}


def test_subclass_four_levels_deep_across_three_packages(lint_project):
    # every level is constructed somewhere, so each is judged itself (a base only would be judged through A4)
    lint_project({**DEEP, "delta/make.py": """
        from alpha.base import A1
        from beta.mid import A2
        from gamma.leaf import A3

        SAMPLES = [A1(), A2(), A3()]
        """})
    findings = lint()
    assert reported(findings) == {("alpha.base.A1", "PPA001"), ("beta.mid.A2", "PPA001"),
                                  ("gamma.leaf.A3", "PPA001"), ("gamma.sub.leaf.A4", "PPA001")}
    deepest = next(f for f in findings if f.symbol == "gamma.sub.leaf.A4")
    assert OUTPUT_ROOT in deepest.message


def test_method_found_four_levels_up(lint_project):
    files = dict(DEEP)
    files["alpha/base.py"] = IMPORT_AUX + (
        "\n\nclass A1(DeviceAuxiliaryOutput):\n    def copy_to_host(self, copy_tensor):\n        return self\n"
        "\n    def to_pp_tensors(self):\n        return {\"a\": self.a}\n")
    files["gamma/sub/leaf.py"] += "\n\nclass Broken(A3):\n    to_pp_tensors = None\n"
    lint_project(files)
    assert reported(lint()) == {("gamma.sub.leaf.Broken", "PPA001")}


@pytest.mark.parametrize("bases", ["TensorsMixin, DeviceAuxiliaryOutput", "DeviceAuxiliaryOutput, TensorsMixin"])
@pytest.mark.parametrize("mixin_module", ["same", "other"])
def test_mixin_provides_to_pp_tensors(lint_project, bases, mixin_module):
    mixin = """
        class TensorsMixin:
            def to_pp_tensors(self):
                return {"scores": self.scores}
        """
    impl = IMPORT_AUX + ("from pkg.mixins import TensorsMixin\n" if mixin_module == "other" else "") + f"""

class Out({bases}):
    def copy_to_host(self, copy_tensor):
        return self


class Bare(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self
"""
    files = {"pkg/impl.py": impl + (mixin if mixin_module == "same" else "")}
    if mixin_module == "other":
        files["pkg/mixins.py"] = mixin
    lint_project(files)
    assert reported(lint()) == {("pkg.impl.Bare", "PPA001")}


def test_mixin_is_not_itself_an_output(lint_project):
    lint_project({"pkg/mixins.py": """
        class TensorsMixin:
            def to_pp_tensors(self):
                return {"scores": self.scores}


        class HostTensors:
            def consume(self, batch, commits):
                pass
        """})
    analysis = run_analysis()
    assert analysis.findings == []
    assert not roles_of(analysis, "pkg.mixins.TensorsMixin")
    assert not roles_of(analysis, "pkg.mixins.HostTensors")


def test_method_bound_by_assignment_counts(lint_project):
    lint_project({
        "pkg/packing.py": "def pack(self):\n    return {\"a\": self.a}\n",
        "pkg/impl.py": """
            from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
            from typing import Callable

            from pkg import packing
            from pkg.packing import pack


            def _helper(self):
                return {"a": self.a}


            class Local(DeviceAuxiliaryOutput):
                to_pp_tensors = _helper


            class Imported(DeviceAuxiliaryOutput):
                to_pp_tensors = pack


            class Attribute(DeviceAuxiliaryOutput):
                to_pp_tensors = packing.pack


            class Annotated(DeviceAuxiliaryOutput):
                to_pp_tensors: Callable = _helper


            class Structural:
                def copy_to_host(self, copy_tensor):
                    return self

                to_pp_tensors = _helper
            """,
    })
    assert lint() == []


def test_member_assigned_none_is_missing(lint_project):
    src = """
        from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
        from typing import Callable, Optional


        class Base(DeviceAuxiliaryOutput):
            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {"a": self.a}


        class Disabled(Base):
            to_pp_tensors = None


        class Annotated(Base):
            to_pp_tensors: Optional[Callable] = None


        class ReEnabled(Disabled):
            def to_pp_tensors(self):
                return {"a": self.a}


        class StillDisabled(Disabled):
            pass


        DEFAULT = Disabled()  # constructed: judged itself, not only through its subclasses


        class Structural:
            def copy_to_host(self, copy_tensor):
                return self

            to_pp_tensors = None
        """
    root = lint_project({"pkg/impl.py": src})
    findings = lint()
    assert reported(findings) == {("pkg.impl.Disabled", "PPA001"), ("pkg.impl.Annotated", "PPA001"),
                                  ("pkg.impl.StillDisabled", "PPA001"), ("pkg.impl.Structural", "PPA001")}
    disabled = next(f for f in findings if f.symbol == "pkg.impl.Disabled")
    assert "None" in disabled.message
    # the finding sits on the class it concerns (its name), not on the base that has the method
    assert (relpath(disabled, root), *span_of(disabled)) == ("pkg/impl.py", *locate(src, "Disabled(Base)"))


def test_inheritance_cycle_across_modules_terminates(tmp_path):
    """Python would refuse to import this; the analysis must neither hang nor crash."""
    root = make_project(tmp_path / "proj", {
        "pkg/a.py": """
            from pkg.b import B


            class A(B):
                def copy_to_host(self, copy_tensor):
                    return self


            def make():
                return A()
            """,
        "pkg/b.py": """
            from pkg.a import A
            from pkg.c import C


            class B(A, C):
                pass
            """,
        "pkg/c.py": """
            from pkg.b import B

            Loop = Loop


            class C(B):
                pass


            class Self(Self):
                pass


            class Aliased(Loop):
                def copy_to_host(self, copy_tensor):
                    return self
            """,
        "pkg/fine.py": IMPORT_AUX + "\n\nclass Fine(DeviceAuxiliaryOutput):\n    pass\n",
    })
    code = ("import json, sys\nfrom ppaux_lint.check.engine import analyze\n"
            "found = analyze(['.']).findings\nprint(json.dumps(sorted([f.symbol, f.code] for f in found)))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    found = {tuple(item) for item in __import__("json").loads(done.stdout)}
    # the unrelated class is still checked, and only presence findings on cycle members may appear
    assert ("pkg.fine.Fine", "PPA001") in found
    assert all(code == "PPA001" for _, code in found)
    # A defines copy_to_host and has no to_pp_tensors anywhere: it is a structural output lacking it
    assert ("pkg.a.A", "PPA001") in found


def test_inheritance_cycle_cli_exit_code(tmp_path):
    root = make_project(tmp_path / "proj", {
        "pkg/a.py": "from pkg.b import B\n\n\nclass A(B):\n    pass\n",
        "pkg/b.py": "from pkg.a import A\n\n\nclass B(A):\n    pass\n",
    })
    done = subprocess.run([sys.executable, "-m", "ppaux_lint", "check", "--output-format", "json"], cwd=root,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr  # neither class is an output: clean
    assert "Traceback" not in done.stderr
    assert __import__("json").loads(done.stdout) == []


@pytest.mark.parametrize("head, base", [
    ("from thirdparty.outputs import RichOutputBase", "RichOutputBase"),
    ("import thirdparty", "thirdparty.OutputBase"),
    ("", "NeverImported"),
], ids=["from-import", "module-attribute", "undefined-name"])
def test_unresolvable_base_silences_missing_method(lint_project, head, base):
    lint_project({"pkg/impl.py": head + "\n" + IMPORT_AUX + f"""

class Inherited({base}, DeviceAuxiliaryOutput):
    pass


class Structural({base}):
    def copy_to_host(self, copy_tensor):
        return self


class ViaProjectBase(Structural):
    pass


class Control(DeviceAuxiliaryOutput):
    pass
"""})
    # the unknown base may well provide to_pp_tensors; only the control is certain
    assert reported(lint()) == {("pkg.impl.Control", "PPA001")}


def test_known_inert_bases_do_not_silence(lint_project):
    lint_project({"pkg/impl.py": """
        from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
        import abc
        from dataclasses import dataclass
        from typing import Generic, TypeVar

        T = TypeVar("T")


        @dataclass
        class Typed(DeviceAuxiliaryOutput, Generic[T]):
            pass


        class Abstract(abc.ABC, DeviceAuxiliaryOutput):
            pass


        class Plain(object):
            def copy_to_host(self, copy_tensor):
                return self
        """})
    assert reported(lint()) == {("pkg.impl.Typed", "PPA001"), ("pkg.impl.Abstract", "PPA001"),
                                ("pkg.impl.Plain", "PPA001")}


# -- interfaces and nesting -------------------------------------------------------------------------


@pytest.mark.parametrize("protocol_import, protocol", [
    ("from typing import Protocol", "Protocol"),
    ("import typing", "typing.Protocol"),
    ("from typing_extensions import Protocol as P", "P"),
    ("from typing import Protocol, TypeVar\nT = TypeVar('T')", "Protocol[T]"),
])
def test_protocol_interfaces_are_not_reported_but_their_implementations_are(lint_project, protocol_import,
                                                                           protocol):
    lint_project({
        "pkg/interfaces.py": protocol_import + "\n" + IMPORT_AUX + IMPORT_OBS + f"""

class RowAligned(DeviceAuxiliaryOutput, {protocol}):
    def copy_to_host(self, copy_tensor): ...


class Toggleable(SamplingObserver, {protocol}):
    def is_active(self, sampling_info): ...
""",
        "pkg/impl.py": """
            from pkg.interfaces import RowAligned, Toggleable


            class Rows(RowAligned):
                def copy_to_host(self, copy_tensor):
                    return self


            class Toggle(Toggleable):
                def after_sample(self, state, token_ids):
                    return token_ids
            """,
    })
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.impl.Rows", "PPA001"), ("pkg.impl.Toggle", "PPA002")}
    interface = analysis.classes.get("pkg.interfaces.RowAligned")
    assert interface is None or interface.is_interface


def test_structural_protocol_is_an_interface(lint_project):
    lint_project({"pkg/iface.py": """
        from typing import Protocol


        class HasCopy(Protocol):
            def copy_to_host(self, copy_tensor): ...


        class Obs(Protocol):
            def is_active(self, sampling_info): ...

            def after_sample(self, state, token_ids): ...
        """})
    assert lint() == []


def test_classes_nested_in_functions_and_classes_are_checked(lint_project):
    src = IMPORT_AUX + """

def make():
    class Out(DeviceAuxiliaryOutput):
        pass

    class Fine(DeviceAuxiliaryOutput):
        def to_pp_tensors(self):
            return {"a": self.a}

    return Out


class Outer:
    class Inner(DeviceAuxiliaryOutput):
        pass

    class Sub(Inner):
        def copy_to_host(self, copy_tensor):
            return self

    class Deeper:
        class Leaf:
            def copy_to_host(self, copy_tensor):
                return self


class Later(Outer.Inner):
    to_pp_tensors = None


DEFAULT = Outer.Inner()  # constructed: judged itself, not only through Sub and Later
"""
    root = lint_project({"pkg/mod.py": src})
    findings = lint()
    assert reported(findings) == {
        ("pkg.mod.make.<locals>.Out", "PPA001"),
        ("pkg.mod.Outer.Inner", "PPA001"),
        ("pkg.mod.Outer.Sub", "PPA001"),
        ("pkg.mod.Outer.Deeper.Leaf", "PPA001"),
        ("pkg.mod.Later", "PPA001"),
    }
    assert ("pkg/mod.py", *locate(src, "Out(DeviceAuxiliaryOutput)"), "PPA001") in positions(findings, root)
    assert ("pkg/mod.py", *locate(src, "Leaf:"), "PPA001") in positions(findings, root)


def test_nested_class_json_symbol_is_dotted_qualified_name(lint_project):
    from click.testing import CliRunner

    from ppaux_lint.cli.main import cli

    lint_project({"pkg/mod.py": """
        def make():
            class Out:
                def copy_to_host(self, copy_tensor):
                    return self

            return Out
        """})
    result = CliRunner().invoke(cli, ["check", "--output-format", "json"])
    assert result.exit_code == 1
    records = __import__("json").loads(result.stdout)
    assert [r["symbol"] for r in records] == ["pkg.mod.make.<locals>.Out"]


# -- structural recognition ----------------------------------------------------------------------


STRUCTURAL = """
class CopyOnly:
    def copy_to_host(self, copy_tensor):
        return self


class ActiveObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids):
        return token_ids


class GrammarObserver:
    def before_grammar(self, logits, sampling_info):
        return logits

    def after_sample(self, state, token_ids):
        return token_ids


class AfterSampleOnly:
    def after_sample(self, state, token_ids):
        return token_ids


class IsActiveOnly:
    def is_active(self, sampling_info):
        return True
"""


def test_structural_outputs_and_observers(lint_project):
    lint_project({"pkg/plain.py": STRUCTURAL})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.plain.CopyOnly", "PPA001"), ("pkg.plain.ActiveObserver", "PPA002"),
                                           ("pkg.plain.GrammarObserver", "PPA002")}
    for finding in analysis.findings:
        assert "structural" in finding.message
    assert not roles_of(analysis, "pkg.plain.AfterSampleOnly")
    assert not roles_of(analysis, "pkg.plain.IsActiveOnly")


def test_structural_hooks_inherited_from_a_project_base(lint_project):
    lint_project({"pkg/plain.py": STRUCTURAL + """

class Child(AfterSampleOnly):
    def is_active(self, sampling_info):
        return False
"""})
    assert ("pkg.plain.Child", "PPA002") in reported(lint())


def test_structural_false_turns_structural_recognition_off(lint_project):
    lint_project({
        "pkg/plain.py": STRUCTURAL,
        "pkg/inherits.py": IMPORT_AUX + IMPORT_OBS + """

class Real(DeviceAuxiliaryOutput):
    pass


class RealObserver(SamplingObserver):
    def after_sample(self, state, token_ids):
        return token_ids
""",
    }, config="[tool.ppaux-lint]\nstructural = false\n")
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.inherits.Real", "PPA001"), ("pkg.inherits.RealObserver", "PPA002")}
    assert not roles_of(analysis, "pkg.plain.CopyOnly")


# -- roots ------------------------------------------------------------------------------------------


def test_old_import_path_roots(lint_project):
    lint_project({"pkg/legacy.py": """
        from sglang.srt.sampling.sampling_observer import DeviceAuxiliaryOutput, SamplingObserver


        class Old(DeviceAuxiliaryOutput):
            pass


        class OldObserver(SamplingObserver):
            def after_sample(self, state, token_ids):
                return token_ids
        """})
    findings = lint()
    assert reported(findings) == {("pkg.legacy.Old", "PPA001"), ("pkg.legacy.OldObserver", "PPA002")}
    assert OLD_OUTPUT_ROOT in only(findings, "PPA001").message
    assert OBSERVER_ROOT in only(findings, "PPA002").message


def test_custom_protocol_roots_from_config(tmp_path, monkeypatch):
    files = {"pkg/impl.py": """
        from myfork.aux import Out as ForkOutput
        import myfork.obs


        class X(ForkOutput):
            pass


        class Y(myfork.obs.Observer):
            def after_sample(self, state, token_ids):
                return token_ids
        """}
    plain = make_project(tmp_path / "plain", files)
    monkeypatch.chdir(plain)
    assert lint() == []  # unknown third-party bases: silence

    configured = make_project(tmp_path / "fork", files, config="""
        [tool.ppaux-lint.protocols]
        output = ["myfork.aux.Out"]
        observer = ["myfork.obs.Observer"]
        """)
    monkeypatch.chdir(configured)
    findings = lint()
    assert reported(findings) == {("pkg.impl.X", "PPA001"), ("pkg.impl.Y", "PPA002")}
    assert "myfork.aux.Out" in only(findings, "PPA001").message


def test_custom_roots_extend_the_defaults(lint_project):
    lint_project({"pkg/impl.py": IMPORT_AUX + "\n\nclass X(DeviceAuxiliaryOutput):\n    pass\n"},
                 config='[tool.ppaux-lint.protocols]\noutput = ["myfork.aux.Out"]\n')
    assert reported(lint()) == {("pkg.impl.X", "PPA001")}


# -- layouts and partial runs -----------------------------------------------------------------------


SRC_LAYOUT = {
    "src/acme/__init__.py": "",
    "src/acme/base.py": IMPORT_AUX + """

class AcmeOutput(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self


def make_default():
    return AcmeOutput()  # constructed: judged itself, not only through its subclasses
""",
    "src/acme/child.py": """
        from acme.base import AcmeOutput


        class Child(AcmeOutput):
            pass
        """,
    "src/acme/fine.py": """
        from acme.base import AcmeOutput


        class Fine(AcmeOutput):
            def to_pp_tensors(self):
                return {"a": self.a}
        """,
}


def test_src_layout(lint_project):
    lint_project(SRC_LAYOUT)
    analysis = run_analysis()
    assert reported(analysis.findings) == {("acme.base.AcmeOutput", "PPA001"), ("acme.child.Child", "PPA001")}


def test_single_file_resolves_against_the_whole_project(lint_project):
    root = lint_project(SRC_LAYOUT)
    findings = lint(["src/acme/child.py"])
    # the base lives in an unchanged file that was not passed, and has its own finding, which is not reported
    assert reported(findings) == {("acme.child.Child", "PPA001")}
    assert {relpath(f, root) for f in findings} == {"src/acme/child.py"}
    assert OUTPUT_ROOT in only(findings).message


def test_single_clean_file_reports_nothing_from_other_files(lint_project):
    lint_project(SRC_LAYOUT)
    assert lint(["src/acme/fine.py"]) == []


def test_several_files_report_only_those(lint_project):
    root = lint_project(SRC_LAYOUT)
    findings = lint(["src/acme/fine.py", "src/acme/base.py"])
    assert reported(findings) == {("acme.base.AcmeOutput", "PPA001")}
    assert {relpath(f, root) for f in findings} == {"src/acme/base.py"}


def test_single_file_from_outside_the_project(tmp_path, monkeypatch):
    root = make_project(tmp_path / "proj", SRC_LAYOUT)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    findings = lint([str(root / "src" / "acme" / "child.py")])
    assert reported(findings) == {("acme.child.Child", "PPA001")}


def test_single_file_in_flat_layout_subpackage(lint_project):
    root = lint_project({
        "pkg/base.py": BASE_WITH_METHOD,
        "pkg/sub/child.py": "from ..base import Base\n\n\nclass Child(Base):\n    to_pp_tensors = None\n",
        "pkg/sub/other.py": IMPORT_AUX + "\n\nclass Other(DeviceAuxiliaryOutput):\n    pass\n",
    })
    findings = lint(["pkg/sub/child.py"])
    assert reported(findings) == {("pkg.sub.child.Child", "PPA001")}
    assert {relpath(f, root) for f in findings} == {"pkg/sub/child.py"}
    assert reported(lint(["pkg/sub"])) == {("pkg.sub.child.Child", "PPA001"), ("pkg.sub.other.Other", "PPA001")}


def test_plain_project_bases_without_any_sglang_name_are_followed(lint_project):
    """A base class in a file that mentions nothing SGLang-related must still be read: it decides
    whether the output's method could come from somewhere unseen."""
    lint_project({
        "pkg/plain.py": "class Plain:\n    def helper(self):\n        return 1\n",
        "pkg/reexport/__init__.py": "from pkg.plain import Plain as Renamed\n",
        "pkg/unknown.py": "from thirdparty import Thing\n\n\nclass Opaque(Thing):\n    pass\n",
        "pkg/impl.py": IMPORT_AUX + """
from pkg.plain import Plain
from pkg.reexport import Renamed
from pkg.unknown import Opaque


class A(Plain, DeviceAuxiliaryOutput):
    pass


class B(Renamed, DeviceAuxiliaryOutput):
    pass


class C(Opaque, DeviceAuxiliaryOutput):
    pass
""",
    })
    # A and B: every base is known and none provides to_pp_tensors; C: Opaque's base is unknown
    assert reported(lint()) == {("pkg.impl.A", "PPA001"), ("pkg.impl.B", "PPA001")}


def test_edits_between_runs_are_seen(lint_project):
    root = lint_project({
        "pkg/base.py": BASE_WITH_METHOD,
        "pkg/child.py": "from pkg.base import Base\n\n\nclass Child(Base):\n    pass\n",
    })
    assert lint(["pkg/child.py"]) == []
    base = root / "pkg" / "base.py"
    base.write_text(base.read_text(encoding="utf-8").replace("def to_pp_tensors", "def _unused"), encoding="utf-8")
    assert reported(lint(["pkg/child.py"])) == {("pkg.child.Child", "PPA001")}
    base.write_text(BASE_WITH_METHOD, encoding="utf-8")
    assert lint(["pkg/child.py"]) == []


@pytest.mark.parametrize("shape", ["alias", "re-export", "star"])
def test_a_chain_of_names_too_long_to_follow_ends_nothing_but_itself(lint_project, shape):
    """Each step of a resolution (an alias of an alias, a module re-exporting what it imported, a star import of a
    star import) was a few recursive calls: a chain of a thousand steps in a repository ended the run with an
    internal error (RecursionError) that hid every other finding. A chain past MAX_RESOLUTION_DEPTH resolves to
    nothing, as a name the analysis cannot follow; a chain within it resolves as before, and the other files'
    findings are reported."""
    from ppaux_lint.index.graph import MAX_RESOLUTION_DEPTH

    files = {"pkg/__init__.py": "", "pkg/base.py": BASE_WITH_METHOD,
             "pkg/other.py": IMPORT_AUX + "\n\nclass Other(DeviceAuxiliaryOutput):\n    pass\n"}
    long, short = 1500, MAX_RESOLUTION_DEPTH // 4
    if shape == "alias":
        files["pkg/chain.py"] = ("from pkg.base import Base as A0\n" + "".join(f"A{i} = A{i - 1}\n" for i in range(1, long))
                                 + f"\n\nclass Far(A{long - 1}):\n    to_pp_tensors = None\n"
                                 + f"\n\nclass Near(A{short}):\n    to_pp_tensors = None\n")
    else:
        form = "from pkg.m{} import *\n" if shape == "star" else "from pkg.m{} import Base\n"
        files["pkg/m0.py"] = "from pkg.base import Base\n"
        files.update({f"pkg/m{i}.py": form.format(i - 1) for i in range(1, long)})
        files["pkg/far.py"] = f"from pkg.m{long - 1} import Base\n\n\nclass Far(Base):\n    to_pp_tensors = None\n"
        files["pkg/near.py"] = f"from pkg.m{short} import Base\n\n\nclass Near(Base):\n    to_pp_tensors = None\n"
    lint_project(files)
    found = reported(lint())
    assert ("pkg.other.Other", "PPA001") in found
    assert any(symbol.endswith(".Near") and code == "PPA001" for symbol, code in found), found
