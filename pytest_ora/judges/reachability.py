"""Intake step 4: before any capture is judged live, each judge must answer a cheap check."""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from ..core.credentials import redact, safe_route
from ..core.errors import UnreachableJudge
from ..core.plan import JudgeSlot, Panel
from .providers import api_key_for, client_for, key_env_for, missing_extra, secrets_for

__all__ = ["check_reachable", "missing_keys"]


def missing_keys(panel: Panel, environ: Mapping[str, str]) -> list[str]:
    """The key variables a live run needs but the environment lacks (loopback routes need none)."""
    missing = []
    for judge in panel.judges:
        host = httpx.URL(judge.spec.route).host
        local = host in {"127.0.0.1", "localhost", "::1"}
        extra = missing_extra(judge.spec)
        if extra is not None:
            missing.append(
                f"{judge.label} ({judge.spec.model}) needs the optional extra {extra} (pip install '{extra}')"
            )
        elif not local and api_key_for(judge.spec, environ) is None:
            missing.append(f"{judge.label} ({judge.spec.model}) needs {key_env_for(judge.spec)}")
    return missing


def check_reachable(panel: Panel, environ: Mapping[str, str], timeout: float = 20.0) -> None:
    """Raise UnreachableJudge naming every judge that cannot be reached or rejects its key."""
    failures = []
    with httpx.Client(timeout=timeout, trust_env=False) as client:
        for judge in panel.judges:
            reason = _probe(client, judge, environ)
            if reason:
                failures.append(
                    f"{judge.label} (role {judge.role}, model {judge.spec.model}, {safe_route(judge.spec.route)}): {reason}"
                )
    if failures:
        raise UnreachableJudge(
            "judging stopped before any capture was judged: "
            + "; ".join(failures)
            + ". Fix the route or key, or start a new scoring run with an explicit --ora-substitute and --ora-panel-label"
        )


def _probe(client: httpx.Client, judge: JudgeSlot, environ: Mapping[str, str]) -> str | None:
    provider = client_for(judge.spec)
    key = api_key_for(judge.spec, environ)
    try:
        response = client.send(provider.reachability_request(judge.spec, key))
    except httpx.HTTPError as error:
        return f"not reachable ({type(error).__name__})"
    if response.is_success:
        return None
    message = provider.error_message(response)
    if key:
        message = redact(message, secrets_for(judge.spec, environ))
    elif response.status_code in (401, 403):
        # A loopback route needs no key unless its server asks for one: then say which variable.
        message = f"{message[:240]} ({key_env_for(judge.spec)} is not set)"
    return f"HTTP {response.status_code}: {message[:300]}"
