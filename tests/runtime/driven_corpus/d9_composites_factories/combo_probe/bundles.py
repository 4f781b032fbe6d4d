"""Container outputs that flatten their parts' tensors into one mapping; one part never learnt to send itself."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from combo_probe.outputs import _note


@dataclass
class LogprobPart:
    """The sampled token's log-probability."""

    logprob: torch.Tensor  # float32 [batch]

    def copy_to_host(self, copy_tensor):
        return LogprobPart(copy_tensor(self.logprob))

    def consume(self, batch, commits):
        for row, req in enumerate(batch.reqs):
            _note(req, "logprob", float(self.logprob[row]))

    def to_pp_tensors(self):
        return {"logprob": self.logprob}


@dataclass
class RankPart:
    """The sampled token's rank among the logits. It has no to_pp_tensors: the container's call fails."""

    rank: torch.Tensor  # int64 [batch]

    def copy_to_host(self, copy_tensor):
        return RankPart(copy_tensor(self.rank))

    def consume(self, batch, commits):
        for row, req in enumerate(batch.reqs):
            _note(req, "rank", int(self.rank[row]))


@dataclass
class WindowPart:
    """The two best logits of each row."""

    best: torch.Tensor  # float32 [batch, 2]

    def copy_to_host(self, copy_tensor):
        return WindowPart(copy_tensor(self.best))

    def consume(self, batch, commits):
        for row, req in enumerate(batch.reqs):
            _note(req, "best", self.best[row].tolist())

    def to_pp_tensors(self):
        return {"best": self.best}


@dataclass
class BundleHost:
    parts: tuple

    def consume(self, batch, commits):
        for part in self.parts:
            part.consume(batch, commits)


@dataclass
class BrokenBundle:
    logprob: LogprobPart
    rank: RankPart

    def copy_to_host(self, copy_tensor):
        return BundleHost((self.logprob.copy_to_host(copy_tensor), self.rank.copy_to_host(copy_tensor)))

    def to_pp_tensors(self):
        return {**self.logprob.to_pp_tensors(), **self.rank.to_pp_tensors()}


@dataclass
class GoodBundle:
    logprob: LogprobPart
    window: WindowPart

    def copy_to_host(self, copy_tensor):
        return BundleHost((self.logprob.copy_to_host(copy_tensor), self.window.copy_to_host(copy_tensor)))

    def to_pp_tensors(self):
        return {**self.logprob.to_pp_tensors(), **self.window.to_pp_tensors()}


def _logprob(logits, token_ids):
    logprobs = torch.log_softmax(logits, dim=-1)
    return logprobs.gather(1, token_ids.view(-1, 1)).squeeze(1).contiguous()


class BrokenBundleObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float().clone()

    def after_sample(self, state, token_ids) -> BrokenBundle:
        chosen = state.gather(1, token_ids.view(-1, 1))
        rank = (state > chosen).sum(dim=-1)
        return BrokenBundle(LogprobPart(_logprob(state, token_ids)), RankPart(rank))

    def from_pp_tensors(self, tensors) -> BrokenBundle:
        return BrokenBundle(LogprobPart(tensors["logprob"]), RankPart(tensors["rank"]))


class GoodBundleObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float().clone()

    def after_sample(self, state, token_ids) -> GoodBundle:
        return GoodBundle(LogprobPart(_logprob(state, token_ids)), WindowPart(state.topk(2, dim=-1).values))

    def from_pp_tensors(self, tensors) -> GoodBundle:
        return GoodBundle(LogprobPart(tensors["logprob"]), WindowPart(tensors["best"]))
