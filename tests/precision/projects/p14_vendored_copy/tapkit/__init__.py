"""tapkit: sampling taps for SGLang."""
