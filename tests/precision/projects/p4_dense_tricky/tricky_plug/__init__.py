"""Public names; the implementation lives in dense.py."""

from . import dense as _dense
from .dense import MixedObserver as PublicObserver
from .dense import Outer, TopK, TopKObserver

PublicOutput = _dense.PackedOutput

__all__ = ["Outer", "PublicObserver", "PublicOutput", "TopK", "TopKObserver"]
