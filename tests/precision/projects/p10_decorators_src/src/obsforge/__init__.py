"""obsforge: sampling observers for SGLang.

Install one from a model-runner plugin hook::

    model_runner.sampling_observer = TimedObserver(TopKObserver(k=4))
"""
