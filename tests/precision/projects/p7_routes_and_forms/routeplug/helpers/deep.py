"""Chains of helpers, three calls deep."""

from __future__ import annotations

from routeplug.outputs import SampledStatsOutput, StatsOutput


def _leaf(x):
    return StatsOutput(mean=x.mean(dim=-1))


def _middle(x):
    return _leaf(x.float())


def summarize(x):
    return _middle(x)


def _sample_leaf(x):
    return SampledStatsOutput(maximum=x.max(dim=-1).values)


def _sample_middle(x):
    result = _sample_leaf(x)
    return result


def summarize_sampled(x):
    return _sample_middle(x.float())
