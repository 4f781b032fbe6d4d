from obs_core.bases import AbstractScoreOutput, BaseObserver, TensorBundle
from obs_core.mixins import FieldTensorsMixin, LogSoftmaxHooks, RebuildFromFieldsMixin

__all__ = [
    "AbstractScoreOutput",
    "BaseObserver",
    "FieldTensorsMixin",
    "LogSoftmaxHooks",
    "RebuildFromFieldsMixin",
    "TensorBundle",
]
