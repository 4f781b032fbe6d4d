"""Stand-in for ``sglang.srt.sampling.sampling_observer_pp``: the bundled core's own objects.

Not copies: a plugin class that subclasses ``PipelineParallelAuxiliaryOutput`` from here subclasses the very
Protocol the bundled helpers check against, as a subclass of SGLang's is checked against SGLang's, so the
judgement on it is the one SGLang's helpers would give (see ``ppaux_lint/runtime/terms/helpers.py``). The
protocols SGLang's module imports are importable from it too, as from SGLang's.
"""

from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver

from ppaux_lint.runtime.core import _OUTPUT_PREFIX as _OUTPUT_PREFIX  # private in SGLang too; its tests read it
from ppaux_lint.runtime.core import (
    PipelineParallelAuxiliaryOutput,
    PipelineParallelSamplingObserver,
    add_auxiliary_output_to_pp_tensors,
    pop_auxiliary_output_from_pp_tensors,
)

__all__ = [
    "DeviceAuxiliaryOutput",
    "PipelineParallelAuxiliaryOutput",
    "PipelineParallelSamplingObserver",
    "SamplingObserver",
    "add_auxiliary_output_to_pp_tensors",
    "pop_auxiliary_output_from_pp_tensors",
]
