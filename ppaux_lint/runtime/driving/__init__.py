"""Driving: the outputs a round trip sends, made as SGLang makes them, or built where that cannot be done.

``drive`` runs an observer through the hooks SGLang's last stage calls, with ``batch_info``'s
``sampling_info``; ``supply`` decides which examples go (the driven ones first, a user's own beside them);
``examples`` builds instances from a user's ``ppaux_example``, a factory or the constructor's annotations,
importing the project's classes through ``loader``; ``explore`` and ``explore_drive`` draw variants under
``--explore`` and shrink a failure. It takes a target and gives the examples to send, or the reason there
are none. It never imports the processes that host the stages (``hosts``), only the halves below it.
"""
