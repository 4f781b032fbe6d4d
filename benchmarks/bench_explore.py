"""What ``verify --explore N`` costs per explored example, against the class's one round trip without it.

Each explored example is a drawn variant (hypothesis's generation, and its shrinking when one fails) put
through the same local round trip as the base example: ``send_half``, the transport, ``receive_half``. The
output is a top-k-like pair of batch-sharing tensors, ``ids`` (int64) and ``scores`` (float32), of a
realistic width. Run:

    python benchmarks/bench_explore.py [--device cpu|cuda] [--examples 50] [--k 20] [--runs 5]

It prints the medians: one round trip, a whole exploration, and the cost per explored example.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

import torch

from ppaux_lint.runtime.driving.explore import explore
from ppaux_lint.runtime.sending.roundtrip import Steps, receive_half, send_half
from ppaux_lint.runtime.sending.transport import local_transfer


@dataclass
class TopKOutput:
    ids: torch.Tensor
    scores: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return (copy_tensor(self.ids), copy_tensor(self.scores))

    def to_pp_tensors(self):
        return {"ids": self.ids, "scores": self.scores}


class TopKObserver:
    def from_pp_tensors(self, tensors):
        return TopKOutput(tensors["ids"], tensors["scores"])


def round_trip(output: TopKOutput, device: torch.device) -> None:
    steps = Steps()
    stage, shipment, _ = send_half(output, device, steps)
    receive_half(local_transfer(stage, device), TopKObserver(), shipment, device, steps)


def median_seconds(action, runs: int) -> float:
    action()  # warm up allocators, caches and hypothesis's own imports
    spent = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        spent.append(time.perf_counter() - start)
    return statistics.median(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    device = torch.device(args.device)
    base = TopKOutput(torch.randint(0, 150_000, (4, args.k), device=device), torch.rand(4, args.k, device=device))
    tried = []

    def judge(value: TopKOutput) -> None:
        tried.append(1)
        round_trip(value, device)

    one = median_seconds(lambda: round_trip(base, device), args.runs)
    whole = median_seconds(lambda: explore(base, judge, args.examples, 7), args.runs)
    per_run = len(tried) / (args.runs + 1)
    print(f"device {device}, ids int64[4, {args.k}] + scores float32[4, {args.k}], "
          f"--explore {args.examples}, median of {args.runs} runs")
    print(f"one round trip:         {one * 1e3:9.2f} ms")
    print(f"whole exploration:      {whole:9.2f} s  ({per_run:.0f} examples)")
    print(f"per explored example:   {whole / per_run * 1e3:9.2f} ms")


if __name__ == "__main__":
    main()
