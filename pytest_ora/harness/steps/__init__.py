"""A capture's way, one module a step: answer, packet, judges, checked replies, scores, record, files.

`CaptureRunner.run` (harness/runner.py) only sequences these steps.
"""
