"""Candidate answers recorded under --ora-cassettes and replayed without calling the candidate.

A role candidate's HTTP exchange is in its own cassette, as a judge's is; beside it (and alone for
Python and command candidates) `_candidates/<family>/<technique>/<configuration>.json` keeps the
request's digests, field by field, and the answer object: a changed prompt, system, params or
candidate definition is drift, named by field.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ...core.candidates import CandidateSpec
from ...core.errors import CorruptCassette, MissingCassette, PacketDrift
from ...core.models import Capture, RoleSpec
from .answer import CandidateAnswer

__all__ = ["CANDIDATES_DIR", "CANDIDATE_CALLS_DIR", "CandidateRecording", "request_digests"]

CANDIDATES_DIR = "_candidates"
"""Not a family slug (those start with a letter or digit): never a judge cassette's directory."""
CANDIDATE_CALLS_DIR = "_candidate_calls"
"""Role candidates' HTTP exchanges: `_candidate_calls/<family>/<technique>/<configuration>.json`, vcrpy cassettes."""


def _digest(value: Any) -> str:
    canonical = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def request_digests(capture: Capture, spec: CandidateSpec, role: RoleSpec | None = None) -> dict[str, str]:
    """The digest of each part of the candidate's request, of its definition, and of a role candidate's role."""
    definition = spec.model_dump(exclude={"system", "params"}, exclude_none=True)
    role_digest = {} if role is None else {"role": _digest(role.model_dump(mode="json", exclude_none=True))}
    repeat = {} if capture.repeat is None else {"repeat": _digest(capture.repeat)}
    return (
        role_digest
        | repeat
        | {
            "prompt": _digest(capture.prompt),
            "context": _digest(capture.context),
            "messages": _digest(None if capture.messages is None else [turn.model_dump() for turn in capture.messages]),
            "metadata": _digest(capture.metadata),
            "system": _digest(spec.system),
            "params": _digest(None if spec.params is None else spec.params.model_dump(exclude_none=True)),
            "candidate": _digest(definition),
        }
    )


class CandidateRecording:
    """One capture's recorded candidate answer."""

    def __init__(self, directory: Path, capture_id: str) -> None:
        entry_key, _, configuration = capture_id.partition("/")
        family, _, technique = entry_key.partition(":")
        self.path = directory / CANDIDATES_DIR / family / technique / f"{configuration}.json"
        self.capture_id = capture_id

    def read(self) -> dict[str, Any] | None:
        """The recording, or None when there is none; CorruptCassette when it cannot be read."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            raise CorruptCassette(
                f"the candidate recording {self.path} cannot be read: {error}", capture_id=self.capture_id
            ) from None
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("request"), dict)
            or not isinstance(data.get("answer"), dict)
        ):
            raise CorruptCassette(f"the candidate recording {self.path} is not a recording", capture_id=self.capture_id)
        return data

    def drifted(self, data: dict[str, Any], digests: dict[str, str]) -> list[str]:
        """The request's parts that differ from the recorded ones."""
        recorded = data["request"]
        return sorted(name for name in digests if recorded.get(name) != digests[name])

    def replayed(self, data: dict[str, Any]) -> CandidateAnswer:
        return CandidateAnswer.from_json(data["answer"])

    def missing(self) -> MissingCassette:
        return MissingCassette(
            f"no recorded candidate answer for {self.capture_id} (expected {self.path}); record it with "
            "--ora-record once",
            capture_id=self.capture_id,
        )

    def drift(self, fields: list[str]) -> PacketDrift:
        named = ", ".join(f"candidate field {name!r}" for name in fields)
        return PacketDrift(
            f"the candidate recording {self.path} was recorded for a different candidate request than "
            f'{self.capture_id} sends now ({named}): re-record with --ora-record new_episodes -k "{self.capture_id}"',
            capture_id=self.capture_id,
        )

    def write(self, digests: dict[str, str], answer: CandidateAnswer, secrets: list[str]) -> None:
        """Written atomically; refused (not written) when it would hold a configured credential."""
        text = (
            json.dumps(
                {"capture_id": self.capture_id, "request": digests, "answer": answer.to_json()},
                ensure_ascii=False,
                indent=1,
                sort_keys=True,
            )
            + "\n"
        )
        if any(secret and secret in text for secret in secrets):
            raise CorruptCassette(
                f"the candidate answer of {self.capture_id} holds a configured API key: not recorded",
                capture_id=self.capture_id,
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
