"""Observers that combine outputs, observers made by factories, container outputs with parts."""
