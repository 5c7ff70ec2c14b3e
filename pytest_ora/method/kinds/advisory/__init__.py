"""`kind: advisory`: the scorecard method's OpenCode advisory observation record (`opencode-advisory-observation.1`).

One self-contained package: the record's schema and the `profile-adherence-v1` threshold
(observation.py), the kind itself (kind.py), and its report files advisory.json and
ADVISORY-RESULT.md (render.py). Registered by one line in `pytest_ora.method.kinds.KINDS`
and one renderer in `pytest_ora.reports.verify`. No judge, no network: the result is computed
mechanically, and is advisory only, never a product, merge, CI or release gate.
"""
