"""label.html: one self-contained, offline page on which a person scores a seeded sample.

The sample is stratified by configuration (each configuration's share of the judgeable captures,
largest remainders, at least one capture from every configuration while N allows) and shuffled,
so the configurations are interleaved. Blind by default: no configuration, no model snapshot and
no judge score is on screen. Each capture shows what its judges are shown (the packet: prompt,
context, answer, specification, artifact), beside the rubric's criteria, questions, anchors and
scale. Everything from the bundle travels as JSON data, rendered by the page's own script as text
only (never as HTML); the Content-Security-Policy lets that one script run, by its hash, and
nothing else load. Progress is kept in the browser (localStorage); a button downloads
labels.jsonl in the --ora-labels format.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from html import escape
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Any

from ..bundle.intake import intake
from ..core.errors import OraError
from ..core.plan import Plan, PlannedCapture
from ..core.safewrite import write_files
from ..core.strictjson import StrictJsonError, unique_pairs
from ..judges.packet import build_packet
from ..method.kinds.scores.kind import scale_values

__all__ = ["DEFAULT_SAMPLE", "LABEL_PAGE", "LabelPageError", "label_page", "stratified_sample", "write_label_page"]

LABEL_PAGE = "label.html"
DEFAULT_SAMPLE = 50
MAX_RADIOS = 21
"""A scale with more points than this is entered as a number, not as a row of buttons."""
MAX_IMAGE_BYTES = 2_000_000


class LabelPageError(OraError, ValueError):
    """The page cannot be written as asked (no bundle, an empty sample, unreadable results)."""


@dataclass(frozen=True)
class Sampled:
    planned: PlannedCapture
    judges: tuple[dict[str, Any], ...] = ()


def _judgeable(plan: Plan) -> list[PlannedCapture]:
    """Captures a judge would score: accepted, in the scored set, with their specification (intake has already
    excluded every secret-bearing capture)."""
    return [p for p in plan.captures if p.status == "judge"]


def stratified_sample(
    captures: Sequence[PlannedCapture], configurations: Sequence[str], size: int, seed: int
) -> list[PlannedCapture]:
    """`size` captures (all, if fewer), each configuration in proportion to its share, then shuffled; seeded."""
    strata: dict[str, list[PlannedCapture]] = {name: [] for name in configurations}
    for planned in captures:
        strata.setdefault(planned.capture.configuration, []).append(planned)
    strata = {name: members for name, members in strata.items() if members}
    total = sum(len(members) for members in strata.values())
    if size >= total:
        chosen = [p for members in strata.values() for p in members]
    else:
        exact = {name: Fraction(size * len(members), total) for name, members in strata.items()}
        counts = {name: int(share) for name, share in exact.items()}
        if size >= len(strata):  # every configuration gets one before any gets a second
            for name in counts:
                counts[name] = max(counts[name], 1)
        # Largest remainders, table order breaking ties, until the sample is full (or trimmed back to size).
        order = sorted(strata, key=lambda name: (-(exact[name] - int(exact[name])), list(strata).index(name)))
        while sum(counts.values()) < size:
            for name in order:
                if sum(counts.values()) < size and counts[name] < len(strata[name]):
                    counts[name] += 1
        while sum(counts.values()) > size:
            largest = max(counts, key=lambda name: (counts[name], -list(strata).index(name)))
            counts[largest] -= 1
        chosen = []
        for name, members in strata.items():
            chosen += random.Random(f"{seed}:sample:{name}").sample(members, counts[name])
    random.Random(f"{seed}:order").shuffle(chosen)
    return chosen


def _scale(rubric: Any) -> dict[str, Any]:
    low, high = Fraction(rubric.scale_min), Fraction(rubric.scale_max)
    step = Fraction(rubric.scale_step) if rubric.scale_step is not None else Fraction(1)
    # the values intake accepts in a labels file (multiples of a declared step), never a grid of the page's own
    values = [float(value) for value in scale_values(rubric, MAX_RADIOS)]
    return {
        "min": float(low),
        "max": float(high),
        "step": float(step),
        "step_declared": rubric.scale_step is not None,
        "values": values,
    }


def _rubric(rubric: Any) -> dict[str, Any]:
    return {
        "version": rubric.version,
        "title": rubric.title,
        "task": rubric.task or "",
        "scale": _scale(rubric),
        "anchors": [[f"{a.low}-{a.high}" if a.low != a.high else str(a.low), a.meaning] for a in rubric.anchors],
        "criteria": [
            {"name": c.name, "title": c.title, "question": c.question, "anchors": [list(a) for a in c.anchors]}
            for c in rubric.criteria
        ],
    }


def _capture(sampled: Sampled, root: Path, rubric: Any, blind: bool, number: int) -> dict[str, Any]:
    capture = sampled.planned.capture
    packet, image = build_packet(capture, root, rubric)
    artifact = None
    if packet.artifact is not None:
        artifact = {"path": packet.artifact.path, "kind": packet.artifact.kind, "text": packet.artifact.text}
        if (
            image is not None
            and len(image) <= MAX_IMAGE_BYTES
            and packet.artifact.media_type in ("image/png", "image/jpeg", "image/gif", "image/webp")
        ):
            artifact["image"] = f"data:{packet.artifact.media_type};base64,{base64.b64encode(image).decode('ascii')}"
    item: dict[str, Any] = {
        "id": capture.capture_id,  # needed in labels.jsonl; blind means not shown, and the page never shows it
        "number": number,
        "entry_key": capture.entry_key,
        "target": packet.target,
        "prompt": packet.prompt,
        "context": packet.context,
        "answer": packet.answer,
        "specification": packet.specification,
        "specification_source": packet.specification_source,
        "artifact": artifact,
    }
    if not blind:
        item["configuration"] = capture.configuration
        item["judges"] = list(sampled.judges)
    return item


def _judge_scores(results: Path, rubric: Any) -> dict[str, tuple[dict[str, Any], ...]]:
    """capture id -> each judge's scores, from an --ora-out directory's ledger.jsonl (unblinded pages only)."""
    path = results / "ledger.jsonl"
    found: dict[str, tuple[dict[str, Any], ...]] = {}
    if not path.is_file():  # a stat: a FIFO is refused without blocking on it
        raise LabelPageError(f"{path}: no ledger here (give an --ora-out directory with --results)")
    number = 0
    try:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                row = json.loads(line, object_pairs_hook=unique_pairs)
                judges = row.get("judges") if isinstance(row, dict) else None
                if (
                    not isinstance(row, dict)
                    or not isinstance(row.get("capture_id"), str)
                    or not isinstance(judges, list)
                    or not all(isinstance(j, dict) and isinstance(j.get("scores"), dict) for j in judges)
                ):
                    raise LabelPageError(
                        f"{path}:{number}: not a ledger row (capture_id text, judges a list of objects "
                        "with scores); give the ledger.jsonl a run wrote"
                    )
                found[row["capture_id"]] = tuple(
                    {
                        "label": str(j.get("label")),
                        "scores": {n: _shown(j["scores"].get(n)) for n in rubric.names},
                        "overall": _shown(j.get("overall")),
                    }
                    for j in judges
                )
    except LabelPageError:
        raise
    except StrictJsonError as error:
        raise LabelPageError(f"{path}:{number}: field {error.field}: given twice in one row") from None
    except UnicodeDecodeError as error:
        raise LabelPageError(f"{path}:{number + 1}: is not UTF-8 (byte {error.start} of the file)") from None
    except (OSError, ValueError) as error:
        raise LabelPageError(f"{path}:{number}: cannot read the ledger ({error})") from None
    return found


def _shown(value: Any) -> float | None:
    """A judge's number for the page; anything else (text, an object) is not shown."""
    return (
        float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        else None
    )


def _script(name: str) -> str:
    return files("pytest_ora.reports").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _script_json(data: Mapping[str, Any]) -> str:
    """JSON that cannot close its <script> element: <, > and & are written as escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def label_page(
    root: Path,
    size: int = DEFAULT_SAMPLE,
    seed: int = 0,
    *,
    rubric_option: tuple[str, Path] | None = None,
    blind: bool = True,
    results: Path | None = None,
) -> tuple[str, int]:
    """The page's HTML and how many items (captures, or pairs for a compare rubric) it holds."""
    page, count, _ = _label_page(root, size, seed, rubric_option=rubric_option, blind=blind, results=results)
    return page, count


def _label_page(
    root: Path,
    size: int,
    seed: int,
    *,
    rubric_option: tuple[str, Path] | None = None,
    blind: bool = True,
    results: Path | None = None,
) -> tuple[str, int, str]:
    """The page's HTML, how many items it holds and what they are ("captures", or "pairs" for a compare rubric)."""
    plan = intake(root, (), None, rubric_option)
    if plan.rubric.kind == "compare":  # a pair side by side: reports/pairpage.py
        from .pairpage import pair_label_page

        try:
            page, count = pair_label_page(plan, size, seed)
        except ValueError as error:
            raise LabelPageError(f"{root}: {error}") from None
        return page, count, "pair" if count == 1 else "pairs"
    if plan.rubric.kind != "scores":
        raise LabelPageError(
            f"rubric {plan.rubric.version} is kind {plan.rubric.kind}: the labelling page scores "
            "kind: scores rubrics (criteria on a scale)"
        )
    pool = _judgeable(plan)
    if not pool:
        raise LabelPageError(f"{root}: no capture a judge would score (every capture is excluded or unscorable)")
    chosen = stratified_sample(pool, plan.bundle.manifest.configurations, size, seed)
    scores = _judge_scores(results, plan.rubric) if results is not None and not blind else {}
    sampled = [Sampled(p, scores.get(p.capture.capture_id, ())) for p in chosen]
    items = [_capture(s, plan.bundle.root, plan.rubric, blind, n) for n, s in enumerate(sampled, start=1)]
    key = hashlib.sha256(
        json.dumps([plan.bundle.manifest.bundle, plan.rubric.digest, [i["id"] for i in items]]).encode()
    ).hexdigest()[:16]
    data = {
        "bundle": plan.bundle.manifest.bundle,
        "rubric": _rubric(plan.rubric),
        "blind": blind,
        "seed": seed,
        "storage_key": f"pytest-ora-labels:{plan.bundle.manifest.bundle}:{key}",
        "captures": items,
        "population": len(pool),
    }
    script = _script("label.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    page = Template(_script("label.html")).substitute(
        bundle=escape(plan.bundle.manifest.bundle),
        rubric_version=escape(plan.rubric.version),
        rubric_title=escape(plan.rubric.title),
        count=len(items),
        population=len(pool),
        seed=seed,
        blind="blind: no configuration and no judge score is shown" if blind else "NOT blind: configurations shown",
        script_hash=f"sha256-{digest}",
        css=_script("label.css"),
        js=script,
        data=_script_json(data),
    )
    return page, len(items), "capture" if len(items) == 1 else "captures"


def write_label_page(
    directory: Path, size: int = DEFAULT_SAMPLE, seed: int = 0, **options: Any
) -> tuple[Path, int, str]:
    """DIR/label.html for the bundle in DIR (or DIR/bundle, as `init` lays a suite out); its path, item count and unit."""
    root = directory
    if not (root / "bundle.yaml").is_file() and (directory / "bundle" / "bundle.yaml").is_file():
        root = directory / "bundle"
    if not (root / "bundle.yaml").is_file():
        raise LabelPageError(f"{directory}: no bundle.yaml here (give a capture bundle directory)")
    page, count, unit = _label_page(root, size, seed, **options)
    # Replaced whole, never written through a symbolic link named label.html to a file elsewhere.
    (target,) = write_files(directory, {LABEL_PAGE: page}, replace={LABEL_PAGE})
    return target, count, unit
