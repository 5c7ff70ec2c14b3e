"""Where a run's judges are: a provider's API, or this machine (whose calls are priced, never paid)."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..core.plan import JudgeSlot, Plan

__all__ = [
    "CANDIDATE_SPEND_HEADING",
    "LOCAL_SPEND_HEADING",
    "LOOPBACK_HOSTS",
    "SPEND_HEADING",
    "all_local",
    "is_loopback",
    "spend_heading",
]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def is_loopback(judge: JudgeSlot) -> bool:
    """Whether the judge's route is this machine (or a private network address), not a provider's API."""
    import ipaddress

    host = urlsplit(judge.spec.route).hostname or ""  # as RoleSpec checked the route: never empty there
    if host in LOOPBACK_HOSTS or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


SPEND_HEADING = "Judge spend (live calls this run, tokens x price)"
LOCAL_SPEND_HEADING = (
    "Judge spend: nothing paid (every judge is on this machine); what these live calls would "
    "cost at the named models' prices (tokens x price)"
)


CANDIDATE_SPEND_HEADING = (
    "Candidate spend (answers made live this run, apart from the judges': tokens x price for "
    "role candidates, as reported by Python and command candidates)"
)


def all_local(plan: Plan) -> bool:
    """Every judge of the panel is on this machine (or a private address): its calls cost nothing at the provider."""
    return bool(plan.panel.judges) and all(is_loopback(judge) for judge in plan.panel.judges)


def spend_heading(plan: Plan) -> str:
    """What a run's judge spend is: money paid, or (judges on this machine) a price that was not paid."""
    return LOCAL_SPEND_HEADING if all_local(plan) else SPEND_HEADING
