#!/usr/bin/env bash
# verify's CUDA paths in one short run, for a machine with a GPU (CI machines have none).
#
# It runs the CUDA-marked tests, then `verify --device cuda` over the bundled fixtures with both
# transports (the dist transport uses NCCL when two GPUs are visible, else gloo staging through the
# host) and under torchrun (2 ranks, NCCL with two GPUs), checks that every class gets the same status
# on CUDA as on CPU and that the driven rows were driven in bfloat16 too, and times the overhead benchmark
# on the GPU. It exits non-zero if anything differs
# from what is expected.
#
# The static pass needs libcst. Where it is missing (the lent H200 image has torch, click, rich,
# pathspec and pytest, but not libcst), carry it as a wheel, prepared on a machine with network:
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#     -d .whl libcst==1.9.*
# and run `bash benchmarks/gpu_check.sh` with `.whl` carried along.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ls .whl/*.whl >/dev/null 2>&1 && ! "$PY" -c "import libcst" 2>/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --target /tmp/ppaux-site .whl/*.whl || exit 2
  export PYTHONPATH="/tmp/ppaux-site${PYTHONPATH:+:$PYTHONPATH}"
fi
# The fixtures import sglang.*; where SGLang is not installed, verify's workers import ppaux-lint's stand-ins.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
OUT_DIR=${OUT:-$(mktemp -d)}
problems=0

verify() {
  "$PY" -c "import sys; from ppaux_lint.cli.verify import verify; verify.main(sys.argv[1:], prog_name='ppaux-lint verify')" "$@"
}

expect() {  # expect CODE COMMAND...: run it, and count a problem when it exits otherwise
  local code=$1
  shift
  "$@"
  local got=$?
  if [ "$got" -ne "$code" ]; then
    echo "!! exit $got, expected $code: $*"
    problems=$((problems + 1))
  fi
}

echo "== environment"
"$PY" - <<'PY' || exit 2
import torch
assert torch.cuda.is_available(), "no CUDA device"
print("torch", torch.__version__, "| CUDA devices:", torch.cuda.device_count(), "|", torch.cuda.get_device_name(0))
PY

echo "== CUDA tests"
expect 0 "$PY" -m pytest tests/runtime/test_cuda.py -m cuda -q -rs -p no:cacheprovider

for transport in local dist; do
  echo "== verify fixtures/clean_plugin --device cuda --transport $transport"
  expect 0 verify fixtures/clean_plugin --device cuda --transport "$transport"
  echo "== verify fixtures/sample_plugin --device cuda --transport $transport (fails by design)"
  expect 1 verify fixtures/sample_plugin --device cuda --transport "$transport" --output-format json \
    --junit-xml "$OUT_DIR/sample-$transport.xml" >"$OUT_DIR/sample-cuda-$transport.json"
done
# Under torchrun the launch's ranks are the stages (docs/verify.md: Verifying across nodes): rank 1 sends, rank 0
# receives, each on its own GPU (cuda:LOCAL_RANK), over NCCL with two GPUs, else both on cuda:0 over gloo.
torchrun_verify() {
  "$PY" -m torch.distributed.run --standalone --nproc-per-node 2 -m ppaux_lint verify --transport dist --device cuda "$@"
}
gpus=$("$PY" -c "import torch; print(torch.cuda.device_count())")
backend=$([ "$gpus" -ge 2 ] && echo nccl || echo gloo)
echo "== torchrun: verify fixtures/clean_plugin --device cuda (backend $backend expected)"
expect 0 torchrun_verify fixtures/clean_plugin 2>"$OUT_DIR/torchrun-clean.err"
expect 0 grep -q "rank 0 of 2 (.*): backend $backend; exit code 0" "$OUT_DIR/torchrun-clean.err"
echo "== torchrun: verify fixtures/sample_plugin --device cuda (fails by design; torchrun exits 1)"
expect 1 torchrun_verify fixtures/sample_plugin --output-format json >"$OUT_DIR/sample-cuda-torchrun.json" \
  2>"$OUT_DIR/torchrun-sample.err"
echo "== verify fixtures/sample_plugin --device cpu, for comparison"
expect 1 verify fixtures/sample_plugin --device cpu --output-format json >"$OUT_DIR/sample-cpu.json"

echo "== the same statuses on CUDA as on CPU"
expect 0 "$PY" - "$OUT_DIR" <<'PY'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
cpu = {r["symbol"]: r["status"] for r in json.loads((out / "sample-cpu.json").read_text())}
bad = 0
for transport in ("local", "dist", "torchrun"):
    rows = json.loads((out / f"sample-cuda-{transport}.json").read_text())
    for row in rows:
        if row["status"] != cpu.get(row["symbol"]) or not row["device"].startswith("cuda"):
            bad += 1
            print(f"{transport}: {row['symbol']}: {row['status']} on {row['device']} ({row['message']})")
    print(f"{transport}: {len(rows)} classes, {sum(r['status'] == 'pass' for r in rows)} pass")
# On CUDA the driven rows are driven in bfloat16 and float16 too (runtime/driving/drive.py): a passing driven row
# names those drives, so a half-precision path that was skipped would show here.
for row in json.loads((out / "sample-cuda-local.json").read_text()):
    if row["example"].startswith("driven") and row["status"] == "pass" and "bfloat16" not in row["message"]:
        bad += 1
        print(f"local: {row['symbol']}: driven, but not in bfloat16 ({row['message']})")
sys.exit(1 if bad else 0)
PY

echo "== overhead on the GPU"
expect 0 "$PY" benchmarks/verify_overhead.py --device cuda

echo "== ${problems} problem(s)"
exit $((problems > 0))
