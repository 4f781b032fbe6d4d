"""alpha-probe: per-token views of the logits for a custom host kernel."""
