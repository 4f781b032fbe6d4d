"""stagecraft: sampling observers for SGLang.

Install one from a model-runner plugin hook::

    model_runner.sampling_observer = SummaryObserver()
"""
