"""The panel of one judgment: `--judge LABEL=PROVIDER:MODEL[@ROUTE]`, or the rubric's panel_size judges from the keys set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from ...core.models import RoleSpec
from ...core.plan import JudgeSlot, Panel
from ...core.rubric import Rubric
from ...judges.providers import DEFAULT_KEY_ENV
from ..scaffold import InitError, parse_judge
from .data import DataError

__all__ = ["DEFAULT_MODELS", "panel_note", "panel_of"]

DEFAULT_MODELS = {"anthropic": "claude-opus-4-7", "openai": "gpt-5.4", "google": "gemini-3-pro"}
"""The judge a provider's key brings when no --judge is given, in this order."""


def _slot(text: str) -> JudgeSlot:
    try:
        role = parse_judge(text)
    except InitError as error:
        raise DataError(error.problems[0].replace("--judges", "--judge").replace("ROLE", "LABEL")) from None
    try:
        spec = RoleSpec.model_validate({"model": role.model, "provider": role.provider, "route": role.route})
    except ValidationError as error:
        raise DataError(f"--judge {text!r}: {error.errors(include_url=False)[0]['msg']}") from None
    return JudgeSlot(label=role.role, slot=role.role, role=role.role, spec=spec)


def panel_of(judges: Sequence[str], environ: Mapping[str, str], size: int) -> Panel:
    """The judges given, in order; else up to `size` (the rubric's panel_size), one per provider whose key is set,
    in DEFAULT_MODELS order; DataError when there is none."""
    if not judges:
        judges = [
            f"{provider}={provider}:{model}"
            for provider, model in DEFAULT_MODELS.items()
            if environ.get(DEFAULT_KEY_ENV[provider], "").strip()
        ][:size]
    if not judges:
        keys = ", ".join(DEFAULT_KEY_ENV[provider] for provider in DEFAULT_MODELS)
        raise DataError(f"no judge: give --judge LABEL=PROVIDER:MODEL, or set a provider's key ({keys})")
    slots = [_slot(text) for text in judges]
    labels = [slot.label for slot in slots]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise DataError(f"--judge: the label {', '.join(repeated)} is given twice; every judge needs its own label")
    return Panel(judges=tuple(slots), label=", ".join(f"{s.label}={s.spec.provider}:{s.spec.model}" for s in slots))


def panel_note(panel: Panel, rubric: Rubric) -> dict[str, Any]:
    """The result's `panel`: who judged, the rubric's panel_size, and a sentence when their number differs from it."""
    size = len(panel.judges)
    note = None
    if size != rubric.panel_size:
        note = (
            f"rubric {rubric.version} is judged by {rubric.panel_size} judge{'s' if rubric.panel_size != 1 else ''} "
            f"(panel_size); this judgment had {size}: a different panel from the rubric's, as given or as the "
            "keys set allowed"
        )
    judges = [f"{slot.label}={slot.spec.provider}:{slot.spec.model}" for slot in panel.judges]
    return {"judges": judges, "size": size, "panel_size": rubric.panel_size, "note": note}
