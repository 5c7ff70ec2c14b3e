"""--ora-step-summary at the session end: the run's short account appended to the CI's summary file, by the controller."""

from __future__ import annotations

import os
import sys

from ..judges.keyguard import configured_keys
from ..reports.stepsummary import GateLine, append_step_summary, step_summary_markdown
from .runstate import RunState

__all__ = ["write_step_summary"]


def write_step_summary(controller: RunState) -> None:
    """Append the run's account to --ora-step-summary's file; a file that cannot be written is said, not raised."""
    options = controller.options
    target, out = options.step_summary, controller.options.out
    if target is None or not controller.claimed or options.dry_run or options.generate_only:
        return
    gates = [
        GateLine(result.name, result.holds, (result.held,) if result.holds else result.failures)
        for result in controller.gate_results
    ]
    try:
        secrets = configured_keys(controller.plan().panel, os.environ)
        text = step_summary_markdown(out, gates, secrets=secrets, unwritten=_unwritten(controller))
        append_step_summary(target, text)
    except OSError as error:
        sys.stderr.write(f"ora: the step summary could not be appended to {target}: {error.strerror or error}\n")


def _unwritten(controller: RunState) -> str | None:
    """Why this run wrote no report of its own (the step summary then describes no table), or None."""
    if controller.report_error is not None:
        return f"the report could not be written ({controller.report_error})"
    if controller.kept_last:
        return "nothing was scored, so the last report in the output directory was left as it was"
    if controller.facts is None:
        return "the run ended before its report was written"
    return None
