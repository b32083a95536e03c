from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict

from botyard.schemas import RequestModel

Schedule = Literal["off", "daily", "weekly"]


class SyncUpdate(RequestModel):
    schedule: Schedule


class Sync(TypedDict):
    chatbot_uuid: str
    schedule: str
    next_run_at: str | None
    last_run_at: str | None
    last_summary: dict[str, Any]
    """`checked`, `unchanged`, `changed`, `gone`, `failed` and `skipped` (unchanged by the sitemap's `<lastmod>`); or
    `error`, the reason, when the run failed for good (the next run is queued all the same)."""
