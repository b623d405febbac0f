"""Compiled network artifacts and the graph executor (layer 7)."""
