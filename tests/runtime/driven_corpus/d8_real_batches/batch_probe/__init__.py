"""batch-probe: per-request token statistics for SGLang, sent across pipeline stages."""
