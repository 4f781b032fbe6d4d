from .forward import CaptureObserver, LayerNormCapture, ProbeCapture, ResidualCapture, StickyCapture
from .sampling import AttrShareSampler, ChosenIdsSampler, ConfidenceSampler, SharedOkSampler, ShareSampler

__all__ = [
    "AttrShareSampler",
    "CaptureObserver",
    "ChosenIdsSampler",
    "ConfidenceSampler",
    "LayerNormCapture",
    "ProbeCapture",
    "ResidualCapture",
    "ShareSampler",
    "SharedOkSampler",
    "StickyCapture",
]
