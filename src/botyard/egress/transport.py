"""The pinned connection layer: an httpx transport whose sockets only ever go to addresses the policy checked.

httpx keeps the URL's host name (so the Host header, TLS SNI and certificate verification all use the name), and
httpcore asks its network backend to connect to that name. Our backend never resolves it: it looks the (host, port)
up in the pins the policy filled for this fetch and connects to those addresses, or refuses. A rebinding DNS server
gets asked once, by the policy, and its second answer is never used.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TypeVar

import h11
import httpcore
import httpx

from botyard.egress.address import IPAddress
from botyard.egress.errors import EgressNetworkError, EgressRefused, EgressTimeout, EgressTooLarge, Reason

# httpcore's type for socket options (httpcore._backends.base.SOCKET_OPTION), restated to avoid a private import.
SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
Pins = Mapping[tuple[str, int], Sequence[IPAddress]]
E = TypeVar("E", bound=BaseException)


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects to the pinned addresses of a (host, port), never to anything else, and never resolves names."""

    def __init__(self, pins: Pins, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._pins = pins
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = self._pins.get((host, port))
        if not addresses:
            # Only reachable through a bug: fail closed rather than let the inner backend resolve the name.
            raise EgressRefused(f"{host}:{port} was not checked", Reason.UNCHECKED_HOST)
        failure: httpcore.ConnectError | None = None
        for ip in addresses:
            try:
                return await self._inner.connect_tcp(str(ip), port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise EgressRefused("unix sockets are not allowed", Reason.UNCHECKED_HOST)

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class PinnedTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 over `PinnedBackend`, no proxies, no retries; httpcore errors become egress errors."""

    def __init__(self, pins: Pins, ssl_context: ssl.SSLContext) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            network_backend=PinnedBackend(pins),
            http1=True,
            http2=False,
            retries=0,
            max_connections=4,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        url = str(request.url)
        with mapped_errors(url):
            response = await self._pool.handle_async_request(core_request)
        assert isinstance(response.stream, AsyncIterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream, url),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, stream: AsyncIterable[bytes], url: str) -> None:
        self._stream = stream
        self._url = url

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with mapped_errors(self._url):
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            await close()


@contextmanager
def mapped_errors(url: str) -> Iterator[None]:
    """Translate httpcore's exceptions into the egress tree."""
    try:
        yield
    except httpcore.TimeoutException as exc:
        raise EgressTimeout(f"timed out talking to {url}", Reason.TIMEOUT, url=url) from exc
    except httpcore.RemoteProtocolError as exc:
        cause = _cause(exc, h11.RemoteProtocolError)
        if cause is not None and cause.error_status_hint == 431:
            # h11 stops buffering an unfinished header block at 100 KiB (httpcore's setting).
            raise EgressTooLarge(f"{url} sent endless headers", Reason.HEADERS_TOO_LARGE, url=url) from exc
        raise EgressNetworkError(f"{url} broke the HTTP protocol: {exc}", Reason.PROTOCOL_ERROR, url=url) from exc
    except httpcore.ConnectError as exc:
        if _cause(exc, ssl.SSLError) is not None:
            raise EgressNetworkError(f"TLS failed for {url}: {exc}", Reason.TLS_ERROR, url=url) from exc
        raise EgressNetworkError(f"could not connect to {url}: {exc}", Reason.CONNECTION_FAILED, url=url) from exc
    except httpcore.NetworkError as exc:
        raise EgressNetworkError(f"connection to {url} failed: {exc}", Reason.CONNECTION_FAILED, url=url) from exc
    except httpcore.ProtocolError as exc:
        raise EgressNetworkError(f"HTTP protocol error with {url}: {exc}", Reason.PROTOCOL_ERROR, url=url) from exc


def _cause(exc: BaseException, kind: type[E]) -> E | None:
    """The first exception of type `kind` in `exc`'s chain (httpcore sets the cause or only the context)."""
    seen: BaseException | None = exc
    for _ in range(16):  # exception chains can be cyclic
        if seen is None or isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
