"""Credential-shaped text in a capture: found before any packet is built, never shown.

A capture whose text holds something shaped like a provider API key, a private key block or a
bearer token is never sent to a judge: intake excludes it with reason `secret-bearing input`,
naming the field and the kind of credential, never its value. The shapes are the providers'
documented key formats; a loose pattern here would exclude honest answers, a missed one would
send a key to a third party, so each pattern needs the prefix and a realistic length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..core.models import Capture
from ..core.pngtext import PNG_SIGNATURE, PngTextError, png_texts
from ..core.vocabulary import SECRET_REASON

__all__ = [
    "SHAPES",
    "capture_texts",
    "file_secret",
    "find_secret",
    "redact_shapes",
    "secret_in",
    "secret_reason",
    "text_secret",
]

SHAPES: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (name, re.compile(pattern), hints)
    for name, pattern, hints in (
        # (what it is, its shape, literals one of which it contains: a cheap test before the regex)
        # Order matters: the specific sk- prefixes name their provider before the generic one.
        ("an Anthropic API key", r"sk-ant-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
        ("an OpenRouter API key", r"sk-or-[A-Za-z0-9_-]{20,}", ("sk-or-",)),
        # After a word character "sk-" is a slug's tail (risk-assessment-...), not a key.
        ("an OpenAI API key", r"(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}", ("sk-",)),
        ("a Google API key", r"AIza[0-9A-Za-z_-]{35}", ("AIza",)),
        (
            "a GitHub token",
            r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        ),
        (
            "an AWS access key id",
            r"(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}(?![A-Z0-9])",
            ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA"),
        ),
        ("a Slack token", r"xox[abposr]-[A-Za-z0-9-]{10,}", ("xox",)),
        ("a Stripe secret key", r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}", ("k_live_", "k_test_")),
        ("a Hugging Face token", r"hf_[A-Za-z0-9]{30,}", ("hf_",)),
        ("a Groq API key", r"gsk_[A-Za-z0-9]{40,}", ("gsk_",)),
        ("an xAI API key", r"xai-[A-Za-z0-9]{40,}", ("xai-",)),
        ("a Google OAuth access token", r"ya29\.[0-9A-Za-z_-]{20,}", ("ya29.",)),
        ("a password in a URL", r"://[^\s:/@]+:[^\s:/@]{3,}@[^\s/@]+", ("://",)),
        ("a private key block", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", ("PRIVATE KEY",)),
        ("a JSON Web Token", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", ("eyJ",)),
        # A bearer credential: the scheme word, then a token with a digit in it (prose says
        # "bearer tokens", never "Bearer 9f2c...").
        (
            "a bearer token",
            r"(?i:\bbearer)\s+(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{16,}=*",
            ("Bearer", "bearer", "BEARER"),
        ),
    )
)


_HINTS = tuple(dict.fromkeys(hint for _, _, hints in SHAPES for hint in hints))
"""Every shape's literals: text holding none of them holds no credential shape."""


def secret_in(text: str) -> str | None:
    """The kind of the first credential shape in text ("an Anthropic API key"), or None."""
    for hint in _HINTS:  # most text holds none: one substring search each, no regex
        if hint in text:
            break
    else:
        return None
    for name, pattern, hints in SHAPES:
        if any(hint in text for hint in hints) and pattern.search(text):
            return name
    return None


def redact_shapes(text: str) -> str:
    """text with every credential-shaped part replaced by [redacted].

    A field path names keys, and a key may itself be a token (`model_snapshot: {"ghp_...": ...}`):
    every path or value a message shows goes through this first.
    """
    if secret_in(text) is None:
        return text
    for _, pattern, hints in SHAPES:
        if any(hint in text for hint in hints):
            text = pattern.sub("[redacted]", text)
    return text


def _leaves(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string under value (keys included), with its dotted path (credential-shaped keys redacted in it)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            where = f"{path}.{redact_shapes(str(key))}"
            yield where, str(key)
            yield from _leaves(item, where)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}.{index}")


def capture_texts(capture: Capture) -> Iterator[tuple[str, str]]:
    """(field, text) for every text field of the capture a packet or a scorer could carry."""
    data = capture.model_dump(mode="json", exclude={"entry_key", "configuration", "cost_usd", "wall_clock_minutes"})
    for name, value in data.items():
        yield from _leaves(value, name)


def _read_text(root: Path, relative: str) -> str | None:
    path = Path(relative)
    if path.is_absolute() or ".." in path.parts:
        return None  # never read outside the bundle because the bundle names it
    try:
        data = (root / path).read_bytes()
    except OSError:
        return None
    if data.startswith(PNG_SIGNATURE):
        return "\x00".join(png_texts(data))  # PngTextError: the caller refuses what it cannot scan
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def find_secret(capture: Capture, root: Path, files: dict[str, str | None] | None = None) -> tuple[str, str] | None:
    """(field, kind of credential) of the first credential-shaped text of the capture, its spec or text artifact.

    `files` caches each bundle file's finding (specs are shared by many captures); unreadable
    or binary files find nothing here (intake reports them on their own).
    """
    return text_secret(capture) or file_secret(capture, root, files)


def text_secret(capture: Capture) -> tuple[str, str] | None:
    """(field, kind of credential) of the first credential-shaped text among the capture's own fields."""
    # One pass over all of the capture's text first (NUL never matches a shape, so no match spans
    # two fields); only a capture with a hit is searched field by field to name the field.
    texts = list(capture_texts(capture))
    if secret_in("\x00".join(text for _, text in texts)) is not None:
        for field, text in texts:
            found = secret_in(text)
            if found is not None:
                return field, found
    return None


def file_secret(capture: Capture, root: Path, files: dict[str, str | None] | None = None) -> tuple[str, str] | None:
    """(field, kind of credential) of the first credential-shaped text of the capture's spec, host mode spec or text artifact."""
    cache = {} if files is None else files
    for field, relative in (
        ("spec", capture.spec_path),
        ("target", capture.host_spec_path),
        ("visual_artifact", capture.visual_artifact),
    ):
        if relative is None:
            continue
        if relative not in cache:
            try:
                content = _read_text(root, relative)
            except PngTextError as error:
                cache[relative] = f"an image whose text chunks cannot be scanned ({error})"
            else:
                cache[relative] = None if content is None else secret_in(content)
        kind = cache[relative]
        if kind is not None:
            return f"{field} ({relative})", kind
    return None


def secret_reason(field: str, kind: str) -> str:
    """The exclusion reason: names the field (its path redacted) and the kind of credential, never the value."""
    return f"{SECRET_REASON}: field '{redact_shapes(field)}' holds text shaped like {kind}; never sent to a judge"
