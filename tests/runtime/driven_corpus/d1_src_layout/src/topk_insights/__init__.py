"""Top-k insights: per-token logprob details carried into SGLang's response metadata."""

__version__ = "0.3.1"
