"""The pytest plugin: ``pytest --ppaux-verify [paths]`` and the ``pp_round_trip`` fixture.

pytest loads this module (the ``pytest11`` entry point) in every run of every project that has ppaux-lint
installed, torch or no torch, so it imports nothing heavy: the static pass, the runtime and torch load only
once ``--ppaux-verify`` is given or a test asks for ``pp_round_trip``. A plain ``pytest`` gets the options
and a marker, nothing else.

``--ppaux-verify`` adds to pytest's own collection, it does not replace it: for each file pytest walks that
holds output or observer classes, a collector whose items are verify's rows, one per class
(``src/acme/outputs.py::ppaux-verify::acme.outputs.TopKOutput``). The rows are planned once, by the same
``plan_verify`` as ``ppaux-lint verify PATHS``, over the paths pytest was given (given none, over the whole
project too, whose sources ``testpaths`` often leave out: those rows are collected at the session), and each
item runs its round trip only when pytest runs it, in one shared worker: a class that ``-k`` deselects or
``-x`` never reaches never runs.

Where SGLang is not installed, a plugin's ``import sglang...`` fails in the test process as in verify's
workers. The workers always get ppaux-lint's stand-ins for SGLang's protocol modules (``runtime/stand_ins``);
the test process gets them too under ``--ppaux-verify`` (its tests would otherwise stop the run at
collection) or when the project sets ``ppaux_stand_ins`` (for ``pp_round_trip``), and never otherwise.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ppaux_lint.project.config import MAX_TIMEOUT, valid_timeout
from ppaux_lint.runtime.run.plan import DEFAULT_TIMEOUT
from ppaux_lint.runtime.terms.helpers import CHOICES as HELPERS_CHOICES

if TYPE_CHECKING:
    from ppaux_lint.runtime.run.plan import Plan
    from ppaux_lint.runtime.run.verify import Session
    from ppaux_lint.runtime.terms.results import VerifyResult
    from ppaux_lint.runtime.terms.targets import ClassRef, VerifyTarget

MARKER = "ppaux_verify"
GROUP = "ppaux-verify"  # the collector between a file and its rows, and the middle of every row's node id
_PLUGIN = "ppaux-lint-verify"
DETAIL_SECTION = "ppaux-lint verify: detail"
REPRODUCER_SECTION = "ppaux-lint verify: reproducer"
STAND_INS_INI = "ppaux_stand_ins"
_STAND_INS = pytest.StashKey[bool]()  # the stand-ins serve this run


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not valid_timeout(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds (at most {MAX_TIMEOUT:g})")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ppaux-lint", "ppaux-lint: SGLang pipeline-parallel round trips")
    group.addoption("--ppaux-verify", action="store_true",
                    help="also collect one test per auxiliary output and observer class in the given paths, "
                         "judged as `ppaux-lint verify` judges it")
    group.addoption("--ppaux-device", metavar="auto|cpu|cuda|cuda:N",
                    help="where the round trips run (default: auto for --ppaux-verify, cpu for pp_round_trip)")
    group.addoption("--ppaux-transport", choices=("local", "dist"), default="local",
                    help="local: verify's rows rebuild in a second process over gloo on the device, pp_round_trip "
                         "in-process; dist: NCCL across two GPUs where there are, pp_round_trip over gloo and back "
                         "(default: local)")
    group.addoption("--ppaux-helpers", choices=HELPERS_CHOICES,
                    help="whose PP helpers judge (default: [tool.ppaux-lint.verify] helpers, else auto)")
    group.addoption("--ppaux-timeout", type=_seconds, metavar="SECONDS",
                    help=f"per-class time limit (default: [tool.ppaux-lint.verify] timeout, else "
                         f"{DEFAULT_TIMEOUT:g})")
    group.addoption("--ppaux-explore", type=_count, metavar="N",
                    help="after a class passes, round-trip N variants of its example and shrink any failure "
                         "(default: [tool.ppaux-lint.verify] explore, else 0)")
    group.addoption("--ppaux-seed", type=_count, metavar="S",
                    help="draw the explored variants from this seed (default: [tool.ppaux-lint.verify] seed, "
                         "else a random one, shown in the header)")
    group.addoption("--ppaux-attn-tp-size", type=_count, metavar="N",
                    help="send as SGLang does between stages of N attention-TP ranks, as verify's --attn-tp-size "
                         "(default: [tool.ppaux-lint.verify] attn-tp-size, else 1)")
    parser.addini(STAND_INS_INI, type="bool", default=False,
                  help="where sglang is not installed, serve ppaux-lint's stand-ins for its protocol modules to "
                       "this test process too (--ppaux-verify does), so that tests importing a plugin can run")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a class's pipeline-parallel round trip (--ppaux-verify)")
    if config.getoption("ppaux_verify") or config.getini(STAND_INS_INI):
        _serve_stand_ins(config)
    if config.getoption("ppaux_verify"):
        config.pluginmanager.register(_Verify(config), _PLUGIN)


def _serve_stand_ins(config: pytest.Config) -> None:
    """Where SGLang is not installed, let this process import ppaux-lint's stand-ins for its protocol modules
    (``runtime/stand_ins``) until pytest is done, so that test modules importing a plugin collect.

    Only for a run that uses ppaux-lint (``--ppaux-verify``) or a project that asks (``ppaux_stand_ins``): in
    any other run a ``pytest.importorskip("sglang")`` must go on skipping. The header says when they serve.
    """
    from ppaux_lint.runtime import stand_ins

    if stand_ins.sglang_installed():
        return
    stand_ins.install()
    config.add_cleanup(stand_ins.uninstall)
    config.stash[_STAND_INS] = True


def pytest_report_header(config: pytest.Config) -> list[str]:
    if not config.stash.get(_STAND_INS, False):
        return []
    return ["ppaux-lint: sglang is not installed: this run imports ppaux-lint's stand-ins for its protocol modules"]


@pytest.fixture(scope="session")
def pp_round_trip(pytestconfig: pytest.Config) -> Any:
    """``pp_round_trip(output, observer, *, device=..., transport=..., helpers=..., timeout=..., explore=0)``:
    send your output through add → transport → pop as verify does, and get the rebuilt output back.

    It is ``ppaux_lint.runtime.round_trip`` with its defaults taken from ``--ppaux-device`` (else ``cpu``, so
    that a test behaves alike on every machine), ``--ppaux-transport``, and ``--ppaux-helpers`` and
    ``--ppaux-timeout`` (else ``[tool.ppaux-lint.verify]``'s). It raises what SGLang's helpers raise.
    ``explore=N`` (a property test of your own instance) also round-trips N variants of it, drawn from
    ``--ppaux-seed`` (else the config's ``seed``, else a random one), and raises the shrunk failure. Where
    SGLang is not installed, a test module that imports a plugin needs ``ppaux_stand_ins = true``.
    """
    from ppaux_lint.project.loading import Options, load_project
    from ppaux_lint.runtime import round_trip

    settings = load_project([pytestconfig.rootpath], Options()).config.verify
    option = pytestconfig.getoption
    seed = settings.seed if option("ppaux_seed") is None else option("ppaux_seed")
    return partial(round_trip, device=option("ppaux_device") or "cpu", transport=option("ppaux_transport"),
                   helpers=option("ppaux_helpers") or settings.helpers or "auto",
                   timeout=option("ppaux_timeout") or settings.timeout or DEFAULT_TIMEOUT,
                   **({} if seed is None else {"seed": seed}))


class _Verify:
    """``--ppaux-verify``'s half of the plugin, registered only when it is given."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.plan: Plan  # by pytest_sessionstart, before anything else asks
        self.rows: dict[Path, list[VerifyTarget]] = {}
        self.paths: list[Path] = []
        self._walked: set[Path] = set()  # the files with rows that pytest's own collection reached
        self._session: Session | None = None

    def pytest_sessionstart(self) -> None:
        """Plan the rows before collection, so that a usage error stops the run as pytest's own would.

        Given no paths, pytest collects its ``testpaths``, which often leave out the sources (``tests`` only);
        the classes are then looked for in the whole project, as ``ppaux-lint verify`` at its root would.
        """
        from ppaux_lint.runtime.run.plan import plan_verify
        from ppaux_lint.support.errors import UsageError

        option = self.config.getoption
        here = self.config.invocation_params.dir
        self.paths = [here / arg.partition("::")[0] for arg in self.config.args]
        if self.config.args_source == pytest.Config.ArgsSource.TESTPATHS:
            self.paths.append(self.config.rootpath)
        try:
            self.plan = plan_verify(self.paths,
                                    device=option("ppaux_device") or "auto", transport=option("ppaux_transport"),
                                    timeout=option("ppaux_timeout"), helpers=option("ppaux_helpers"),
                                    explore=option("ppaux_explore"), seed=option("ppaux_seed"),
                                    attn_tp_size=option("ppaux_attn_tp_size"),
                                    option_prefix="--ppaux-")
        except UsageError as exc:
            raise pytest.UsageError(str(exc)) from None
        for target in self.plan.targets:
            self.rows.setdefault(Path(_own_class(target).path).resolve(), []).append(target)

    def pytest_report_header(self) -> list[str]:
        plan, count = self.plan, len(self.plan.targets)
        explore = (f", exploring {plan.explore.count} examples per class with --ppaux-seed {plan.explore.seed}"
                   if plan.explore else "")
        return [f"ppaux-lint verify: {count} class{'es' if count != 1 else ''}, device {plan.device}, transport "
                f"{plan.transport}, helpers {plan.helpers.label}, timeout {plan.timeout:g} s{explore}",
                *(f"ppaux-lint: warning: {warning}" for warning in plan.warnings)]

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        targets = self.rows.get(file_path.resolve())
        if not targets:
            return None
        self._walked.add(file_path.resolve())
        return VerifyFile.from_parent(parent, path=file_path, targets=targets)

    @pytest.hookimpl(tryfirst=True)  # before -k, -m and --deselect choose among the items
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        """Collect the rows of files that pytest's own walk did not reach.

        Only a run given no paths has such rows (its classes are looked for beyond ``testpaths``); each file
        still answers to ``--ignore`` and ``norecursedirs`` as if pytest had walked to it.
        """
        if self.config.args_source == pytest.Config.ArgsSource.ARGS:
            return
        for path, targets in sorted(self.rows.items()):
            if path not in self._walked and not self._ignored(path):
                items.extend(session.genitems(VerifyFile.from_parent(session, path=path, targets=targets)))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Warn, last before the counts, when no class was found: an option that quietly adds nothing looks
        like a pass."""
        if not self.plan.targets:
            outermost = [p for p in self.paths if not any(p != q and p.is_relative_to(q) for q in self.paths)]
            shown = ", ".join(_shown(p, self.config.rootpath) for p in outermost)
            terminalreporter.write_line(f"ppaux-lint: warning: --ppaux-verify found no output or observer class "
                                        f"in {shown}: nothing was verified", yellow=True, bold=True)

    def _ignored(self, path: Path) -> bool:
        """Whether pytest would leave ``path`` out had its walk come there: the file, or a directory on the
        way down from the root."""
        root = self.config.rootpath
        ancestors = [p for p in reversed(path.parents) if p.is_relative_to(root) and p != root]
        ignore = self.config.hook.pytest_ignore_collect
        return any(ignore(collection_path=p, config=self.config) for p in (*ancestors, path))

    def run(self, target: VerifyTarget) -> VerifyResult:
        """The row of ``target``, in the worker the first row started."""
        if self._session is None:
            self._session = self.plan.session()
        return self._session.run(target)

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        if self._session is None:
            return
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            self._session.discard()  # the worker may be stuck in the project's code: no waiting for it
        else:
            self._session.close()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        """Word a row's verdict as verify does: its message, at the class, not a traceback into this plugin.

        The message names the step, SGLang's error and, when the project's code raised, where; with ``-v``
        the worker's traceback follows, in a section of its own, so that the short summary and JUnit's
        ``message`` attribute still show the message alone. A counterexample that ``--ppaux-explore`` found
        always comes with its reproducer, in a section of its own too.
        """
        report = yield
        if isinstance(item, VerifyItem) and call.excinfo is not None:
            if call.excinfo.errisinstance(RowVerdict):
                report.longrepr = item.verdict.message
                detail = item.verdict.detail
                if detail and detail != item.verdict.message and self.config.get_verbosity() > 0:
                    report.sections.append((DETAIL_SECTION, detail))
                if item.verdict.reproducer:
                    report.sections.append((REPRODUCER_SECTION, item.verdict.reproducer))
            elif report.skipped and item.verdict is not None:
                report.longrepr = (str(item.path), _own_class(item.target).line, item.verdict.message)
        return report


class VerifyFile(pytest.File):
    """The rows of one source file, under a ``ppaux-verify`` collector: a test module in the same file keeps
    its own node ids, and ``-k ppaux-verify`` selects every row."""

    def __init__(self, *, targets: list[VerifyTarget], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.targets = targets

    def collect(self) -> Iterator[pytest.Collector]:
        yield VerifyGroup.from_parent(self, name=GROUP, targets=self.targets)


class VerifyGroup(pytest.Collector):
    """The ``ppaux-verify`` node of a file: one item per class."""

    def __init__(self, *, targets: list[VerifyTarget], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.targets = targets

    def collect(self) -> Iterator[pytest.Item]:
        for target in self.targets:
            yield VerifyItem.from_parent(self, name=target.symbol, target=target)


class VerifyItem(pytest.Item):
    """One class, judged as verify judges it: pass, fail with verify's message, skip with its reason.

    The round trip runs in ``setup``, because its verdict decides the phase pytest reports: verify's
    ``error`` (the project would not import, the user's own example raised) means the test could not be set
    up, which pytest calls an error, not a failure.
    """

    def __init__(self, *, target: VerifyTarget, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target
        self.verdict: VerifyResult | None = None
        self.add_marker(MARKER)

    def setup(self) -> None:
        from ppaux_lint.runtime.terms.results import ERROR, SKIP

        self.verdict = self.config.pluginmanager.get_plugin(_PLUGIN).run(self.target)
        self.user_properties += [("device", self.verdict.device), ("transport", self.verdict.transport),
                                 ("helpers", self.verdict.helpers)]
        if self.verdict.status == ERROR:
            raise RowVerdict(self.verdict.message)
        if self.verdict.status == SKIP:
            pytest.skip(self.verdict.message)

    def runtest(self) -> None:
        from ppaux_lint.runtime.terms.results import FAIL

        if self.verdict.status == FAIL:
            raise RowVerdict(self.verdict.message)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, max(_own_class(self.target).line - 1, 0), f"{GROUP} {self.target.symbol}"


def _shown(path: Path, root: Path) -> str:
    """``path`` as the user would name it: relative to pytest's root, which itself is the project."""
    if path == root:
        return "the project"
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _own_class(target: VerifyTarget) -> ClassRef:
    """The ``ClassRef`` of the row's own class (``VerifyTarget.own``), which every row has."""
    own = target.own
    assert own is not None
    return own


class RowVerdict(Exception):
    """A row that failed (raised in the call phase) or errored (in setup, so pytest reports an error)."""
