from __future__ import annotations

from typing_extensions import TypedDict


class SsoInfo(TypedDict):
    """Whether the sign-in page offers single sign-on, its button's label, and what each refusal tells the person."""

    enabled: bool
    name: str
    start: str
    refusals: dict[str, str]
