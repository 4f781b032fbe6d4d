"""Guarding processes: children that can hang, crash, fork or be killed without taking verify down.

``procs`` starts a child (a fresh interpreter, or a fork where that is sound) that speaks JSON lines on a
channel of its own and ends with its parent; ``reaper`` ends every process a class's code started, those
that left its process group included. It takes a module to run and gives a ``Child`` to read, stop and
kill. Torch-free, and it never imports the rest of the runtime: every process of a run stands on it.
"""
