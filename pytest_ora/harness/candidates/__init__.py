"""Candidates: the configurations that answer the bundle's entries inside the run."""
