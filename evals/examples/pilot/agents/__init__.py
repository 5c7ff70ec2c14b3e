"""The example's agent harness (cell B): a Python candidate, `agents.harness:answer`."""
