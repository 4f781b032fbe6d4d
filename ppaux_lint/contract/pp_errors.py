"""SGLang's pipeline-parallel transport errors, word for word.

Static messages quote them so a user can grep a production traceback for the
rule that predicted it, and the runtime core raises exactly these. Torch-free,
so both sides can import it.
"""

PP_KEY_PREFIX = "__sampling_observer_output__."

OUTPUT_NOT_PP = "auxiliary output does not support pipeline-parallel transport"
EMPTY_OUTPUT = "auxiliary PP output must contain at least one tensor"
BAD_NAME = "auxiliary PP tensor names must be non-empty strings"
NOT_A_TENSOR = "auxiliary PP output {name!r} is not a tensor"
DUPLICATE = "duplicate auxiliary PP tensor {name!r}"
NO_OBSERVER = "received auxiliary PP output without a sampling observer"
OBSERVER_NOT_PP = "sampling observer does not support pipeline-parallel transport"
RECEIVED_NON_TENSOR = "received a non-tensor auxiliary PP output"
NOT_RECONSTRUCTED = "sampling observer did not reconstruct its PP output"


def raised(message: str) -> str:
    """How a finding quotes the error the helper will raise."""
    return f"RuntimeError: {message}"
