"""edge-probe: the package re-exports its observers, as the plugin hook imports them from here."""

from edge_probe.observers.batching import SparseStartObserver
from edge_probe.observers.rebuild import KeptKObserver, RebuildSqueezeObserver, TimestampObserver
from edge_probe.observers.views import ConsumeSqueezeObserver, ContiguousFirstObserver, FlaggedObserver

__all__ = [
    "ConsumeSqueezeObserver",
    "ContiguousFirstObserver",
    "FlaggedObserver",
    "KeptKObserver",
    "RebuildSqueezeObserver",
    "SparseStartObserver",
    "TimestampObserver",
]
