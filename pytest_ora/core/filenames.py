"""The one rule from a capture's names to file names (cassettes/, packets/, judges/): safe, distinct, short.

A family, technique or configuration that is a short lowercase slug is its own file name, as it
always was. Any other name (300 characters, capitals that a case-insensitive disk would merge with
another name, letters that one disk stores decomposed and another composed) becomes a readable
prefix and a digest of its NFC form: always under the file system's 255-byte limit, never equal to
another name's, and the same for a name typed composed or decomposed. Only file names change:
every output shows the names as given.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

__all__ = ["MAX_PLAIN_NAME", "capture_relpath", "file_stem"]

MAX_PLAIN_NAME = 100
"""Longest name used as a file name as it is (a configuration's file also carries `.judge-x.json`)."""
_PLAIN = re.compile(r"[a-z0-9][a-z0-9+_-]*")  # "+": a compared pair, `a+b`
_OTHER = re.compile(r"[^a-z0-9]+")


def file_stem(name: str) -> str:
    """`name` as one file or folder name: itself when short, lowercase and plain (letters, digits, - _ +), else `<prefix>~<digest>`."""
    if len(name) <= MAX_PLAIN_NAME and _PLAIN.fullmatch(name):
        return name
    composed = unicodedata.normalize("NFC", name)
    prefix = _OTHER.sub("-", composed.lower()).strip("-")[:40] or "name"
    # "~" is never in a plain name: a digested name cannot equal one.
    return f"{prefix}~{hashlib.sha256(composed.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def capture_relpath(capture_id: str, suffix: str) -> Path:
    """<family>/<technique>/<configuration><suffix> for `family:technique/configuration`, each name through file_stem."""
    entry_key, _, configuration = capture_id.rpartition("/")
    family, _, technique = entry_key.partition(":")
    return Path(file_stem(family)) / file_stem(technique) / f"{file_stem(configuration)}{suffix}"
