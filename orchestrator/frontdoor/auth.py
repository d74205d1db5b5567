"""Credentials: the operator credential, player tokens, the tables' secret.

Every credential travels as `authorization: Bearer <secret>` metadata. Player tokens are
random (256 bits), issued at registration, and stored only as SHA-256 digests (a copy of the
store gives nobody a usable token). Comparisons are constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path

from orchestrator.frontdoor.errors import InvalidRequest, Unauthenticated

__all__ = [
    "OPERATOR_ENV",
    "bearer",
    "load_operator_credential",
    "load_player_token",
    "new_secret",
    "same_secret",
    "token_digest",
]

OPERATOR_ENV = "MTT_OPERATOR_TOKEN"
MIN_CREDENTIAL_CHARS = 16


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def same_secret(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def bearer(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The secret of `authorization: Bearer <secret>`; Unauthenticated when there is none."""
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, secret = text.partition(" ")
            if scheme.lower() == "bearer" and secret.strip():
                return secret.strip()
    raise Unauthenticated("no credential: send `authorization: Bearer <token>` metadata")


def load_operator_credential(file: str | None, environ: Mapping[str, str] = os.environ) -> str:
    """The operator credential from a file (first line) or, without one, $MTT_OPERATOR_TOKEN."""
    if file is not None:
        credential = _first_line(file, "the operator credential")
        source = file
    else:
        credential = environ.get(OPERATOR_ENV, "").strip()
        source = f"${OPERATOR_ENV}"
    if len(credential) < MIN_CREDENTIAL_CHARS:
        raise InvalidRequest(
            f"the operator credential ({source}) must be at least {MIN_CREDENTIAL_CHARS} "
            "characters: pass --operator-credential-file FILE or set "
            f"{OPERATOR_ENV}"
        )
    return credential


def load_player_token(file: str) -> str:
    """A player's token from a file whose first line is the token, as Register returned it
    (`mtt client --token FILE`)."""
    token = _first_line(file, "the player token")
    if not token:
        raise InvalidRequest(f"the player token file {file} is empty: its first line is the token")
    return token


def _first_line(file: str, what: str) -> str:
    try:
        text = Path(file).read_text(encoding="utf-8").strip().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidRequest(f"cannot read {what} {file}: {exc}") from exc
    return text[0].strip() if text else ""
