from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints
from typing_extensions import TypedDict

from botyard.schemas import RequestModel


class ApiKeyInfo(TypedDict):
    prefix: str
    created_at: str
    revoked_at: str | None


class ApiKeyCreated(ApiKeyInfo):
    key: str


class FirstAccount(ApiKeyCreated):
    email: str


class SetupClaim(RequestModel):
    token: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    email: Annotated[str, StringConstraints(min_length=3, max_length=320)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=1000)] | None = None
    """With a password, the account's owner is made a person who signs in with it (and this reply signs them in)."""
    name: Annotated[str, StringConstraints(max_length=200, strip_whitespace=True)] = ""
