"""Deterministic SWE-bench scoring (the judge skill's `swebench` and `ground-truth` modes): no judge, no network."""
