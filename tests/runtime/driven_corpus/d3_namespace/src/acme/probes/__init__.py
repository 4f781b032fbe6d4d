"""acme.probes: the sampling probes of the acme namespace."""
