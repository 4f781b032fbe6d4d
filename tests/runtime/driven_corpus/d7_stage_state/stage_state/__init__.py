"""Observers that keep state between their hooks, some of it where only the last stage can see it."""
