"""Which URLs a crawl takes, and the one form two URLs of the same page share.

Normalising: lower-case scheme and host, no default port, no fragment, "/" for an empty path, and no tracking
parameters (`utm_*`, `gclid`, `fbclid`...), which name the same page under endless variants. The sources the
crawl creates carry this form, so the source de-duplication and the crawl's agree.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urljoin, urlsplit, urlunsplit

from botyard.sources.links import normalise_url

_TRACKING = re.compile(
    r"^(utm_\w+|gclid|gclsrc|dclid|fbclid|msclkid|yclid|mc_cid|mc_eid|_ga|_gl|igshid|ref_src|_hsenc|_hsmi|mkt_tok)$",
    re.IGNORECASE,
)
_NOT_PAGES = re.compile(
    r"\.(png|jpe?g|gif|svg|webp|ico|bmp|css|js|mjs|map|zip|gz|tgz|tar|rar|7z|mp3|mp4|m4a|wav|ogg|webm|mov|avi|"
    r"woff2?|ttf|otf|eot|exe|dmg|iso|apk|bin)$",
    re.IGNORECASE,
)
"""Links to files no parser reads: a crawl never fetches them."""


def normalise(url: str, base: str | None = None) -> str | None:
    """`url` (resolved against `base`) in its normal form, or None when it is not an http(s) URL."""
    try:
        absolute = urljoin(base, url.strip()) if base else url.strip()
        parts = urlsplit(absolute)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            return None
        parts.port  # noqa: B018 (raises ValueError on a bad port)
    except ValueError:
        return None
    pairs = [
        (name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.match(name)
    ]
    query = urlencode(pairs, quote_via=quote, safe="/:@!$'()*,;")
    return normalise_url(urlunsplit((parts.scheme, parts.netloc, parts.path, query, "")))


def url_key(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


@dataclass(frozen=True)
class Scope:
    """Where a crawl may go: the start URL's host (unless `same_host` is off), under `path_prefix`, matching one of
    `include` (glob patterns on the path and query, e.g. `/docs/*`; none: all) and none of `exclude`."""

    host: str
    same_host: bool = True
    path_prefix: str = ""
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @classmethod
    def of(cls, start_url: str, settings: dict[str, Any]) -> Scope:
        return cls(
            host=host_of(start_url),
            same_host=bool(settings.get("same_host", True)),
            path_prefix=str(settings.get("path_prefix") or ""),
            include=tuple(settings.get("include") or ()),
            exclude=tuple(settings.get("exclude") or ()),
        )

    def admits(self, url: str) -> bool:
        parts = urlsplit(url)
        if self.same_host and (parts.hostname or "").lower() != self.host:
            return False
        if _NOT_PAGES.search(parts.path):
            return False
        if self.path_prefix and not parts.path.startswith(self.path_prefix):
            return False
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        if self.include and not any(fnmatchcase(target, pattern) for pattern in self.include):
            return False
        return not any(fnmatchcase(target, pattern) for pattern in self.exclude)
