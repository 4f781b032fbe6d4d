"""Calibration probes for SGLang: structural observers (no SGLang import at all)."""
