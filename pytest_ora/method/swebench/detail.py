"""Where a deterministic mode writes its detailed JSON: beside the response file, `run_` replaced by the mode's prefix."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ...core.errors import OraError

__all__ = ["detail_path", "write_detail"]


def detail_path(response_file: Path, prefix: str) -> Path:
    """`run_1.json` -> `swebench_judge_1.json` (or `gt_judge_1.json`) in the same directory.

    Only the file name changes (a `run_` in a directory name is left alone); a name without `run_`
    gets the prefix in front, so the response file itself is never overwritten.
    """
    name = response_file.name
    renamed = name.replace("run_", prefix, 1) if "run_" in name else prefix + name
    return response_file.with_name(renamed)


def write_detail(path: Path, detail: dict[str, Any]) -> None:
    """The detailed JSON, written whole (a temporary file renamed into place) or not at all."""
    text = json.dumps(detail, indent=2, ensure_ascii=False) + "\n"
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except OSError as error:
        raise OraError(f"{path}: cannot write the detailed scores ({error.strerror or error})") from None
