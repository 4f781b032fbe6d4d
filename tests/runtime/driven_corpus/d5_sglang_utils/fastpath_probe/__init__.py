"""fastpath-probe. Modules are imported by the plugin hook one by one; this package imports none of them."""
