"""A clock the test moves by hand, for `create_app(clock=...)`: time windows pass without sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class ManualClock:
    """Now, as the test sets it: it starts at the real time and moves only by `advance`."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
