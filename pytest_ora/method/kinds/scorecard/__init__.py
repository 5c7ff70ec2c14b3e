"""Seed 004 scorecards: axes graded mechanically from capture evidence, scorecard.json, SCORECARD-RESULT.md."""
