from sglang.srt.sampling.sampling_observer import SamplingObserver

from plug.derived import ChosenIdsOutput, EmptyWhenIdleOutput, LogitGapOutput


class _Hooks(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float()


class GapObserver(_Hooks):
    def after_sample(self, state, token_ids):
        top2 = state.topk(2, dim=-1).values
        return LogitGapOutput(top2[:, 0] - top2[:, 1])

    def from_pp_tensors(self, tensors):
        return LogitGapOutput(tensors["values"])


class ChosenObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return ChosenIdsOutput(token_ids)

    def from_pp_tensors(self, tensors):
        return ChosenIdsOutput(tensors["values"])


class IdleObserver(_Hooks):
    def after_sample(self, state, token_ids):
        keep = token_ids[token_ids >= 0]
        return EmptyWhenIdleOutput(keep)

    def from_pp_tensors(self, tensors):
        return EmptyWhenIdleOutput(tensors["values"])
