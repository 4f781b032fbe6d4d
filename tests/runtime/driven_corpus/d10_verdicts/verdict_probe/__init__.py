"""Sampling-observer plugins whose verdicts turn on how a failure is judged and worded."""
