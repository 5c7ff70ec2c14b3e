"""References to documents that are not in the repository (the contract by its name or section, a source document by its number), found in text."""

from __future__ import annotations

import re

CITATION = re.compile(r"\bSPEC\b|\b[Ss]eeds? ?0\d\d\b|\b[Ss]ections? \d+\b|\bPhases? \d")
"""A citation: SPEC (not SPECIFICATION), seed NNN, section N, Phase N."""

KEPT: tuple[str, ...] = ()
"""Citations left where they stand, and why."""


def citations(text: str) -> list[str]:
    """Each line of text that cites such a document, outside the phrases kept on purpose."""
    for phrase in KEPT:
        text = text.replace(phrase, "")
    return [line.strip()[:200] for line in text.splitlines() if CITATION.search(line)]
