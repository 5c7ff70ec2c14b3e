"""AWS credentials from botocore's standard chain, and SigV4 signing of a request (the optional extra pytest-ora[bedrock]).

botocore is imported only when a bedrock role needs credentials: the core install does not carry it.
The credentials cross the provider interface as one packed string (access key id, secret access
key, session token, one per line), so every part can be redacted and none is ever shown.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...core.credentials import Secret
from ...core.errors import OraError

if TYPE_CHECKING:
    import httpx

__all__ = ["EXTRA", "available", "packed_credentials", "region_of", "sign", "unpack"]

EXTRA = "pytest-ora[bedrock]"
_ENV_NAMES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
_REGION = re.compile(r"^bedrock-runtime(?:-fips)?\.(?P<region>[a-z0-9-]+)\.amazonaws\.com$")
_DEFAULT_REGION = "us-east-1"
_lock = threading.Lock()
_chain: list[Any] = []
"""The credentials botocore's full chain found (at most one entry), resolved once per process: the chain
may ask an instance's metadata service, and refreshable credentials refresh themselves."""


def available() -> bool:
    """Whether botocore is installed."""
    return importlib.util.find_spec("botocore") is not None


def _botocore() -> None:
    if not available():
        raise OraError(f"provider bedrock signs its calls with botocore: install {EXTRA} (pip install '{EXTRA}')")


def packed_credentials(environ: Mapping[str, str], chain: bool = True) -> Secret | None:
    """The credentials as `access key id\\nsecret access key\\nsession token`, or None when none are found.

    AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN) in `environ` come first;
    otherwise botocore's chain (profiles, SSO, container and instance roles), unless `chain` is False
    (a replay, which must not refresh credentials over the network). Without botocore, None: a replay
    needs no credentials, and a live run names the missing extra before any call.
    """
    access, secret = environ.get("AWS_ACCESS_KEY_ID", "").strip(), environ.get("AWS_SECRET_ACCESS_KEY", "").strip()
    if access and secret:
        return Secret("\n".join((access, secret, environ.get("AWS_SESSION_TOKEN", "").strip())))
    if not chain or not available():
        return None
    frozen = _from_chain()
    if frozen is None or not frozen.access_key or not frozen.secret_key:
        return None
    return Secret("\n".join((frozen.access_key, frozen.secret_key, frozen.token or "")))


def _from_chain() -> Any:
    """Frozen credentials from botocore's chain (refreshed when they expire), or None."""
    import botocore.session

    with _lock:
        if not _chain:
            _chain.append(botocore.session.Session().get_credentials())
        found = _chain[0]
    return found.get_frozen_credentials() if found is not None else None


def unpack(packed: str) -> tuple[str, str, str]:
    """(access key id, secret access key, session token or '') from the packed form."""
    access, _, rest = str.__str__(packed).partition("\n")
    secret, _, token = rest.partition("\n")
    return access, secret, token


def region_of(host: str, environ: Mapping[str, str] | None = None) -> str:
    """The region a bedrock-runtime host names; else AWS_REGION / AWS_DEFAULT_REGION, else us-east-1."""
    if match := _REGION.match(host):
        return match.group("region")
    environ = environ or {}
    return environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or _DEFAULT_REGION


def sign(request: httpx.Request, packed: str, service: str, region: str) -> None:
    """Add SigV4 headers (Authorization, X-Amz-Date, X-Amz-Security-Token) to `request`, signed by botocore."""
    _botocore()
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    access, secret, token = unpack(packed)
    signed = AWSRequest(
        method=request.method,
        url=str(request.url),
        data=request.content,
        headers={"content-type": request.headers.get("content-type", "application/json")},
    )
    SigV4Auth(Credentials(access, secret, token or None), service, region).add_auth(signed)
    for name, value in signed.headers.items():
        if name.lower() in ("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"):
            request.headers[name] = value if isinstance(value, str) else value.decode("ascii")
