from obs_plugins.observers import EntropyObserver, KeyObserver, ScoreObserver, SpanObserver, StepObserver

__all__ = ["EntropyObserver", "KeyObserver", "ScoreObserver", "SpanObserver", "StepObserver"]
