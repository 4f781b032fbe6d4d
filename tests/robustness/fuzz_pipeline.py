"""Fuzz discover -> summarize -> index -> checks (a script: pytest does not collect it).

    python tests/robustness/fuzz_pipeline.py --engine atheris --seconds 300
    python tests/robustness/fuzz_pipeline.py --engine hypothesis --seconds 300

Each input is decoded into a small project (1-5 files: raw bytes, snippets of
the constructs the resolver handles, or a fixture file with byte mutations,
under ordinary or odd names), written to a scratch directory and pushed
through the pipeline in process, so that any exception surfaces instead of
being turned into a PPA000 by the store's safety net. Checked invariants:

* nothing raises (discover, summarize_source, ProjectIndex, every check);
* summaries survive the cache codec and pickle unchanged;
* every span and finding position is 1-based and ordered;
* every 8th input, ``analyze`` gives identical findings with and without the
  prefilter and with a cold and a warm cache.

Failures are collected by signature (exception type and innermost frame) and
written, with a reproducing input, to ``--out`` (default /tmp/ppaux-fuzz);
the run continues. A summary line gives the number of inputs executed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import pickle
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import astuple
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIXTURE_FILES = sorted(p for p in (REPO / "fixtures").rglob("*.py") if "__pycache__" not in p.parts)
AUX = "sglang.srt.managers.auxiliary_output"
SNIPPETS = [
    f"from {AUX} import DeviceAuxiliaryOutput\n", f"import {AUX} as aux\n",
    "from sglang.srt.sampling.sampling_observer import SamplingObserver, DeviceAuxiliaryOutput as Old\n",
    "from sglang.srt.sampling.sampling_observer_pp import PipelineParallelAuxiliaryOutput as PPA\n",
    "from typing import Protocol, TYPE_CHECKING, Generic\n", "from .a import *\n", "from . import b\n",
    "from ..a import A\n", "from .sub.c import C\n", "import pkg.a as pa\n", "from pkg import A, B\n",
    "from pkg.b import B as A\n", "__all__ = ['A', 'B', 'C']\n", "__all__ = ('A',) + x\n", "A = B\n",
    "Alias = aux.DeviceAuxiliaryOutput\n", "B = pa.A\n",
    "try:\n    from pkg.b import B\nexcept ImportError:\n    B = object\n",
    "if TYPE_CHECKING:\n    from pkg.sub.c import C\n",
    "class A(DeviceAuxiliaryOutput):\n    def copy_to_host(self, c):\n        return self\n",
    "class B(A, SamplingObserver):\n    def after_sample(self, *a) -> 'A':\n        return A(x=1)\n"
    "    def is_active(self):\n        return True\n",
    "class C(B, Generic[T]):\n    to_pp_tensors = None\n", "class A(A):\n    pass\n", "class B(C):\n    pass\n",
    "class C(pa.A, b.B, aux.DeviceAuxiliaryOutput, Alias):\n    pass\n",
    "class P(Protocol):\n    def to_pp_tensors(self) -> dict: ...\n    def from_pp_tensors(cls, t): ...\n",
    "class Q(P, PPA):\n    pass\n",
    "    def to_pp_tensors(self):\n        return {'a': self.a, 'b': [1], 1: 2, **self.extra}\n",
    "    def to_pp_tensors(self):\n        return dict(a=self.a.tolist(), b=self.b.shape)\n",
    "    @classmethod\n    def from_pp_tensors(cls, t):\n        return cls(t['a'], t.get('b'), t.pop('c'))\n",
    "    def from_pp_tensors(self, t) -> Optional[A]:\n        if 'a' in t:\n            return A(t['a'])\n",
    "    to_pp_tensors = _helper\n    from_pp_tensors = staticmethod(_helper)\n",
    "def _helper(self):\n    return {}\n", "def f():\n    class L(A):\n        class M(L):\n            pass\n",
    "add_auxiliary_output_to_pp_tensors(tensors, None)\n", "pop_auxiliary_output_from_pp_tensors(t, O())\n",
    "x = t['__pp_aux__.k']\n", "if '__pp_aux__.k' in t:\n    pass\n", "# noqa: PPA001, PPA002\n", "# noqa\n",
    "@dataclass\n", "@dataclasses.dataclass(frozen=True)\n", "    x: torch.Tensor\n    y: int = 0\n",
    "# -*- coding: latin-1 -*-\n", "\ufeff", "\t", "    ", "\\\n", "(", "[", "'''", "\x00", "\r", "\r\n",
    "match x:\n    case {'a': 1}:\n        return\n", "while True:\n    break\nelse:\n    pass\n",
    "async def g():\n    yield\n", "lambda: (yield)\n", "class Ü(A):\n    def to_pp_tensors(self): return {}\n",
    "x = " + "-" * 3000 + "1\n", "x = (" * 150 + ")" * 150 + "\n",
]
NAMES = ["pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/sub/__init__.py", "pkg/sub/c.py", "top.py", "src/pkg/a.py",
         "pkg/odd name.py", "pkg/run-me.py", "pkg/ünï.py", "pkg/\udcff.py", "pkg/a.py/x.py", "pkg/A.py"]


class Bytes:
    """A tiny FuzzedDataProvider: decisions from the front of the input, bulk data from the back."""

    def __init__(self, data: bytes) -> None:
        self.data, self.front, self.back = data, 0, len(data)

    def byte(self) -> int:
        if self.front >= self.back:
            return 0
        self.front += 1
        return self.data[self.front - 1]

    def below(self, n: int) -> int:
        return self.byte() % n if n > 1 else 0

    def chunk(self, size: int) -> bytes:
        size = min(size, self.back - self.front)
        self.back -= size
        return self.data[self.back:self.back + size]


def decode(data: bytes) -> dict[str, bytes]:
    source = Bytes(data)
    files: dict[str, bytes] = {}
    for _ in range(1 + source.below(5)):
        name = NAMES[source.below(len(NAMES))]
        mode = source.below(3)
        if mode == 0:
            content = source.chunk(source.byte() * 4)
        elif mode == 1:
            content = "".join(SNIPPETS[source.below(len(SNIPPETS))] for _ in range(source.below(16))).encode(
                "utf-8", "surrogatepass")
        else:
            content = bytearray(FIXTURE_FILES[source.below(len(FIXTURE_FILES))].read_bytes())
            for _ in range(source.below(5)):
                if not content:
                    break
                at = (source.byte() * 256 + source.byte()) % len(content)
                op = source.below(4)
                if op == 0:
                    content[at] ^= source.byte() or 1
                elif op == 1:
                    del content[at:at + source.below(64) + 1]
                elif op == 2:
                    content[at:at] = SNIPPETS[source.below(len(SNIPPETS))].encode("utf-8", "surrogatepass")
                else:
                    content[at:at] = source.chunk(source.below(16))
            content = bytes(content)
        files[name] = files.get(name, b"") + content
    return files


class Failure(Exception):
    pass


def check_one(data: bytes, scratch: Path, deep: bool) -> None:
    from ppaux_lint.cache import codec
    from ppaux_lint.cache.summaries import summary_codec
    from ppaux_lint.facts.summarize.source import summarize_source
    from ppaux_lint.index.project_index import ProjectIndex
    from ppaux_lint.project.config import Config
    from ppaux_lint.project.discover import discover
    from ppaux_lint.rules import CheckContext, run_checks

    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    (scratch / "pyproject.toml").write_text("")
    files = decode(data)
    for name, content in files.items():
        path = os.path.join(os.fsencode(scratch), os.fsencode(name))
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(content)
        except OSError:
            pass  # "pkg/a.py/x.py" after "pkg/a.py": the tree just lacks that file
    found = discover([scratch], scratch, Config())
    summaries = []
    for source in found.files:
        with open(source.path, "rb") as handle:
            raw = handle.read()
        summary = summarize_source(raw, source.path, source.module, source.is_package)
        if summary_codec().decode(json.loads(json.dumps(codec.encode(summary)))) != summary:
            raise Failure("summary does not survive the cache codec")
        if pickle.loads(pickle.dumps(summary)) != summary:
            raise Failure("summary does not survive pickle")
        if summary.error is not None:
            _span_ok(summary.error.span, "error span")
        for cls in summary.classes:
            _span_ok(cls.span, "class span")
            for method in cls.methods:
                _span_ok(method.span, "method span")
        summaries.append(summary)
    for structural in (True, False):
        index = ProjectIndex(summaries, Config().protocols, structural)
        index.infos()
        for finding in run_checks(CheckContext(index=index, summaries=tuple(summaries))):
            _span_ok(finding.span, f"{finding.code} span")
    if deep:
        from ppaux_lint.check.engine import Options, analyze

        old = os.getcwd()
        os.chdir(scratch)
        try:
            def sig(options):
                return sorted((f.code, f.path, astuple(f.span), f.symbol, f.message) for f in analyze(["."], options).findings)
            reference = sig(Options(no_cache=True))
            for options in (Options(no_cache=True, prefilter=False), Options(), Options()):
                if sig(options) != reference:
                    raise Failure(f"findings differ with {options}")
        finally:
            os.chdir(old)


def _span_ok(span, what: str) -> None:
    if span.line < 1 or span.column < 1 or (span.end_line, span.end_column) < (span.line, span.column):
        raise Failure(f"bad {what}: {span}")


class Harness:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.out.mkdir(parents=True, exist_ok=True)
        self.scratch = Path(tempfile.mkdtemp(prefix="ppaux-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm")
                                             else None))
        self.executed = 0
        self.failures: dict[str, int] = {}
        self.started = time.monotonic()

    def __call__(self, data: bytes) -> None:
        self.executed += 1
        try:
            check_one(data, self.scratch / "p", deep=self.executed % 8 == 0)
        except Exception as exc:  # noqa: BLE001 - collect every distinct failure, keep fuzzing
            frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
            signature = f"{type(exc).__name__}: {str(exc)[:80]} @ {frame.filename}:{frame.lineno}" if frame else repr(exc)
            if signature not in self.failures:
                digest = hashlib.sha1(data).hexdigest()[:12]
                (self.out / f"crash-{digest}").write_bytes(data)
                (self.out / f"crash-{digest}.txt").write_text(signature + "\n" + traceback.format_exc())
                print(f"NEW FAILURE {signature} -> {self.out / ('crash-' + digest)}", file=sys.stderr, flush=True)
            self.failures[signature] = self.failures.get(signature, 0) + 1
        if self.executed % 500 == 0:
            self.report()

    def report(self) -> None:
        summary = {"executed": self.executed, "seconds": round(time.monotonic() - self.started, 1),
                   "distinct_failures": len(self.failures), "failures": self.failures}
        (self.out / "summary.json").write_text(json.dumps(summary, indent=2))
        print(f"fuzz: {json.dumps(summary)}", file=sys.stderr, flush=True)


def seeds() -> list[bytes]:
    """Each fixture file as the single file of a project (mode 2, no mutation), plus a few snippet projects."""
    out = [bytes([0, 1, 2, i, 0]) for i in range(min(len(FIXTURE_FILES), 256))]
    out += [bytes([3, 1, 1, 12, *range(0, 60, 5), 2, 1, 8, *range(1, 60, 3)]), bytes([1, 0, 1, 10, 0, 1, 19, 20])]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("atheris", "hypothesis"), default="atheris")
    parser.add_argument("--seconds", type=int, default=240)
    parser.add_argument("--out", type=Path, default=Path("/tmp/ppaux-fuzz"))
    args, rest = parser.parse_known_args()
    harness = Harness(args.out)
    if args.engine == "atheris":
        import atheris

        with atheris.instrument_imports(include=["ppaux_lint"]):
            pass
        corpus = args.out / "corpus"
        corpus.mkdir(exist_ok=True)
        for i, seed in enumerate(seeds()):
            (corpus / f"seed-{i:03d}").write_bytes(seed)
        import atexit

        atexit.register(harness.report)
        atheris.Setup([sys.argv[0], f"-max_total_time={args.seconds}", "-timeout=20", "-rss_limit_mb=4096",
                       "-max_len=4096", "-len_control=0", *rest, str(corpus)], harness)
        atheris.Fuzz()
    else:
        from hypothesis import HealthCheck, given, settings
        from hypothesis import strategies as st

        deadline = time.monotonic() + args.seconds

        @settings(max_examples=10**9, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(st.one_of(st.binary(max_size=4096), st.sampled_from(seeds())))
        def run(data: bytes) -> None:
            if time.monotonic() > deadline:
                raise KeyboardInterrupt
            harness(data)

        with contextlib.suppress(KeyboardInterrupt):
            run()
        harness.report()


if __name__ == "__main__":
    main()
