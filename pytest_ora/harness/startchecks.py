"""The run's checks before any item: options against the bundle, labels, gates and baseline, then a live run's judges.

The checks that read only the options and the files run when pytest configures (`check_options`), before
collection; a live run's judges are checked at the session start (`check_live`), where its recording starts.
Every refusal is a pytest.UsageError (exit 4) naming the option or the file; nothing is judged or written.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..bundle.design import option_problems
from ..core.errors import IntakeError, OraError
from ..core.plan import JudgeSlot, Panel, Plan
from ..core.vocabulary import is_live
from ..judges.budget import price_for
from ..judges.keyguard import configured_keys
from .gates import validate as validate_gates
from .options import Options, key_problems
from .run import OraRun

if TYPE_CHECKING:  # read only when the run names them: a plain replay never loads their modules
    from ..bundle.labels import LabelSet
    from ..bundle.preferences import PreferenceSet
    from ..reports.baseline import BaselineRun

__all__ = ["OptionChecks", "check_live", "check_options"]
_NO_BATCH_PROVIDERS = ("azure-openai", "bedrock", "vertex")
"""Providers whose batch APIs pytest-ora does not speak: --ora-batch with one of them is a usage error."""


@dataclass(frozen=True)
class OptionChecks:
    """What the configure-time checks read: the labels and the baseline."""

    labels: LabelSet | PreferenceSet | None
    baseline: BaselineRun | None


def check_options(run: OraRun, config: pytest.Config) -> OptionChecks | None:
    """The checks of the options and files, at configure time; None under --collect-only (nothing is judged)."""
    plan = run.plan()
    options = run.options
    keyed = key_problems(options, configured_keys(plan.panel, os.environ))
    if keyed:  # before any other message, which may quote the option's value
        raise pytest.UsageError("; ".join(keyed))
    _check_options(run, plan)
    labels = _labels(plan, options)
    validate_gates(options, plan.rubric)
    if options.batch and options.record not in ("once", "new_episodes"):
        raise pytest.UsageError("--ora-batch records judge calls: use it with --ora-record once or new_episodes")
    if options.batch:
        unbatched = [j for j in plan.panel.judges if j.spec.provider in _NO_BATCH_PROVIDERS]
        if unbatched:
            names = ", ".join(f"{j.label} (provider {j.spec.provider})" for j in unbatched)
            raise pytest.UsageError(
                f"--ora-batch is not supported for {names}: pytest-ora batches through Anthropic's and OpenAI's batch "
                "APIs only (not Azure OpenAI's batch API, Bedrock batch inference or Vertex batch prediction); "
                "run without --ora-batch to judge these live"
            )
    if config.option.collectonly:
        return None
    if options.generate_only and not plan.bundle.manifest.candidates:
        raise pytest.UsageError(
            "--ora-generate-only makes the candidates' answers, and bundle.yaml names no candidates: "
            "add a `candidates:` section, or run without --ora-generate-only"
        )
    if options.generate_only and options.dry_run:
        raise pytest.UsageError("--ora-generate-only and --ora-dry-run exclude each other: give one")
    baseline = None if options.dry_run else _baseline(plan, options)
    return OptionChecks(labels, baseline)


def check_live(run: OraRun) -> bool:
    """At the session start: whether the judges are called live; if so their keys and reachability are checked
    and the recording has started."""
    plan, options = run.plan(), run.options
    live = (
        not options.dry_run and not options.generate_only and is_live(options.record) and _needs_network(plan, options)
    )
    if live:
        _check_live(plan, options)
    return live


def _check_options(run: OraRun, plan: Plan) -> None:
    """Options that contradict the bundle, the panel or each other."""
    options = run.options
    wrong = option_problems(
        plan.bundle.manifest.configurations,
        [item.capture for item in plan.bundle.captures],
        options.cluster,
        options.reference,
        options.pairs,
    )
    if wrong:
        raise pytest.UsageError("; ".join(wrong))
    if options.substitutes and not options.panel_label:
        raise pytest.UsageError("--ora-substitute changes the judging panel: name it with --ora-panel-label")
    if options.budget_usd is not None:
        roles = plan.bundle.optimum.roles
        candidates = [
            JudgeSlot(f"candidate {name}", "candidate", spec.role, roles[spec.role])
            for name, spec in (plan.bundle.manifest.candidates or {}).items()
            if spec.role is not None and spec.role in roles
        ]
        unpriced = [j for j in (*plan.panel.judges, *candidates) if price_for(j.spec.model, run.prices()) is None]
        if unpriced:
            names = ", ".join(f"{j.label} ({j.spec.model})" for j in unpriced)
            raise pytest.UsageError(f"--ora-budget-usd needs a price for {names}: add it with --ora-prices FILE")
    if options.prices is not None:
        run.prices()  # a bad price file is one usage error now, not one failure per capture later
    _check_roles(plan, options)
    _check_candidates(plan)


def _check_candidates(plan: Plan) -> None:
    """A role candidate's params are ones its model takes: nothing the run sends is silently dropped."""
    if not any(spec.params is not None for spec in (plan.bundle.manifest.candidates or {}).values()):
        return
    from .candidates.role import sampling_refused

    roles = plan.bundle.optimum.roles
    for name, spec in (plan.bundle.manifest.candidates or {}).items():
        refused = sampling_refused(roles[spec.role], spec) if spec.role is not None and spec.role in roles else None
        if refused:
            raise pytest.UsageError(f"bundle.yaml: candidates.{name}.params: {refused}")


def _check_live(plan: Plan, options: Options) -> None:
    """A live run's checks before its first call: recordable, this bundle's directory, keys, reachable judges."""
    # Their modules load HTTP clients, which a replay never needs.
    from ..judges.keyguard import check_keys
    from ..judges.reachability import check_reachable, missing_keys
    from ..judges.recordings import RecordingsError, check_bundle, note_recording
    from .candidates.role import candidate_roles

    _check_recordable(options.cassettes)
    try:
        check_bundle(options.cassettes, plan.bundle.manifest.bundle, recording=True, bind=False)
    except RecordingsError as error:
        raise pytest.UsageError(str(error)) from None
    missing = missing_keys(plan.panel, os.environ)
    if missing:
        raise pytest.UsageError("live judging needs API keys: " + "; ".join(missing))
    # Role candidates are called as judges are: their keys and routes are checked before any call too.
    candidates = Panel(candidate_roles(plan.bundle.manifest.candidates, plan.bundle.optimum.roles), "candidates")
    missing = missing_keys(candidates, os.environ)
    if missing:
        raise pytest.UsageError("role candidates need API keys: " + "; ".join(missing))
    try:
        check_keys(plan, os.environ)
        check_reachable(plan.panel, os.environ, timeout=options.timeout)
        if candidates.judges:
            check_reachable(candidates, os.environ, timeout=options.timeout)
    except OraError as error:
        raise pytest.UsageError(str(error)) from None
    # Recording starts now: the directory is this bundle's, and this rubric version joins its record.
    check_bundle(options.cassettes, plan.bundle.manifest.bundle, recording=True)
    note_recording(plan.rubric, options.cassettes)


def _baseline(plan: Plan, options: Options) -> BaselineRun | None:
    """--ora-baseline's run, read now: claiming the output directory may move it to runs/."""
    from ..reports.baseline import BaselineError, load_baseline, regression_min

    if options.baseline is None:
        if options.fail_regression:
            raise pytest.UsageError("--ora-fail-regression compares with a baseline: give --ora-baseline DIR")
        return None
    # An overall's range, not a criterion's scale: four criteria on 1-10 weighted 2.5 give overalls of 10-100.
    low, high = (float(end) for end in plan.rubric.overall_span())
    if regression_min(options.regression_min, (low, high)) > high - low:
        raise pytest.UsageError(
            f"--ora-regression-min {options.regression_min} is more than the whole range of the rubric's overall "
            f"({low:g} to {high:g})"
        )
    try:
        return load_baseline(options.baseline, (low, high))
    except BaselineError as error:
        raise pytest.UsageError(str(error)) from None


def _needs_network(plan: Plan, options: Options) -> bool:
    if options.record in ("all", "new_episodes"):
        return True
    from ..judges.cassettes import cassette_path
    from .candidates.recording import CandidateRecording

    judged = [p.capture for p in plan.captures if p.status == "judge"]
    roles = {name for name, spec in (plan.bundle.manifest.candidates or {}).items() if spec.role is not None}
    if any(
        not CandidateRecording(options.cassettes, c.capture_id).path.is_file()
        for c in judged
        if c.configuration in roles
    ):
        return True  # a role candidate not yet recorded is called
    if not plan.panel.judges:
        return False
    return any(not cassette_path(options.cassettes, capture.capture_id).is_file() for capture in judged)


def _labels(plan: Plan, options: Options) -> LabelSet | PreferenceSet | None:
    """The human labels, checked against the bundle's captures and the rubric's scale; a bad line stops the run."""
    from ..bundle.labels import labels_path, read_labels

    try:
        found = labels_path(options.labels, plan.bundle.manifest.labels, plan.bundle.root)
        if found is None:
            return None
        if plan.rubric.kind == "compare":  # preference labels: bundle/preferences.py
            from ..bundle.preferences import read_preferences

            pairs = [(p.capture.capture_id, p.pair) for p in plan.captures if p.pair is not None]
            return read_preferences(found[0], found[1], pairs, configured_keys(plan.panel, os.environ))
        return read_labels(
            found[0],
            found[1],
            plan.rubric,
            {p.capture.capture_id for p in plan.captures},
            configured_keys(plan.panel, os.environ),
        )
    except IntakeError as error:
        raise pytest.UsageError(str(error).replace("capture bundle failed intake", "human labels refused", 1)) from None


def _check_recordable(directory: Path) -> None:
    """Refuse a live run whose recordings could not be written: every judge call would be paid, then lost."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        raise pytest.UsageError(
            f"cannot record judge calls in {directory}: {error.strerror or error}; "
            "choose a writable directory with --ora-cassettes"
        ) from None


def _check_roles(plan: Plan, options: Options) -> None:
    """--ora-rpm / --ora-tpm must name a role of the panel or of a role candidate (their calls are paced alike)."""
    candidates = (plan.bundle.manifest.candidates or {}).values()
    roles = sorted({judge.role for judge in plan.panel.judges} | {spec.role for spec in candidates if spec.role})
    for unit, pairs in (("rpm", options.rpm), ("tpm", options.tpm)):
        for role, _ in pairs:
            if role not in roles:
                raise pytest.UsageError(
                    f"--ora-{unit} {role}=...: no judge of the panel or role candidate has role {role!r}; "
                    f"roles: {', '.join(roles)}"
                )
