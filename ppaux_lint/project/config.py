"""``[tool.ppaux-lint]`` in pyproject.toml: read, validated strictly, frozen.

A typo in a linter's config silently turns a check off, so every unknown key
and every wrong type is an error that names the key and the file.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.fileio import read_regular_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

DEFAULT_OUTPUT_ROOTS = (
    "sglang.srt.managers.auxiliary_output.DeviceAuxiliaryOutput",
    "sglang.srt.sampling.sampling_observer.DeviceAuxiliaryOutput",
)
DEFAULT_OBSERVER_ROOTS = ("sglang.srt.sampling.sampling_observer.SamplingObserver",)
DEFAULT_PP_OUTPUT_ROOTS = ("sglang.srt.sampling.sampling_observer_pp.PipelineParallelAuxiliaryOutput",)
DEFAULT_PP_OBSERVER_ROOTS = ("sglang.srt.sampling.sampling_observer_pp.PipelineParallelSamplingObserver",)
# SGLang refuses to install a forward observer when pp_size > 1, so what only these return never crosses a stage.
DEFAULT_FORWARD_OBSERVER_ROOTS = ("sglang.srt.model_executor.forward_observer.ForwardObserver",)
DEFAULT_HELPER_MODULES = (
    "sglang.srt.sampling.sampling_observer_pp",
    "ppaux_lint.runtime",
    "ppaux_lint.runtime.core",
)
# Whose PP helpers judge a verify run (``--helpers``, ``[tool.ppaux-lint.verify] helpers``; runtime/terms/helpers.py
# says what each means). Here, not in the runtime, so that reading a config imports nothing of the runtime.
HELPERS_CHOICES = ("auto", "bundled", "sglang")


class ConfigError(UsageError):
    """A configuration problem the user must fix; the CLI turns it into exit code 2."""


@dataclass(frozen=True)
class Protocols:
    """Fully qualified names of the classes whose subclasses are outputs, observers, PP implementers, or forward
    observers."""

    output: tuple[str, ...] = DEFAULT_OUTPUT_ROOTS
    observer: tuple[str, ...] = DEFAULT_OBSERVER_ROOTS
    pp_output: tuple[str, ...] = DEFAULT_PP_OUTPUT_ROOTS
    pp_observer: tuple[str, ...] = DEFAULT_PP_OBSERVER_ROOTS
    helper_modules: tuple[str, ...] = DEFAULT_HELPER_MODULES
    forward_observer: tuple[str, ...] = DEFAULT_FORWARD_OBSERVER_ROOTS


@dataclass(frozen=True)
class VerifySettings:
    examples: dict[str, str] = field(default_factory=dict)  # "pkg.mod.Class" -> "pkg.factories:make"
    devices: dict[str, str] = field(default_factory=dict)  # "pkg.mod.Class" -> "cuda:1"
    pairs: dict[str, str] = field(default_factory=dict)  # output fqn -> observer fqn
    timeout: float | None = None
    helpers: str | None = None  # "auto", "bundled" or "sglang"; None: not set, so --helpers' default
    explore: int | None = None  # variants per class (--explore); None: not set
    seed: int | None = None  # the exploring seed (--seed); None: not set, so one at random
    attn_tp_size: int | None = None  # the attention-TP size verify sends for (--attn-tp-size); None: not set, so 1


@dataclass(frozen=True)
class Config:
    path: Path | None = None  # the pyproject.toml it came from
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    protocols: Protocols = Protocols()
    structural: bool = True
    cache_dir: str | None = None
    src: tuple[str, ...] = ()  # source roots, relative to the config's directory (as ruff's ``src``)
    target_version: int | None = None  # the Python 3 minor version to parse for ("py311": 11); None: requires-python
    verify: VerifySettings = VerifySettings()

    @property
    def where(self) -> str:
        """How messages name this config: its file, or the defaults."""
        return str(self.path) if self.path is not None else "defaults"

    def summary_key(self) -> str:
        """The part of the config that changes what a summary holds (none today), for the cache key."""
        return ""


_STRING_LIST = "a list of strings"
_KEYS: dict[str, str] = {
    "select": _STRING_LIST,
    "ignore": _STRING_LIST,
    "exclude": _STRING_LIST,
    "extend-exclude": _STRING_LIST,
    "per-file-ignores": "a table of glob = list of codes",
    "protocols": "a table",
    "structural": "a boolean",
    "cache-dir": "a string",
    "src": _STRING_LIST,
    "target-version": 'a Python version as ruff spells it ("py310")',
    "verify": "a table",
}
_TARGET_VERSION = re.compile(r"py3(\d{1,2})")
_PROTOCOL_KEYS = {"output": "output", "observer": "observer", "pp-output": "pp_output",
                  "pp-observer": "pp_observer", "helper-modules": "helper_modules",
                  "forward-observer": "forward_observer"}
_VERIFY_KEYS = {"examples": "a table of strings", "devices": "a table of strings",
                "pairs": "a table of strings", "timeout": "a number", "helpers": "auto, bundled or sglang",
                "explore": "a non-negative integer", "seed": "a non-negative integer",
                "attn-tp-size": "a positive integer"}


def load_config(root: Path, explicit: Path | None = None) -> Config:
    """The config at ``explicit``, else ``root/pyproject.toml``, else defaults."""
    if explicit is None and not (root / "pyproject.toml").is_file():
        return Config()
    path = explicit if explicit is not None else root / "pyproject.toml"
    data = read_toml(path)
    table = tool_table(data, path)
    if path.name != "pyproject.toml" and not table:
        table = data  # a dedicated ppaux-lint.toml holds the settings at its top level
    return parse_config(table or {}, path)


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's data; a file that cannot be read or parsed is a ConfigError naming it."""
    return parse_toml(read_toml_bytes(path), path)


def read_toml_bytes(path: Path) -> bytes:
    """A TOML file's bytes (a FIFO is an error, not a read that never ends); a ConfigError naming it."""
    try:
        return read_regular_file(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


def parse_toml(raw: bytes, path: Path) -> dict[str, Any]:
    """``raw``'s data; what is not TOML (also nesting deeper than the parser's recursion) is a ConfigError."""
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply to read") from None


# A key of ppaux-lint's table, however TOML spells it: ``[tool.ppaux-lint]``, ``[tool."ppaux-lint".protocols]``,
# ``tool.ppaux-lint.select = ...``, ``ppaux-lint = {...}`` under ``[tool]``, ``tool = { ppaux-lint = ... }``, a
# header left unclosed; and not the package named among dependencies (``"ppaux-lint>=1"``, ``["ppaux-lint"]``).
_OWN_TABLE = re.compile(rb"""(?:\btool\s*\.\s*|^[ \t]*|[{,][ \t]*)["']?ppaux-lint["']?[ \t]*(?:[.=\]]|\r?$)""",
                        re.MULTILINE)


def configures_ppaux_lint(raw: bytes) -> bool:
    """Whether a TOML file that cannot be parsed meant to configure ppaux-lint: its mistakes are the user's to
    fix before any check, where another tool's broken file (a test fixture's) only stops being read."""
    return _OWN_TABLE.search(raw) is not None


def tool_table(data: dict[str, Any], path: Path) -> Any:
    """``[tool.ppaux-lint]``, or None when the file has none (a pyproject.toml without it configures
    nothing, so the nearest one that has it governs instead, as in ruff)."""
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: 'tool' must be a table, not {_kind(tool)}")
    return tool.get("ppaux-lint")


def parse_config(table: Any, path: Path | None) -> Config:
    where = f"{path}: " if path else ""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}[tool.ppaux-lint] must be a table")
    for key, value in table.items():
        expected = _KEYS.get(key)
        if expected is None:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{where}unknown key 'tool.ppaux-lint.{key}' (known keys: {known})")
        if expected == _STRING_LIST:
            _require_strings(value, f"tool.ppaux-lint.{key}", where)
    structural = table.get("structural", True)
    if not isinstance(structural, bool):
        raise ConfigError(f"{where}'tool.ppaux-lint.structural' must be a boolean, not {_kind(structural)}")
    cache_dir = table.get("cache-dir")
    if cache_dir is not None and not isinstance(cache_dir, str):
        raise ConfigError(f"{where}'tool.ppaux-lint.cache-dir' must be a string, not {_kind(cache_dir)}")
    return Config(
        path=path,
        target_version=_target_version(table.get("target-version"), where),
        select=tuple(table.get("select", ())),
        ignore=tuple(table.get("ignore", ())),
        exclude=tuple(table.get("exclude", ())),
        extend_exclude=tuple(table.get("extend-exclude", ())),
        per_file_ignores=_per_file_ignores(table.get("per-file-ignores", {}), where),
        protocols=_protocols(table.get("protocols", {}), where),
        structural=structural,
        cache_dir=cache_dir,
        src=tuple(table.get("src", ())),
        verify=_verify(table.get("verify", {}), where),
    )


def _target_version(value: Any, where: str) -> int | None:
    """``"py311"`` -> 11; the oldest accepted is the oldest grammar ``ast`` reads (``python_versions``)."""
    if value is None:
        return None
    from ppaux_lint.project.python_versions import OLDEST_GRAMMAR  # here: a replayed run reads configs

    match = _TARGET_VERSION.fullmatch(value) if isinstance(value, str) else None
    if match is None or int(match.group(1)) < OLDEST_GRAMMAR:
        shown = repr(value) if isinstance(value, str) else _kind(value)
        raise ConfigError(f"{where}'tool.ppaux-lint.target-version' must be {_KEYS['target-version']}, from"
                          f" py3{OLDEST_GRAMMAR} on, not {shown}")
    return int(match.group(1))


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def _require_strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}'{key}' must be a list of strings, not {_kind(value)}")
    return tuple(value)


def _require_table(value: Any, key: str, where: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}'{key}' must be a table, not {_kind(value)}")
    return value


def _per_file_ignores(value: Any, where: str) -> dict[str, tuple[str, ...]]:
    from ppaux_lint.project.globs import Globs  # here: a replayed run reads configs, and compiles no glob

    table = _require_table(value, "tool.ppaux-lint.per-file-ignores", where)
    for glob in table:
        try:
            Globs([glob])
        except ValueError as exc:
            raise ConfigError(f"{where}invalid glob {glob!r} in 'tool.ppaux-lint.per-file-ignores': {exc}") from None
    return {glob: _require_strings(codes, f"tool.ppaux-lint.per-file-ignores.{glob}", where)
            for glob, codes in table.items()}


def _protocols(value: Any, where: str) -> Protocols:
    table = _require_table(value, "tool.ppaux-lint.protocols", where)
    extra: dict[str, tuple[str, ...]] = {}
    for key, names in table.items():
        attr = _PROTOCOL_KEYS.get(key)
        if attr is None:
            known = ", ".join(sorted(_PROTOCOL_KEYS))
            raise ConfigError(f"{where}unknown key 'tool.ppaux-lint.protocols.{key}' (known keys: {known})")
        extra[attr] = _require_strings(names, f"tool.ppaux-lint.protocols.{key}", where)
    defaults = Protocols()
    return Protocols(**{attr: getattr(defaults, attr) + extra.get(attr, ()) for attr in _PROTOCOL_KEYS.values()})


def _verify(value: Any, where: str) -> VerifySettings:
    table = _require_table(value, "tool.ppaux-lint.verify", where)
    tables: dict[str, dict[str, str]] = {}
    for key, item in table.items():
        expected = _VERIFY_KEYS.get(key)
        name = f"tool.ppaux-lint.verify.{key}"
        if expected is None:
            known = ", ".join(sorted(_VERIFY_KEYS))
            raise ConfigError(f"{where}unknown key '{name}' (known keys: {known})")
        if key == "timeout":
            if isinstance(item, bool) or not isinstance(item, (int, float)) or item <= 0:
                raise ConfigError(f"{where}'{name}' must be a positive number, not {_kind(item)}")
            continue
        if key in ("explore", "seed", "attn-tp-size"):
            least = 1 if key == "attn-tp-size" else 0
            if isinstance(item, bool) or not isinstance(item, int) or item < least:
                shown = repr(item) if type(item) is int else _kind(item)
                raise ConfigError(f"{where}'{name}' must be {_VERIFY_KEYS[key]}, not {shown}")
            continue
        if key == "helpers":
            if item not in HELPERS_CHOICES:
                raise ConfigError(f"{where}'{name}' must be one of {', '.join(HELPERS_CHOICES)}, not {item!r}")
            continue
        entries = _require_table(item, name, where)
        for sub, text in entries.items():
            if not isinstance(text, str):
                raise ConfigError(f"{where}'{name}.{sub}' must be a string, not {_kind(text)}")
        tables[key] = dict(entries)
    return VerifySettings(timeout=table.get("timeout"), helpers=table.get("helpers"), explore=table.get("explore"),
                          seed=table.get("seed"), attn_tp_size=table.get("attn-tp-size"), **tables)
