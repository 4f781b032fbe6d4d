"""Turning ``--device`` and per-class overrides into a device that exists here.

A device that does not exist is a usage error, found before anything runs:
failing each class on it one by one would bury the one-line cause.
"""

from __future__ import annotations

import re

import torch

_SPEC = re.compile(r"cuda(?::(\d+))?")


class DeviceError(ValueError):
    """The requested device is malformed or absent on this machine."""


def resolve_device(spec: str) -> str:
    """``auto`` -> ``cuda:0`` when CUDA is there, else ``cpu``; ``cuda`` -> ``cuda:0``; validates ``cuda:N``."""
    text = spec.strip().lower()
    if text == "auto":
        return "cuda:0" if torch.cuda.is_available() else "cpu"
    if text == "cpu":
        return "cpu"
    match = _SPEC.fullmatch(text)
    if match is None:
        raise DeviceError(f"unknown device {spec!r}: use auto, cpu, cuda or cuda:N")
    if not torch.cuda.is_available():
        raise DeviceError(f"device {spec!r} does not exist: CUDA is not available on this machine")
    index = int(match.group(1) or 0)
    count = torch.cuda.device_count()
    if index >= count:
        raise DeviceError(
            f"device {spec!r} does not exist: this machine has {count} CUDA device{'s' if count != 1 else ''}"
        )
    return f"cuda:{index}"
