"""The public API and the schema command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest_ora


def test_the_public_api_is_short_and_every_name_resolves() -> None:
    assert sorted(pytest_ora.__all__) == [
        "Capture",
        "CassetteError",
        "IntakeError",
        "InvalidReplyError",
        "JudgeError",
        "JudgeReply",
        "JudgmentFailed",
        "JudgmentResult",
        "LedgerRow",
        "MissingCassette",
        "ORA_V1",
        "OraError",
        "PacketDrift",
        "Plan",
        "PlannedCapture",
        "Rubric",
        "Scores",
        "SummaryRow",
        "TransportError",
        "UnreachableJudge",
        "__version__",
        "combine",
        "intake",
        "judge",
    ]
    for name in pytest_ora.__all__:
        assert getattr(pytest_ora, name) is not None


def test_schemas_are_printed_for_bundle_producers_and_judges() -> None:
    capture = json.loads(subprocess.check_output([sys.executable, "-m", "pytest_ora", "schema", "capture"]))
    reply = json.loads(subprocess.check_output([sys.executable, "-m", "pytest_ora", "schema", "reply"]))

    assert set(capture["required"]) == {"entry_key", "configuration", "prompt", "answer"}  # acceptance: ora-1.0 only
    assert reply["properties"]["scores"]["required"] == [
        "fidelity",
        "soundness",
        "completeness",
        "relevance",
        "calibration",
    ]
