"""The guarded client for every URL the service does not trust: each hop checked, redirects followed by hand, caps on
time and size."""

from __future__ import annotations

import asyncio
import copy
import logging
import re
import ssl
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from types import TracebackType

import httpx

from botyard.config import Settings
from botyard.egress.address import IPAddress
from botyard.egress.decode import ACCEPT_ENCODING, read_body
from botyard.egress.errors import EgressError, EgressHTTPError, EgressRefused, EgressTimeout, EgressTooLarge, Reason
from botyard.egress.policy import Allowlist, Policy, Resolver, SystemResolver, Target
from botyard.egress.result import FetchResult
from botyard.egress.transport import PinnedTransport
from botyard.egress.url import parse_url, resolve_location

log = logging.getLogger(__name__)

USER_AGENT = "Botyard/0.1"
MAX_HEADER_BYTES = 64 * 1024
MAX_REDIRECTS = 5
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"})
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Headers a caller may not set: the transport owns framing, Host must match the checked URL, and we only
# decode the encodings we ask for.
_NEVER_FORWARDED = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "te",
        "trailer",
        "upgrade",
        "proxy-authorization",
        "proxy-connection",
        "accept-encoding",
    }
)
# The only caller headers that follow a redirect to another origin: anything else may be a credential under any
# name (Authorization, Cookie, X-Api-Key, ...) that the new origin must not see.
_CROSS_ORIGIN_SAFE = frozenset({"accept", "accept-language", "user-agent"})
_USERINFO = re.compile(r"//[^/?#]*@")
_Body = tuple[object, bytes | None]
"""What a request sends: (`json`, `content`)."""


@dataclass(frozen=True)
class EgressLimits:
    """Time and size caps of one fetch."""

    connect_timeout: float
    read_timeout: float
    total_timeout: float
    """Wall-clock cap on the whole fetch, DNS and redirects included: the only defence against a slow trickle."""
    max_bytes: int
    max_header_bytes: int = MAX_HEADER_BYTES
    max_redirects: int = MAX_REDIRECTS

    @classmethod
    def from_settings(cls, settings: Settings) -> EgressLimits:
        return cls(
            connect_timeout=settings.egress_connect_timeout,
            read_timeout=settings.egress_read_timeout,
            total_timeout=settings.egress_total_timeout,
            max_bytes=settings.egress_max_response_bytes,
        )


class EgressClient:
    """The one guarded HTTP client for URLs the service does not trust: sources, tool calls, links in documents.

    Built once (in the app lifespan). Each fetch checks every hop against the policy, connects only to the checked
    addresses and uses its own connection pool, closed when the fetch ends, so no connection outlives its check.
    """

    def __init__(
        self, settings: Settings, resolver: Resolver | None = None, *, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        self._policy = Policy(
            allowlist=Allowlist.parse(settings.egress_allowlist),
            ports=settings.egress_allowed_ports,
            resolver=resolver or SystemResolver(),
        )
        self._limits = EgressLimits.from_settings(settings)
        # No environment: SSL_CERT_FILE and friends are configuration, and only Settings holds configuration.
        self._ssl = ssl_context or httpx.create_ssl_context(trust_env=False)
        limits = self._limits
        self._timeout = httpx.Timeout(limits.read_timeout, connect=limits.connect_timeout, pool=limits.connect_timeout)
        self._closed = False

    def configure(self, allowlist: Sequence[str], ports: Sequence[int]) -> None:
        """Follow a change of the allowlist and ports (`egress_allowlist`, `egress_allowed_ports`) without a restart;
        ValueError for a bad allowlist entry, before anything changes."""
        self._policy.configure(allowlist=Allowlist.parse(allowlist), ports=ports)

    async def check_url(self, url: str) -> str:
        """Check `url` as a fetch would (syntax, scheme, port, DNS, addresses) and return its canonical form.

        Raises EgressRefused when the policy refuses it, EgressNetworkError ("dns failure") or EgressTimeout when
        its host cannot be resolved now. Redirects are checked only when fetching.
        """
        async with self._deadline(url):
            target = await self._policy.check(parse_url(url))
        return str(target.parsed.url)

    async def check_server(self, host: str, port: int) -> None:
        """Check a server of another protocol that an account gave (an email channel's IMAP or SMTP server) as a
        fetch's host is checked: no private, loopback or link-local address unless the operator's allowlist has it,
        a name that resolves to one answered as one that does not resolve. Its port is the protocol's own.

        Raises EgressRefused or EgressNetworkError ("dns failure"), as `check_url` does."""
        url = f"https://{host}:{port}/"
        async with self._deadline(url):
            await self._policy.check(parse_url(url), any_port=True)

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        json: object = None,
        content: bytes | None = None,
        params: Mapping[str, str] | None = None,
        max_bytes: int | None = None,
        etag: str | None = None,
        last_modified: str | None = None,
        hide: str | None = None,
    ) -> FetchResult:
        """Fetch `url`, following up to 5 redirects, each hop checked; raise an EgressError on any failure.

        `json` (if not None) is sent as the JSON body, `content` as the body byte for byte (a signed webhook);
        `etag`/`last_modified` make the request conditional (a 304 comes back as a result with `not_modified`). A
        4xx/5xx final status raises EgressHTTPError. `hide`: a secret the URL carries (Telegram's bot token is in
        its path), shown as `***` wherever the URL is logged or raised.
        """
        if self._closed:
            raise RuntimeError("EgressClient is closed")
        method = method.upper()
        if method not in METHODS:
            raise ValueError(f"method {method!r} is not supported")
        limit = self._limits.max_bytes if max_bytes is None else max_bytes
        sent = _caller_headers(headers)
        for name, value in (("If-None-Match", etag), ("If-Modified-Since", last_modified)):
            if value:
                sent[name] = value
        async with self._deadline(url, hide):
            result = await self._fetch(url, method, sent, (json, content), params, limit)
        if result.status >= 400:
            raise _hidden(EgressHTTPError(result), hide)
        return result

    def with_limits(self, limits: EgressLimits) -> EgressClient:
        """A client with the same policy (allowlist, ports, resolver) and other caps: webhooks want short timeouts
        and no redirects."""
        other = copy.copy(self)
        other._limits = limits
        other._timeout = httpx.Timeout(limits.read_timeout, connect=limits.connect_timeout, pool=limits.connect_timeout)
        return other

    async def aclose(self) -> None:
        """Refuse further fetches (each fetch closes its own connections when it ends)."""
        self._closed = True

    async def __aenter__(self) -> EgressClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    @asynccontextmanager
    async def _deadline(self, url: str, hide: str | None = None) -> AsyncIterator[None]:
        shown = _USERINFO.sub("//", url if not hide else url.replace(hide, "***"))[:200]
        try:
            async with asyncio.timeout(self._limits.total_timeout):
                yield
        except TimeoutError as exc:
            message = f"{shown} took longer than {self._limits.total_timeout:g}s"
            raise EgressTimeout(message, Reason.TIMEOUT, url=shown) from exc
        except EgressError as exc:
            _hidden(exc, hide)
            log.info("egress refused or failed: %s (%s)", exc.reason, exc.url or shown)
            if exc.url is None:
                exc.url = shown
            raise

    async def _fetch(
        self, url: str, method: str, sent: httpx.Headers, out: _Body, params: Mapping[str, str] | None, limit: int
    ) -> FetchResult:
        parsed = parse_url(url)
        if params:
            parsed = replace(parsed, url=parsed.url.copy_merge_params(params))
        target = await self._policy.check(parsed)
        pins: dict[tuple[str, int], Sequence[IPAddress]] = {}
        client = httpx.AsyncClient(
            transport=PinnedTransport(pins, self._ssl),
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
            timeout=self._timeout,
            trust_env=False,
            follow_redirects=False,
        )
        async with client:
            request = client.build_request(method, target.parsed.url, headers=sent, json=out[0], content=out[1])
            redirects: list[str] = []
            seen = {(method, str(target.parsed.url))}
            while True:
                pins[target.key] = target.addresses
                response = await _send(client, request)
                try:
                    self._check_headers(response)
                    location = response.headers.get("location")
                    if response.status_code not in _REDIRECT_STATUSES or location is None:
                        body = b"" if request.method == "HEAD" else await read_body(response, limit)
                        return FetchResult(
                            url=str(request.url),
                            status=response.status_code,
                            headers=response.headers,
                            body=body,
                            redirects=tuple(redirects),
                        )
                finally:
                    await response.aclose()
                redirects.append(str(request.url))
                if len(redirects) > self._limits.max_redirects:
                    message = f"more than {self._limits.max_redirects} redirects"
                    raise EgressRefused(message, Reason.TOO_MANY_REDIRECTS, url=str(request.url))
                previous = target
                target = await self._policy.check(resolve_location(request.url, location))
                request, sent = _next_request(client, request, response.status_code, previous, target, sent)
                if (request.method, str(request.url)) in seen:
                    raise EgressRefused(f"redirect loop at {request.url}", Reason.REDIRECT_LOOP, url=str(request.url))
                seen.add((request.method, str(request.url)))

    def _check_headers(self, response: httpx.Response) -> None:
        size = sum(len(name) + len(value) + 4 for name, value in response.headers.raw)
        if size > self._limits.max_header_bytes:
            url = str(response.request.url)
            raise EgressTooLarge(f"{url} sent {size} bytes of headers", Reason.HEADERS_TOO_LARGE, url=url)


async def _send(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    """`client.send`, with the one failure of the client library itself made an egress error: httpx parses a redirect's
    Location on its own (for `Response.next_request`, even when it follows no redirect) before we check it, and one
    it cannot parse (`http://[::1`) would escape as its protocol error, failing a whole crawl or answer. It is the
    same refusal as our own check of a Location gives (`resolve_location`): nothing was sent to it, and trying
    again would meet the same Location. Failures of the connection itself are the transport's (`transport`)."""
    try:
        return await client.send(request, stream=True)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        url = str(request.url)
        raise EgressRefused(f"{url} redirected to an invalid URL", Reason.INVALID_URL, url=url) from exc


def _hidden(error: EgressError, hide: str | None) -> EgressError:
    """`error` with the secret `hide` masked in its message and URL."""
    if hide:
        error.message = error.message.replace(hide, "***")
        error.args = (error.message,)
        if error.url is not None:
            error.url = error.url.replace(hide, "***")
    return error


def _caller_headers(headers: Mapping[str, str] | None) -> httpx.Headers:
    allowed = {name: value for name, value in (headers or {}).items() if name.lower() not in _NEVER_FORWARDED}
    return httpx.Headers(allowed)


def _next_request(
    client: httpx.AsyncClient,
    request: httpx.Request,
    status: int,
    previous: Target,
    target: Target,
    sent: httpx.Headers,
) -> tuple[httpx.Request, httpx.Headers]:
    """The request a redirect asks for, and the caller headers that may go on following it."""
    if previous.parsed.origin != target.parsed.origin:
        # Dropped for good: a later hop back to the first origin does not get them back either.
        sent = httpx.Headers([(name, value) for name, value in sent.multi_items() if name in _CROSS_ORIGIN_SAFE])
    if status in (307, 308):
        method, content = request.method, request.content
    else:
        # 301/302/303: what browsers do, a GET without the body (HEAD stays HEAD).
        method, content = ("HEAD" if request.method == "HEAD" else "GET"), None
    headers = sent.copy()
    content_type = request.headers.get("content-type")
    if content and content_type:
        headers["Content-Type"] = content_type
    next_request = client.build_request(method, target.parsed.url, headers=headers, content=content or None)
    return next_request, sent
