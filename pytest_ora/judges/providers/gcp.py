"""Google Application Default Credentials as an access token (the optional extra pytest-ora[vertex]).

google-auth is imported only when a vertex role needs a token: the core install does not carry it.
The credentials are found once per process and refreshed when their token expires.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Mapping
from typing import Any

from ...core.credentials import Secret
from ...core.errors import OraError

__all__ = ["EXTRA", "SCOPE", "adc_token", "available"]

EXTRA = "pytest-ora[vertex]"
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_lock = threading.Lock()
_found: list[Any] = []
"""The credentials google.auth.default() found (at most one entry; None when it found none)."""


def available() -> bool:
    """Whether google-auth (with its requests transport) is installed."""
    return importlib.util.find_spec("google.auth") is not None and importlib.util.find_spec("requests") is not None


def adc_token(environ: Mapping[str, str]) -> Secret | None:
    """A current access token from Application Default Credentials, or None when there are none (or no google-auth).

    `environ` is not consulted: google-auth reads GOOGLE_APPLICATION_CREDENTIALS and gcloud's
    configuration itself. A live run without google-auth names the missing extra before any call.
    """
    del environ
    if not available():
        return None
    import google.auth
    import google.auth.exceptions
    import google.auth.transport.requests

    with _lock:
        if not _found:
            try:
                credentials, _ = google.auth.default(scopes=[SCOPE])
            except google.auth.exceptions.DefaultCredentialsError:
                credentials = None
            _found.append(credentials)
        credentials = _found[0]
        if credentials is None:
            return None
        if not credentials.valid:
            try:
                credentials.refresh(google.auth.transport.requests.Request())
            except google.auth.exceptions.GoogleAuthError as error:
                raise OraError(
                    f"Application Default Credentials could not give a token: {type(error).__name__}"
                ) from None
        token = credentials.token
    return Secret(token) if token else None
