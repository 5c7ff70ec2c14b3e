"""A capture bundle as read from disk, before intake decides what gets judged."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .models import BundleManifest, Capture, OptimumSnapshot

__all__ = ["Bundle", "CaptureLine"]


@dataclass(frozen=True, slots=True)
class CaptureLine:
    """A capture and the line of captures.jsonl it came from."""

    capture: Capture
    line: int
    secret: tuple[str, str] | None = None
    """(field, kind of credential) of the first credential-shaped text among the capture's own fields,
    found while the line was read whole (its texts are read again only when needed, core.fastload)."""


@dataclass(frozen=True)
class Bundle:
    """A bundle as read from disk, before intake decides what gets judged."""

    root: Path
    manifest: BundleManifest
    optimum: OptimumSnapshot
    captures: tuple[CaptureLine, ...]
