"""Subclasses built on the package's public, re-exported names."""

from __future__ import annotations

import tricky_plug
from tricky_plug import PublicObserver, PublicOutput, TopK


class ScaledOutput(PublicOutput):
    """Inherits to_pp_tensors (bound by assignment) through the re-exported alias."""

    scale = 2.0


class WideTopK(TopK):
    """Inherits to_pp_tensors through a module-level alias re-exported in __all__."""


class LoudObserver(PublicObserver):
    def is_active(self, sampling_info):
        return sampling_info.temperatures.max() > 0


class NestedChild(tricky_plug.Outer.NestedOutput):
    pass
