"""A verify run, as ``ppaux-lint verify`` and ``pytest --ppaux-verify`` start it: plan, rows, report.

``plan`` turns the user's flags and config into a run that is ready to start, every usage error found
before anything runs; ``verify`` gives every target a row, with the worker (``hosts``, started by its module
name, never imported) judging the classes and a deadline on each; ``report`` renders the rows for people,
tools and CI. It takes the check's targets and the user's settings, and gives ``VerifyResult`` rows and
their report. Torch-free at import: it never imports the hosts', the caller's or torchrun's code.
"""
