"""``[tool.ppaux-lint]`` in pyproject.toml: read, validated strictly, frozen.

A typo in a linter's config silently turns a check off, so every unknown key
and every wrong type is an error that names the key and the file.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sized
from dataclasses import field
from pathlib import Path
from typing import Any

from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.fileio import MAX_PATTERNS, MAX_SETTINGS_BYTES, read_regular_file
from ppaux_lint.support.records import dataclass

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

    @property
    def transport_roots(self) -> frozenset[str]:
        """The output, observer and PP roots: outside bases that give their subclasses no fields and no
        ``__init__`` parameters (``index.known_bases.adds_no_fields``)."""
        return frozenset((*self.output, *self.observer, *self.pp_output, *self.pp_observer))


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
    extend_select: tuple[str, ...] = ()  # added to ``select`` (or to --select), as ruff's
    extend_ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    protocols: Protocols = Protocols()
    structural: bool = True
    cache_dir: str | None = None
    output_file: str | None = None  # where ``check`` writes its report (--output-file wins)
    src: tuple[str, ...] = ()  # source roots, relative to the config's directory (as ruff's ``src``)
    target_version: int | None = None  # the Python 3 minor version to parse for ("py311": 11); None: requires-python
    verify: VerifySettings = VerifySettings()

    @property
    def output_path(self) -> Path | None:
        """``output-file``, relative to the config's directory (as ruff resolves its paths)."""
        if self.output_file is None:
            return None
        return self.path.parent / self.output_file if self.path is not None else Path(self.output_file)

    @property
    def where(self) -> str:
        """How messages name this config: its file, or the defaults."""
        return str(self.path) if self.path is not None else "defaults"

    def summary_key(self) -> str:
        """The part of the config that changes what a summary holds (none today), for the cache key."""
        return ""


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
        return read_regular_file(path, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


def parse_toml(raw: bytes, path: Path) -> dict[str, Any]:
    """``raw``'s data; what is not TOML (also nesting deeper than the parser's recursion) is a ConfigError.

    The TOML parser is imported here, not with this module: a worker spawned with the standard library alone
    (``support/children.py``) imports this module for the types of the files it parses, and on Python 3.10 the
    parser is ``tomli``, from site-packages, which such a worker cannot import (every parse in one failed)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib

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


@dataclass(frozen=True)
class Key:
    """One key of a table of the configuration: how the parser reads it and how the manual describes it.

    The parser knows a key only through its entry in :data:`KEYS`, :data:`PROTOCOL_KEYS` or :data:`VERIFY_KEYS`
    (an unknown key is an error listing these), and the manual's table of keys (docs/configuration.md, made by
    docs/hooks/config_keys.py) is printed from the same entries, so the two cannot drift. A new key is one entry
    here, a field of the dataclass its table fills (``Config``, ``Protocols`` or ``VerifySettings``; its name is
    the key's with ``_`` for ``-``), and the table in the manual regenerated.
    """

    name: str  # as written in TOML
    kind: str  # its type, for the manual
    default: str  # for the manual: what an absent key means
    meaning: str  # for the manual: one sentence, Markdown
    read: Callable[[Any, str, str], Any]  # (value, dotted name, where) -> what the dataclass holds; ConfigError

    @property
    def field(self) -> str:
        return self.name.replace("-", "_")


def parse_config(table: Any, path: Path | None) -> Config:
    where = f"{path}: " if path else ""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}[tool.ppaux-lint] must be a table")
    config = Config(path=path, **_read_table(table, KEYS, "tool.ppaux-lint", where))
    _report_stays_inside(config, where)
    return config


_ENVIRONMENTS = frozenset({"venv", "site-packages", "node_modules", "__pypackages__"})
"""Directories of installed code, whose scripts run: a config's report is never written there."""


def _report_stays_inside(config: Config, where: str) -> None:
    """``output-file`` must name a file in the config's own directory or below it, once every symlink on the
    way is followed: a checked repository's config must not choose a file of the user's elsewhere
    (``../../.bashrc``, an absolute path, a link to the home directory) for ``check`` to replace with its report.
    Nor may it go through a hidden name or an environment of installed code (``venv``, ``node_modules``, any
    directory holding a ``pyvenv.cfg`` or a conda ``conda-meta``): ``.git/hooks/pre-commit``, ``.git/config``,
    ``.venv/bin/activate`` and ``.envrc`` are the user's, not the repository's, and some of them run.
    ``--output-file``, the user's own choice on the command line, may name any file."""
    target = config.output_path
    if target is None or config.path is None:
        return
    if "\0" in str(target):  # no file has such a name, and the system's calls refuse it
        raise ConfigError(f"{where}'tool.ppaux-lint.output-file' = {config.output_file!r} is not a path")
    directory = os.path.realpath(config.path.parent)
    parent = os.path.realpath(target.parent)
    if target.name in ("", ".", "..") or os.path.commonpath([directory, parent]) != directory:
        raise ConfigError(f"{where}'tool.ppaux-lint.output-file' = {config.output_file!r} names a file outside "
                          f"{directory}: a config's report stays in its own directory; pass --output-file to "
                          "write it elsewhere")
    inside = [part for part in [*Path(os.path.relpath(parent, directory)).parts, target.name] if part != "."]
    private = next((part for part in inside if part.startswith(".") or part in _ENVIRONMENTS), None)
    if private is None:  # a virtual environment by any name: its ``pyvenv.cfg`` says what it is (os.path's tests
        # answer no for a path too long to look up, where Path's raise before Python 3.14)
        on_the_way = [Path(directory, *inside[:depth]) for depth in range(len(inside))]  # the directory itself too
        private = next((folder.name for folder in on_the_way
                        if os.path.isfile(folder / "pyvenv.cfg") or os.path.isdir(folder / "conda-meta")), None)
    if private is not None:
        raise ConfigError(f"{where}'tool.ppaux-lint.output-file' = {config.output_file!r} goes through {private!r}: "
                          "a config's report is not written among hidden files or in an environment of installed "
                          "code, where the user's own state lives (version control, a git hook, an `activate` "
                          "script); pass --output-file to write it there")


def _read_table(table: dict, keys: tuple[Key, ...], name: str, where: str) -> dict[str, Any]:
    """The dataclass fields that ``table``'s keys set, each read by its :class:`Key`; an absent key keeps its
    field's default, an unknown one is an error listing the known ones."""
    known = {key.name: key for key in keys}
    fields: dict[str, Any] = {}
    for item, value in table.items():
        key = known.get(item)
        if key is None:
            raise ConfigError(f"{where}unknown key '{name}.{item}' (known keys: {', '.join(sorted(known))})")
        fields[key.field] = key.read(value, f"{name}.{item}", where)
    return fields


def _target_version(value: Any, key: str, where: str) -> int:
    """``"py311"`` -> 11; the oldest accepted is the oldest grammar ``ast`` reads (``python_versions``)."""
    from ppaux_lint.project.python_versions import OLDEST_GRAMMAR  # here: a replayed run reads configs

    match = _TARGET_VERSION.fullmatch(value) if isinstance(value, str) else None
    if match is None or int(match.group(1)) < OLDEST_GRAMMAR:
        shown = repr(value) if isinstance(value, str) else _kind(value)
        raise ConfigError(f"{where}'{key}' must be a Python version as ruff spells it (\"py310\"), from"
                          f" py3{OLDEST_GRAMMAR} on, not {shown}")
    return int(match.group(1))


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}'{key}' must be a list of strings, not {_kind(value)}")
    return tuple(value)


def _table(value: Any, key: str, where: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}'{key}' must be a table, not {_kind(value)}")
    return value


def _boolean(value: Any, key: str, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}'{key}' must be a boolean, not {_kind(value)}")
    return value


def _string(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where}'{key}' must be a string, not {_kind(value)}")
    return value


def _patterns(value: Any, key: str, where: str) -> tuple[str, ...]:
    """Gitignore-style patterns, no more than ``MAX_PATTERNS`` of them (a hostile config's denial of service)."""
    patterns = _strings(value, key, where)
    _at_most_max_patterns(patterns, key, where)
    return patterns


def _at_most_max_patterns(patterns: Sized, key: str, where: str) -> None:
    if len(patterns) > MAX_PATTERNS:
        raise ConfigError(f"{where}'{key}' holds {len(patterns)} patterns; at most {MAX_PATTERNS} are read")


def _per_file_ignores(value: Any, key: str, where: str) -> dict[str, tuple[str, ...]]:
    from ppaux_lint.project.globs import Globs  # here: a replayed run reads configs, and compiles no glob

    table = _table(value, key, where)
    _at_most_max_patterns(table, key, where)
    try:
        Globs(list(table))  # one compile for the usual case, where every glob is valid
    except ValueError:
        for glob in table:  # then one each, to name the first that is not
            try:
                Globs([glob])
            except ValueError as exc:
                raise ConfigError(f"{where}invalid glob {glob!r} in '{key}': {exc}") from None
    return {glob: tuple(code.strip().upper() for code in _strings(codes, f"{key}.{glob}", where))
            for glob, codes in table.items()}  # as --ignore reads its codes


def _protocols(value: Any, key: str, where: str) -> Protocols:
    """SGLang's roots, and after them the ones the table adds."""
    extra = _read_table(_table(value, key, where), PROTOCOL_KEYS, key, where)
    defaults = Protocols()
    return Protocols(**{k.field: getattr(defaults, k.field) + extra.get(k.field, ()) for k in PROTOCOL_KEYS})


def _verify(value: Any, key: str, where: str) -> VerifySettings:
    return VerifySettings(**_read_table(_table(value, key, where), VERIFY_KEYS, key, where))


MAX_TIMEOUT = 1_000_000.0
"""The longest per-class time limit, in seconds (11 days): past about 24 days a wait in milliseconds overflows
``poll``'s int, and ``nan`` or ``inf`` is no limit at all."""


def valid_timeout(value: float) -> bool:
    """Whether ``value`` seconds can be a per-class time limit: above 0 and at most MAX_TIMEOUT (``nan`` is not)."""
    return 0 < value <= MAX_TIMEOUT


def _timeout(value: Any, key: str, where: str) -> float:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or not valid_timeout(value):
        raise ConfigError(f"{where}'{key}' must be a positive number of seconds, at most {MAX_TIMEOUT:g}, not "
                          f"{value if number else _kind(value)}")
    return value


def _integer(least: int) -> Callable[[Any, str, str], int]:
    """A reader of integers of at least ``least`` (0 or 1)."""
    expected = "a non-negative integer" if least == 0 else "a positive integer"

    def read(value: Any, key: str, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            shown = repr(value) if type(value) is int else _kind(value)
            raise ConfigError(f"{where}'{key}' must be {expected}, not {shown}")
        return value

    return read


def _helpers(value: Any, key: str, where: str) -> str:
    if value not in HELPERS_CHOICES:
        raise ConfigError(f"{where}'{key}' must be one of {', '.join(HELPERS_CHOICES)}, not {value!r}")
    return value


def _names(value: Any, key: str, where: str) -> dict[str, str]:
    """A table of strings (class -> factory, device or observer)."""
    entries = _table(value, key, where)
    for sub, text in entries.items():
        if not isinstance(text, str):
            raise ConfigError(f"{where}'{key}.{sub}' must be a string, not {_kind(text)}")
    return dict(entries)


def _roots(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names) + " (always kept; the key adds to them)"


STRINGS = "list of strings"
PROTOCOL_KEYS = (
    Key("output", STRINGS, _roots(DEFAULT_OUTPUT_ROOTS), "Classes whose subclasses are auxiliary outputs.", _strings),
    Key("observer", STRINGS, _roots(DEFAULT_OBSERVER_ROOTS), "Classes whose subclasses are sampling observers.",
        _strings),
    Key("pp-output", STRINGS, _roots(DEFAULT_PP_OUTPUT_ROOTS),
        "PP protocols of outputs: a class that inherits one but never overrides `to_pp_tensors` is reported"
        " (`pp-protocol-stub-inherited`).",
        _strings),
    Key("pp-observer", STRINGS, _roots(DEFAULT_PP_OBSERVER_ROOTS),
        "PP protocols of observers: a class that inherits one but never overrides `from_pp_tensors` is reported"
        " (`pp-protocol-stub-inherited`).",
        _strings),
    Key("helper-modules", STRINGS, _roots(DEFAULT_HELPER_MODULES),
        "Modules whose `add_...`/`pop_...` PP helpers are checked (`bad-pp-helper-argument`).", _strings),
    Key("forward-observer", STRINGS, _roots(DEFAULT_FORWARD_OBSERVER_ROOTS),
        "Classes whose subclasses are forward observers (SGLang refuses them under PP).", _strings),
)
VERIFY_KEYS = (
    Key("examples", "table of strings", "none",
        "Per class (`pkg.mod.Class`), a factory (`pkg.factories:make`) that builds the example verify sends.",
        _names),
    Key("devices", "table of strings", "none", "Per class, the device its round trip runs on (`cuda:1`).", _names),
    Key("pairs", "table of strings", "none", "Per output class, the observer that rebuilds it.", _names),
    Key("timeout", "number > 0, at most 1000000", "60", "Seconds each class's round trip may take; `--timeout` wins.",
        _timeout),
    Key("helpers", "`auto`, `bundled` or `sglang`", "`auto`",
        "Whose PP helpers judge the round trip; `--helpers` wins.", _helpers),
    Key("explore", "integer ≥ 0", "0", "Variants sent per class after its example passes; `--explore` wins.",
        _integer(0)),
    Key("seed", "integer ≥ 0", "a random seed, printed", "The seed the variants are drawn from; `--seed` wins.",
        _integer(0)),
    Key("attn-tp-size", "integer ≥ 1", "1",
        "Send as SGLang does between stages of this attention-TP size; `--attn-tp-size` wins.", _integer(1)),
)
_TARGET_VERSION = re.compile(r"py3(\d{1,2})")
KEYS = (
    Key("select", STRINGS, "all rules", "Only these rule codes or prefixes.", _strings),
    Key("ignore", STRINGS, "none", "Skip these rule codes or prefixes.", _strings),
    Key("extend-select", STRINGS, "none",
        "Rule codes or prefixes added to `select` (or to `--select`), as ruff's; never narrows it.", _strings),
    Key("extend-ignore", STRINGS, "none", "Rule codes or prefixes skipped on top of `ignore`.", _strings),
    Key("exclude", STRINGS, "`.git`, `.venv`, `venv`, `build`, `dist`, `__pycache__`, `site-packages`, ...",
        "Gitignore-style patterns of paths not to check; replaces the default excludes.", _patterns),
    Key("extend-exclude", STRINGS, "none", "Patterns excluded on top of `exclude`.", _patterns),
    Key("per-file-ignores", "table: glob → list of codes", "none",
        "Rule codes or prefixes to skip in the files a glob matches; one that names no rule is an error (exit 2), "
        "as for `ignore`.", _per_file_ignores),
    Key("protocols", "table", "SGLang's classes", "Extra roots for forks: the keys below.", _protocols),
    Key("structural", "boolean", "`true`",
        "Recognise classes by their methods too, not only by inheritance.", _boolean),
    Key("cache-dir", "string", "`.ppaux_lint_cache`",
        "The cache's directory, read from the project root's table; it must lie inside the project's repository "
        "(`--cache-dir` may name any directory) ([Reliability](reliability.md)).", _string),
    Key("target-version", "string (`py310`)", "the oldest Python `requires-python` allows, else `py310`",
        "The Python whose grammar files are parsed for, as ruff spells it (above).",
        _target_version),
    Key("output-file", "string", "none (standard output)",
        "Where `check` writes its report, relative to the config's directory and inside it, not through a hidden "
        "name or an environment (`.git/`, `.venv/`, `node_modules/`), and never over an executable file (refused: "
        "[Reliability](reliability.md)); `--output-file` wins.", _string),
    Key("src", STRINGS, "`src/` and the packaging config's",
        "Source roots, relative to the config's directory ([The project model](project-model.md)).", _strings),
    Key("verify", "table", "none", "Settings of `verify`: the keys below ([verify](verify.md)).", _verify),
)
