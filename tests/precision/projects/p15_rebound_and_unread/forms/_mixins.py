"""Mixins the outputs of this package are assembled from."""


class Sends:
    """Sends the token ids."""

    def to_pp_tensors(self):
        return {"ids": self.ids}


class Quiet:
    """Marks an output whose host copy is not logged; it sends nothing by itself."""

    quiet = True
