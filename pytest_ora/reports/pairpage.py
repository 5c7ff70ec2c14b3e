"""label.html for a compare bundle: a person chooses the better of two answers, side by side, blind.

The page offers a seeded sample of the compare items (entry and configuration pair). Each item's two
answers are shown as Answer 1 and Answer 2 in a seeded random order that the page records (`shown`:
first-second or second-first); configuration names are withheld from the answers as the judges'
packets withhold them. The download is the preference-label lines --ora-labels reads:
`{capture_id, rater, winner: first | second | tie, shown, notes}`, the winner already mapped back from
the order shown to the pair's first and second configuration.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
from html import escape
from importlib.resources import files
from string import Template
from typing import Any

from ..core.blind import blind_names, withhold
from ..core.plan import Plan, PlannedCapture

__all__ = ["pair_label_page", "shown_order"]


def shown_order(seed: int, capture_id: str) -> str:
    """The order a pair's answers are shown in, seeded per item: first-second or second-first."""
    return "second-first" if random.Random(f"{seed}:shown:{capture_id}").random() < 0.5 else "first-second"


def _item(planned: PlannedCapture, number: int, seed: int) -> dict[str, Any]:
    assert planned.partner is not None
    capture, partner = planned.capture, planned.partner
    names = blind_names(capture, partner)
    answers = (withhold(capture.answer, names), withhold(partner.answer, names))
    shown = shown_order(seed, capture.capture_id)
    if shown == "second-first":
        answers = answers[::-1]
    return {
        "id": capture.capture_id,
        "number": number,
        "prompt": withhold(capture.prompt, names),
        "answers": list(answers),
        "shown": shown,
    }


def _asset(name: str) -> str:
    return files("pytest_ora.reports").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def pair_label_page(plan: Plan, size: int, seed: int) -> tuple[str, int]:
    """The page's HTML and how many pairs it holds (raises ValueError without a judgeable pair)."""
    pool = [p for p in plan.captures if p.pair is not None and p.partner is not None and p.status == "judge"]
    if not pool:
        raise ValueError("no compare item a judge would see (every pair is excluded or unscorable)")
    chosen = pool if size >= len(pool) else random.Random(f"{seed}:sample:pairs").sample(pool, size)
    chosen = list(chosen)
    random.Random(f"{seed}:order").shuffle(chosen)
    items = [_item(p, n, seed) for n, p in enumerate(chosen, start=1)]
    bundle = plan.bundle.manifest.bundle
    key = hashlib.sha256(json.dumps([bundle, plan.rubric.digest, [i["id"] for i in items]]).encode()).hexdigest()[:16]
    data = {
        "bundle": bundle,
        "rubric": plan.rubric.version,
        "task": plan.rubric.task or "",
        "seed": seed,
        "storage_key": f"pytest-ora-preferences:{bundle}:{key}",
        "pairs": items,
        "population": len(pool),
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    script = _asset("label-pair.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    page = Template(_asset("label-pair.html")).substitute(
        bundle=escape(bundle),
        rubric_version=escape(plan.rubric.version),
        rubric_title=escape(plan.rubric.title),
        count=len(items),
        population=len(pool),
        seed=seed,
        script_hash=f"sha256-{digest}",
        css=_asset("label.css"),
        js=script,
        data=text,
    )
    return page, len(items)
