"""Installs kvstats' observers on the model runner (called from the plugin hook registry)."""

from __future__ import annotations

from kvstats.observers import StepReportObserver, TopKObserver
from kvstats.proxy import ObserverProxy


def install(model_runner, *, profile: bool = False):
    observer = StepReportObserver() if model_runner.server_args.enable_step_report else TopKObserver()
    model_runner.sampling_observer = ObserverProxy(observer) if profile else observer
