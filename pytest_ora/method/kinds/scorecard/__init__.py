"""Scorecards (the scorecard method): axes graded mechanically from capture evidence, scorecard.json, SCORECARD-RESULT.md."""
