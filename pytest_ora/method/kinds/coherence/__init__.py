"""The coherence rubric kind: its reply model, arithmetic and report files (KIND in kind.py)."""
