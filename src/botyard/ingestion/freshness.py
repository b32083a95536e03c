"""Has a stored page changed? One conditional request (ETag / Last-Modified) and a hash of the bytes decide, so an
unchanged page costs one small request and nothing else: no parsing, no chunking, no embedding.

Used by re-scrape and by the scheduled re-sync. A page that answers 404 or 410 is counted as a miss; only the
second miss in a row marks it `error:not found` (one miss may be a deploy in progress), and the source is kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from botyard.db.base import iso, utcnow
from botyard.egress import EgressClient, EgressError, EgressHTTPError, EgressNetworkError, EgressTimeout
from botyard.egress.result import FetchResult

GONE_AFTER_MISSES = 2
_GONE = frozenset({404, 410})


@dataclass(frozen=True)
class Check:
    outcome: Literal["unchanged", "changed", "gone", "failed"]
    result: FetchResult | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    """`etag`, `last_modified`, `body_sha256` and `fetched_at` of the page as fetched now, for the next check."""
    reason: str = ""
    retry: bool = False
    """A failure worth trying again later (a timeout, a network error, a 5xx)."""


async def check_page(egress: EgressClient, url: str, known: Mapping[str, Any], max_bytes: int) -> Check:
    """Fetch `url`, conditionally when `known` (the source's meta) holds validators from an earlier fetch."""
    try:
        result = await egress.fetch(
            url, max_bytes=max_bytes, etag=known.get("etag") or None, last_modified=known.get("last_modified") or None
        )
    except EgressHTTPError as error:
        status = error.result.status
        if status in _GONE:
            return Check("gone", reason=error.reason)
        return Check("failed", reason=error.reason, retry=status >= 500 or status == 429)
    except (EgressTimeout, EgressNetworkError) as error:
        return Check("failed", reason=error.reason, retry=True)
    except EgressError as error:
        return Check("failed", reason=error.reason)
    if result.not_modified:
        return Check("unchanged", result, {"fetched_at": iso(utcnow())})
    meta: dict[str, Any] = {"body_sha256": hashlib.sha256(result.body).hexdigest(), "fetched_at": iso(utcnow())}
    if result.etag:
        meta["etag"] = result.etag
    if result.last_modified:
        meta["last_modified"] = result.last_modified
    if known.get("body_sha256") == meta["body_sha256"]:
        return Check("unchanged", result, meta)
    return Check("changed", result, meta)
