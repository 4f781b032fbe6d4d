"""Third-party code copied into tapkit so that it installs without them (see vendor.txt)."""
