"""Human labels: a JSONL file of people's scores on the rubric, checked like a judge reply.

One object per line: `{capture_id, rater, scores: {<criterion>: number}, notes}`. A label is held
to the rules a judge's reply is held to (every criterion once, on the rubric's scale and step, no
other name); it must name a capture of the bundle, and a rater labels a capture once. Every bad
line is a usage error naming the file, the line and the field: a label is never guessed or
rounded onto the scale.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..core.errors import IntakeError, Problem, show_value
from ..core.paths import BundlePathError, bundle_file
from ..core.strictjson import StrictJsonError, strict_loads
from ..method.kinds.scores.kind import check_scale

__all__ = ["LABEL_FIELDS", "HumanLabel", "LabelSet", "check_label", "json_lines", "labels_path", "read_labels"]

LABEL_FIELDS = ("capture_id", "rater", "scores", "notes")
MAX_LABEL_LINE = 1 << 20
"""Longest line read (1 MiB): a label is a few scores and a note."""


@dataclass(frozen=True)
class HumanLabel:
    """One rater's scores of one capture, as the exact decimals written."""

    capture_id: str
    rater: str
    scores: tuple[tuple[str, str], ...]
    """(criterion, the number as written), in the rubric's criterion order."""
    line: int

    def score_map(self) -> dict[str, str]:
        return dict(self.scores)


@dataclass(frozen=True)
class LabelSet:
    """A checked labels file: its name as the user gave it, and its labels in file order."""

    source: str
    labels: tuple[HumanLabel, ...]

    @property
    def raters(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(label.rater for label in self.labels))

    def by_capture(self) -> dict[str, list[HumanLabel]]:
        grouped: dict[str, list[HumanLabel]] = {}
        for label in self.labels:
            grouped.setdefault(label.capture_id, []).append(label)
        return grouped


def labels_path(option: tuple[str, Path] | None, manifest_labels: str | None, root: Path) -> tuple[Path, str] | None:
    """The labels file to read and the name to report it by: --ora-labels / ini first, else bundle.yaml's `labels:`.

    `labels:` in bundle.yaml is a path inside the bundle: nothing outside it is read because the bundle names it.
    """
    if option is not None:
        text, base = option
        path = Path(text).expanduser()
        return (path if path.is_absolute() else base / path), text
    if manifest_labels is None:
        return None
    try:
        return bundle_file(root, manifest_labels), manifest_labels
    except FileNotFoundError:
        raise IntakeError(
            [
                Problem(
                    "bundle.yaml",
                    "names a labels file that does not exist",
                    field="labels",
                    value=show_value(manifest_labels),
                    fix="give a JSONL file inside the bundle",
                )
            ]
        ) from None
    except BundlePathError as error:
        raise IntakeError(
            [
                Problem(
                    "bundle.yaml",
                    f"names a labels file that {error}",
                    field="labels",
                    value=show_value(manifest_labels),
                    fix="give a JSONL file inside the bundle",
                )
            ]
        ) from None


def check_label(data: Any, rubric: Any, captures: Collection[str]) -> tuple[HumanLabel | None, str | None, str | None]:
    """A label from one parsed line, or (None, field, why it is refused)."""
    if not isinstance(data, dict):
        return None, None, "is not a JSON object"
    unknown = sorted(set(data) - set(LABEL_FIELDS))
    if unknown:
        return None, unknown[0], f"is not a label field (a label holds {', '.join(LABEL_FIELDS)})"
    for name in ("capture_id", "rater"):
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            return None, name, f"must be a non-empty string (got {show_value(value) if name in data else 'nothing'})"
    if data["capture_id"] not in captures:
        return None, "capture_id", f"names no capture of this bundle (got {show_value(data['capture_id'])})"
    scores = data.get("scores")
    if not isinstance(scores, dict):
        return (
            None,
            "scores",
            f"must be an object of criterion: number (got {show_value(scores) if 'scores' in data else 'nothing'})",
        )
    for name, value in scores.items():
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, Decimal))
            or (isinstance(value, Decimal) and not value.is_finite())
        ):
            return None, f"scores.{name}", f"must be a number (got {show_value(value)})"
    problem = check_scale(scores, rubric)
    if problem is not None:
        return None, problem.field, f"{problem.reason} (got {problem.value})"
    notes = data.get("notes")
    if (
        notes is not None
        and not isinstance(notes, str)
        and not (isinstance(notes, dict) and all(isinstance(v, str) for v in notes.values()))
    ):
        return None, "notes", "must be text, or an object of criterion: text"
    ordered = tuple((name, str(scores[name])) for name in rubric.names)
    return HumanLabel(str(data["capture_id"]), str(data["rater"]).strip(), ordered, 0), None, None


def _lines(path: Path, name: str) -> Iterable[tuple[int, bytes]]:
    try:
        stream = path.open("rb")
    except FileNotFoundError:
        raise IntakeError(
            [Problem(name, "does not exist", fix="--ora-labels names a JSONL file of human labels")]
        ) from None
    except OSError as error:
        raise IntakeError([Problem(name, f"cannot be read ({error.strerror or error})")]) from None
    with stream:
        yield from enumerate(stream, start=1)


def json_lines(
    path: Path,
    name: str,
    problems: list[Problem],
    *,
    max_line: int,
    what: str,
    secrets: Collection[str] = (),
) -> Iterator[tuple[int, Any]]:
    """Each JSON line of a labels file as (line number, value); a bad line is added to `problems`, never yielded.

    A line is bad when it is too long, not UTF-8, not strict JSON, or holds the value of a configured
    API key (the key never shown: a rater's name or a note reaches stats.json and the report).
    """
    needles = [str.__str__(secret).encode("utf-8") for secret in secrets if secret]
    for number, data in _lines(path, name):
        if number == 1 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        if not data.strip():
            continue

        def problem(message: str, field: str | None = None, line: int = number) -> None:
            problems.append(Problem(name, message, line=line, field=field))

        if len(data) > max_line:
            problem(f"is {len(data)} bytes long (more than {max_line}): not {what}")
            continue
        try:
            parsed = strict_loads(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            problem(f"is not UTF-8 at byte {error.start} of the line")
            continue
        except StrictJsonError as error:
            problem(f"is not valid JSON: {error}", error.field)
            continue
        except json.JSONDecodeError as error:
            problem(f"is not valid JSON: {error.msg} at column {error.colno}")
            continue
        if any(needle in data for needle in needles):
            problem(
                "holds the value of a configured API key, which would be written to the report; remove it "
                "(and rotate the key)",
                _field_holding(parsed, needles),
            )
            continue
        yield number, parsed


def read_labels(
    path: Path, name: str, rubric: Any, captures: Collection[str], secrets: Collection[str] = ()
) -> LabelSet:
    """Every label of the file, checked; IntakeError listing each bad line (file, line, field).

    A line holding the value of a configured API key (`secrets`: a rater named by the key) is refused,
    the key never shown: a rater's name reaches stats.json and the report.
    """
    if not path.is_file():
        what = "does not exist" if not path.exists() else "is not a regular file"
        raise IntakeError([Problem(name, what, fix="--ora-labels names a JSONL file of human labels")])
    if getattr(rubric, "kind", "scores") != "scores":
        raise IntakeError(
            [
                Problem(
                    name,
                    f"human labels calibrate judges' scores; rubric {rubric.version} is kind {rubric.kind}",
                    fix="use labels with a kind: scores rubric",
                )
            ]
        )
    problems: list[Problem] = []
    labels: list[HumanLabel] = []
    seen: dict[tuple[str, str], int] = {}
    for number, parsed in json_lines(path, name, problems, max_line=MAX_LABEL_LINE, what="a label", secrets=secrets):

        def problem(message: str, field: str | None = None, capture_id: str | None = None, line: int = number) -> None:
            problems.append(Problem(name, message, line=line, field=field, capture_id=capture_id))

        label, field, why = check_label(parsed, rubric, captures)
        if label is None:
            capture = (
                parsed.get("capture_id")
                if isinstance(parsed, dict) and isinstance(parsed.get("capture_id"), str)
                else None
            )
            problem(str(why), field, capture)
            continue
        key = (label.capture_id, label.rater)
        if key in seen:
            problem(
                f"rater {label.rater!r} already labelled this capture on line {seen[key]}", "rater", label.capture_id
            )
            continue
        seen[key] = number
        labels.append(HumanLabel(label.capture_id, label.rater, label.scores, number))
    if problems:
        raise IntakeError(problems)
    if not labels:
        raise IntakeError(
            [Problem(name, "holds no label", fix="write one JSON object per line: capture_id, rater, scores, notes")]
        )
    return LabelSet(name, tuple(labels))


def _field_holding(parsed: Any, needles: Collection[bytes]) -> str | None:
    """The label field whose text holds a key (rater, capture_id, notes...), for the message."""
    if isinstance(parsed, dict):
        for key, value in parsed.items():
            text = json.dumps([key, value], ensure_ascii=False, default=str).encode("utf-8")
            if any(needle in text for needle in needles):
                return (
                    str(key) if not any(needle in str(key).encode("utf-8") for needle in needles) else "(a field name)"
                )
    return None


def label_rows(labels: Iterable[HumanLabel]) -> list[Mapping[str, Any]]:
    """Labels as plain rows (for a child process and for tests)."""
    return [{"capture_id": label.capture_id, "rater": label.rater, "scores": label.score_map()} for label in labels]
