"""From the user's flags and config to a verify run that is ready to start: the part every front end shares.

``ppaux-lint verify`` and the pytest plugin (``pytest --ppaux-verify``) take the same settings under
different flag names, and must refuse the same mistakes the same way: a device that does not exist, an
example factory that is not ``pkg.module:function``, ``helpers = "sglang"`` where SGLang's helpers do not
import. Every such mistake is found here, before any worker starts, and named after the flag
(``option_prefix`` + ``device``) or the config key that made it. Torch is imported only once a plan is
made, so a front end can import this module to describe its options.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ppaux_lint.runtime.terms.helpers import Helpers
from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.install import pip_install
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.runtime.run.verify import Exploration, Session
    from ppaux_lint.runtime.terms.results import VerifyResult
    from ppaux_lint.runtime.terms.targets import VerifyTarget

DEFAULT_TIMEOUT = 60.0


class VerifyUsageError(UsageError):
    """Something the user must fix before verify can run; exit code 2."""


@dataclass(frozen=True)
class Plan:
    """What to verify and how, checked: resolved devices, loaded helpers, the worker's import paths."""

    targets: list[VerifyTarget]
    device: str
    transport: str
    timeout: float
    paths: list[str]
    helpers: Helpers
    warnings: list[str]
    explore: Exploration | None = None
    attn_tp_size: int = 1

    def run(self, on_start: Callable[[VerifyTarget], None] | None = None,
            on_result: Callable[[VerifyResult], None] | None = None) -> list[VerifyResult]:
        """Every target, in order."""
        from ppaux_lint.runtime.run.verify import verify

        return verify(self.targets, device=self.device, transport=self.transport, timeout=self.timeout,
                      paths=self.paths, helpers=self.helpers, on_start=on_start, on_result=on_result,
                      explore=self.explore, attn_tp_size=self.attn_tp_size)

    def session(self) -> Session:
        """A session to run the targets one by one, as their caller chooses."""
        from ppaux_lint.runtime.run.verify import Session

        return Session(device=self.device, transport=self.transport, timeout=self.timeout, paths=self.paths,
                       helpers=self.helpers, explore=self.explore, attn_tp_size=self.attn_tp_size)


def plan_verify(
    paths: Sequence[Path],
    *,
    device: str = "auto",
    transport: str = "local",
    timeout: float | None = None,
    config_path: Path | None = None,
    helpers: str | None = None,
    explore: int | None = None,
    seed: int | None = None,
    attn_tp_size: int | None = None,
    option_prefix: str = "--",
) -> Plan:
    """Run the static pass over ``paths`` and plan a round trip for every class found in them.

    ``timeout`` and ``helpers`` default to ``[tool.ppaux-lint.verify]``'s, then to ``DEFAULT_TIMEOUT`` and
    ``auto``; ``explore`` and ``seed`` to its ``explore`` (else 0: no exploring) and ``seed`` (else one drawn
    at random, which the front end prints so that the run can be repeated); ``attn_tp_size`` to its
    ``attn-tp-size``, else 1. Raises ``VerifyUsageError`` for anything the user must fix.
    """
    from ppaux_lint.runtime import require_torch

    try:
        require_torch()
    except ImportError as exc:
        raise VerifyUsageError(str(exc)) from None
    from ppaux_lint.check.engine import Options, analyze
    from ppaux_lint.runtime.terms.devices import DeviceError, resolve_device
    from ppaux_lint.runtime.terms.helpers import AUTO, HelpersUnavailable, load_helpers
    from ppaux_lint.runtime.terms.targets import targets_from_analysis

    try:
        run_device = resolve_device(device)
    except DeviceError as exc:
        raise VerifyUsageError(f"{option_prefix}device: {exc}") from None
    analysis = analyze(list(paths), Options(config_path=config_path))
    settings = analysis.project.config.verify
    for key, spec in settings.examples.items():
        module, sep, attr = spec.partition(":")
        if not (module and sep and attr):
            raise VerifyUsageError(
                f"'tool.ppaux-lint.verify.examples.{key}' = {spec!r} must look like 'pkg.module:function'"
            )
    devices: dict[str, str] = {}
    for key, spec in settings.devices.items():
        try:
            devices[spec] = resolve_device(spec)
        except DeviceError as exc:
            raise VerifyUsageError(f"'tool.ppaux-lint.verify.devices.{key}': {exc}") from None
    roots = import_roots(analysis.project.root, analysis.discovery.files)
    try:
        judges = load_helpers(helpers or settings.helpers or AUTO, roots)
    except HelpersUnavailable as exc:
        chosen_by = f"{option_prefix}helpers sglang" if helpers else (
            f"'tool.ppaux-lint.verify.helpers' = \"sglang\" in {analysis.project.config.path}")
        raise VerifyUsageError(f"{chosen_by}: {exc}") from None
    targets = [replace(t, device=devices[t.device]) if t.device else t for t in targets_from_analysis(analysis)]
    if attn_tp_size is not None and attn_tp_size < 1:
        raise VerifyUsageError(f"{option_prefix}attn-tp-size must be at least 1, not {attn_tp_size}")
    count = settings.explore if explore is None else explore
    if count and importlib.util.find_spec("hypothesis") is None:
        raise VerifyUsageError(f"{option_prefix}explore needs hypothesis: {pip_install('runtime')}")
    return Plan(
        targets=targets,
        device=run_device,
        transport=transport,
        timeout=timeout or settings.timeout or DEFAULT_TIMEOUT,
        paths=roots,
        helpers=judges,
        warnings=[*analysis.discovery.warnings, *([judges.warning] if judges.warning else [])],
        explore=_exploration(count, settings.seed if seed is None else seed),
        attn_tp_size=attn_tp_size or settings.attn_tp_size or 1,
    )


def _exploration(count: int | None, seed: int | None) -> Exploration | None:
    """What ``--explore`` asks for, with a seed drawn here when none was given."""
    if not count:
        return None
    import random

    from ppaux_lint.runtime.run.verify import Exploration

    return Exploration(count, random.randrange(2**32) if seed is None else seed)


def import_roots(root: Path, files: Iterable[Any]) -> list[str]:
    """Where the worker imports the project from: the directory each discovered module's name starts in
    (a ``src/`` layout, a packaging config's directory, a namespace portion's root, a monorepo's sub-project),
    so that ``import`` finds every class under the very name ``check`` gave it; the project root first."""
    roots = [str(root)]
    for source in files:
        if not source.module:
            continue
        depth = source.module.count(".") + (1 if source.is_package else 0)
        directory = str(Path(source.path).parents[depth])
        if directory not in roots:
            roots.append(directory)
    return roots
