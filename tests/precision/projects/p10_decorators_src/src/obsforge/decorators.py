"""Class decorators that give an output or an observer its pipeline-parallel transport.

Writing ``to_pp_tensors``/``from_pp_tensors`` by hand for every output got repetitive, so the outputs list
their tensor fields once and these decorators write the methods.
"""

from __future__ import annotations

import torch


def pp_fields(*names: str):
    """Send the named tensor fields, each under its own name."""
    if not names:
        raise TypeError("pp_fields() needs at least one field name")

    def decorate(cls):
        def to_pp_tensors(self):
            return {name: getattr(self, name) for name in names}

        cls.to_pp_tensors = to_pp_tensors
        cls.__pp_fields__ = names
        return cls

    return decorate


def rebuilds(output_cls):
    """The observer rebuilds ``output_cls`` from the tensors it received, passed as keyword fields."""

    def decorate(cls):
        def from_pp_tensors(self, tensors):
            return output_cls(**tensors)

        cls.from_pp_tensors = from_pp_tensors
        return cls

    return decorate


def transportable(cls):
    """Send every tensor attribute of the instance."""

    def to_pp_tensors(self):
        return {key: value for key, value in vars(self).items() if torch.is_tensor(value)}

    setattr(cls, "to_pp_tensors", to_pp_tensors)
    return cls


def with_transport(cls):
    """Replace ``cls`` by a subclass that sends the fields named in ``cls.TRANSPORT``."""

    class Transported(cls):
        def to_pp_tensors(self):
            return {name: getattr(self, name) for name in cls.TRANSPORT}

    Transported.__name__ = cls.__name__
    Transported.__qualname__ = cls.__qualname__
    Transported.__module__ = cls.__module__
    Transported.__doc__ = cls.__doc__
    return Transported


def local_only(cls):
    """For outputs that only matter on the last stage: there is nothing to send across."""

    def to_pp_tensors(self):
        return {}

    cls.to_pp_tensors = to_pp_tensors
    return cls


def pp_scalars(*names: str):
    """Send a few scalar statistics packed together under one name."""

    def decorate(cls):
        def to_pp_tensors(self):
            return {"scalars": [float(getattr(self, name)) for name in names]}

        cls.to_pp_tensors = to_pp_tensors
        return cls

    return decorate
