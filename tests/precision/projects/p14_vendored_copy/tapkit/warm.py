"""tapkit's own observer decorator (not part of ppfields)."""

from __future__ import annotations


def warm_rebuild(output_cls):
    """Like ppfields.rebuilt_as, but only once the observer has seen a batch (``self.warm``), so that a
    half-configured observer never hands SGLang a wrong output."""

    def decorate(cls):
        def from_pp_tensors(self, tensors):
            if not getattr(self, "warm", False):
                return None
            return output_cls(**tensors)

        cls.from_pp_tensors = from_pp_tensors
        return cls

    return decorate
