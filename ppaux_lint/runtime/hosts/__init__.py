"""The processes that host the stages: the verify worker, the judge of each class, the receiving rank.

``worker`` imports torch once, runs a round trip of its own (``warmup``) and forks a ``judge`` per class,
which runs ``trip``: the class's round trip from imports to verdict, its steps announced as they start.
With the ``dist`` transport the judge is the last stage and ``peer`` forks the first, ``receiver``, a
process of its own; under torchrun ``pair`` runs the two halves in two ranks' workers. It takes requests
(a target, the helpers, a transport) on a channel and gives events and each row's verdict. It never
imports what starts it: the driver (``run``) names the worker by its module, and torchrun's ranks stand on it.
"""
