"""A caller's own round trip (``round_trip``, the ``pp_round_trip`` fixture), in the caller's process.

``direct`` runs verify's two halves on a test's own output and observer, here, and hands back the rebuilt
output or raises what SGLang would; with ``transport="dist"`` ``relay`` is the other end of a real gloo link.
It takes the caller's instances and gives the rebuilt output, or the exception; ``ppaux_lint.runtime``
serves it under its public names. It never imports the verify run (``run``) nor the processes of one
(``hosts``).
"""
