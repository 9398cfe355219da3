"""Fitting a conversation into a token budget: stages, turn dropping, pair repair; no format names."""
