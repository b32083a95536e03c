"""How an ingestion stage fails: for good (the source ends `error:<reason>`) or for now (the job is retried)."""

from __future__ import annotations

from botyard.jobs.handler import PermanentError, RetryLater


class SourceFailed(PermanentError):
    """The source cannot be processed (refused URL, unreadable file, no text): retrying will not help."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SourceRetry(RetryLater):
    """A passing failure (network, sandbox start-up); the job is retried, and `reason` is kept if it gives up."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
