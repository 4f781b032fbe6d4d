"""Observers that guard ``from_pp_tensors`` against tensors that might be missing, in the ways people write it."""
