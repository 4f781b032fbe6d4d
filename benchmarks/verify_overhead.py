"""What verify's own machinery costs: one round trip of a 64 MiB output against a bare copy of its tensors.

The bare copy is what any transport must do at least: allocate each tensor on
the receiving device and copy it there. Verify's round trip adds the helpers'
checks, both outputs' ``copy_to_host``, and two comparisons that each read the
original and the rebuilt tensors (``to_pp_tensors`` and the host copy). Run:

    python benchmarks/verify_overhead.py [--device cpu|cuda] [--mib 64] [--runs 15]

It prints the median of each and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

import torch

from ppaux_lint.runtime.sending.roundtrip import Steps, receive_half, send_half
from ppaux_lint.runtime.sending.transport import local_transfer


@dataclass
class Host:
    tensors: dict


@dataclass
class BigOutput:
    """Four float32 tensors sharing the output's size evenly, like a top-k or logprob output."""

    tensors: dict

    def copy_to_host(self, copy_tensor):
        return Host({name: copy_tensor(t) for name, t in self.tensors.items()})

    def to_pp_tensors(self):
        return dict(self.tensors)


class BigObserver:
    def from_pp_tensors(self, tensors):
        return BigOutput(dict(tensors))


def make_output(mib: int, device: torch.device) -> BigOutput:
    per_tensor = mib * 2**20 // 4 // 4  # float32 elements in each of the four tensors
    return BigOutput({f"t{i}": torch.rand(per_tensor, device=device) for i in range(4)})


def bare_copy(output: BigOutput, device: torch.device) -> list[torch.Tensor]:
    """New buffers for every tensor, all alive at once, as any receiving stage must have them."""
    copies = [torch.empty(t.shape, dtype=t.dtype, device=device).copy_(t) for t in output.tensors.values()]
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return copies


def verify_round_trip(output: BigOutput, device: torch.device) -> None:
    steps = Steps()
    stage, shipment, _ = send_half(output, device, steps)
    received = local_transfer(stage, device)
    receive_half(received, BigObserver(), shipment, device, steps)


def medians(actions: list, runs: int) -> list[float]:
    """Median seconds of each action, run in turns so that drift in the machine's load hits all alike."""
    for action in actions:
        action()  # warm up allocators and caches
    times: list[list[float]] = [[] for _ in actions]
    for _ in range(runs):
        for action, spent in zip(actions, times, strict=True):
            start = time.perf_counter()
            action()
            spent.append(time.perf_counter() - start)
    return [statistics.median(spent) for spent in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    device = torch.device(args.device)
    output = make_output(args.mib, device)
    size = sum(t.numel() * t.element_size() for t in output.tensors.values()) / 2**20
    bare, full = medians([lambda: bare_copy(output, device), lambda: verify_round_trip(output, device)], args.runs)
    print(f"device {device}, output {size:.0f} MiB in {len(output.tensors)} tensors, median of {args.runs} runs")
    print(f"bare copy:          {bare * 1e3:9.2f} ms")
    print(f"verify round trip:  {full * 1e3:9.2f} ms")
    print(f"ratio:              {full / bare:9.2f}x")


if __name__ == "__main__":
    main()
