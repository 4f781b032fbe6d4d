"""beta-probe: entropy and alternatives for the response metadata."""
