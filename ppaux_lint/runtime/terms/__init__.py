"""The terms of a verify run that every process of it shares, as plain data that crosses processes.

``targets`` is what runs (the classes the static pass found), ``results`` what each row says, ``helpers``
whose PP helpers judge (SGLang's, the bundled core, or the core among the stand-ins) and ``devices`` the
device the round trips run on. It takes the check's analysis and the user's settings, and gives the run,
its hosts and the caller one vocabulary. It never imports the code that uses it; only ``devices`` imports
torch.
"""
