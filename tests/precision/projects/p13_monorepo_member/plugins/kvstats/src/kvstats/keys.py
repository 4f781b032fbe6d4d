"""Names of the tensors kvstats sends between pipeline stages, in one place so both sides agree."""

K_IDS = "ids"
K_LOGPROBS = "logprobs"
K_TOKEN_IDS = "ids"
K_ACCEPTED = "accepted"
K_PROPOSED = "proposed"
SPEC_NS = "spec"
TAP_LAYER = 12
