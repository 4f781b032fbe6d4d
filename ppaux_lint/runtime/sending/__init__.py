"""Sending: the two halves of a round trip, the wire between the stages, and what judges what arrived.

``roundtrip`` is what the last stage does (``add``) and what the first does (``pop`` with its own observer,
then verify's pass criteria); ``transport`` moves the stage's tensor dict from one to the other as SGLang's
scheduler does, in one process or over torch.distributed; ``compare`` and ``consume`` judge the rebuilt
output by what its host copy holds and what ``consume`` writes. It takes an output and the helpers, and
gives an ``Outcome``. It never imports what makes the outputs (``driving``) nor the processes that host
the halves (``hosts``, ``caller``).
"""
