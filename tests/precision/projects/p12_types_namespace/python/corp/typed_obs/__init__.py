"""corp.typed_obs: statistics, generated and parametrised observers (corp is a namespace package)."""
