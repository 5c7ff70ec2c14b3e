"""A blind packet (the rubric says blind) names no configuration: paths, notes and texts neutralized.

Withholding the configuration and model snapshot fields is not enough: a bundle names its
artifacts and specs by configuration (`artifacts/lane-zulu/diagram.svg`), a harness writes its
lane into the acceptance notes, an answer may sign itself. In a blind packet:

- the artifact's path is `artifact<suffix>` (its kind, media type and digest stay);
- the specification source is shown only when it is the entry's default path
  (`specs/<family>/<technique>.md`, shared by every configuration), else `(withheld: blind packet)`;
- the acceptance notes are empty;
- the texts (prompt, answer, context, ...) are the capture's as written: the answer the judges
  score is the one the model wrote. A capture whose own text (answer, context) names its
  configuration or model is reported (ledger `names_itself`, methodology.md, the terminal), not
  rewritten;
- only a rubric with `blind: strict` rewrites texts: every text the judge reads (prompt, answer,
  context, specification, artifact text, gold standard, the kind's material) has each
  configuration name and model snapshot id of the capture replaced by `[withheld]`, matched whole
  and case-insensitively, and the ledger counts the replacements (`withheld`).

A packet whose texts name nothing is unchanged, byte for byte, by this module.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from .models import Capture
from .rubric import Rubric

__all__ = [
    "WITHHELD",
    "artifact_path",
    "blind_names",
    "blindness",
    "names_itself",
    "specification_source",
    "withheld_count",
    "withhold",
    "withhold_all",
]

WITHHELD = "[withheld]"
WITHHELD_SOURCE = "(withheld: blind packet)"
_MIN_NAME = 3
"""Shorter names ("a", "on") are ordinary words: replacing them would rewrite the answer, not hide a lane."""


def blind_names(*captures: Capture) -> tuple[str, ...]:
    """The names a blind packet must not carry: each capture's configuration (both of a compared pair) and model ids."""
    names: set[str] = set()
    for capture in captures:
        names.update(part for part in capture.configuration.split("+"))
        names.update(capture.model_snapshot.values())
    return tuple(sorted((name for name in names if len(name) >= _MIN_NAME), key=lambda name: (-len(name), name)))


def _pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    if not names:
        return None
    alternatives = "|".join(re.escape(name) for name in names)  # longest first: a name inside another never wins
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.IGNORECASE)


def blindness(rubric: Rubric) -> str:
    """How blind the packets are, in words, for the header."""
    if rubric.blind_strict:
        return "blind packets (strict: names in the texts withheld)"
    if rubric.blind:
        return "blind packets (texts as written)"
    return "NOT blind: packets name each answer's configuration and model (the rubric's blind: false)"


def names_itself(*captures: Capture) -> list[str]:
    """The configuration names and model ids that the captures' own texts (answer, context) carry, as given."""
    pattern = _pattern(blind_names(*captures))
    if pattern is None:
        return []
    texts = [text for capture in captures for text in (capture.answer, capture.context) if text]
    found = {match.group(0).casefold() for text in texts for match in pattern.finditer(text)}
    return [name for name in blind_names(*captures) if name.casefold() in found]


def withheld_count(*captures: Capture) -> int:
    """How many names `blind: strict` replaces in the captures' prompt, answer and context."""
    pattern = _pattern(blind_names(*captures))
    if pattern is None:
        return 0
    texts = [text for capture in captures for text in (capture.prompt, capture.answer, capture.context) if text]
    return sum(len(pattern.findall(text)) for text in texts)


def withhold(text: str, names: tuple[str, ...]) -> str:
    """text with every whole occurrence of a name replaced by [withheld]."""
    pattern = _pattern(names)
    return text if pattern is None else pattern.sub(WITHHELD, text)


def withhold_all(value: Any, names: tuple[str, ...]) -> Any:
    """Every string inside value (dicts, lists) withheld likewise; other values unchanged."""
    if isinstance(value, str):
        return withhold(value, names)
    if isinstance(value, dict):
        return {key: withhold_all(item, names) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(withhold_all(item, names) for item in value)
    return value


def artifact_path(path: str) -> str:
    """The name a blind packet gives an artifact: its suffix only."""
    return "artifact" + PurePosixPath(path).suffix.lower()


def specification_source(capture: Capture) -> str:
    """The spec path when it is the entry's default (it names no configuration), else withheld."""
    default = f"specs/{capture.family}/{capture.technique}.md"
    return capture.spec_path if capture.spec_path == default else WITHHELD_SOURCE
