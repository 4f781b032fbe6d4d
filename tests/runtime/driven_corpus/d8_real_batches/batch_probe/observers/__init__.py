"""The observers; the plugin hook picks one by name."""
