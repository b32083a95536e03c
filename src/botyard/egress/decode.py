"""Reading a response body in bounded steps, so a size cap can stop a compression bomb before it is inflated.

httpx's own decoders inflate each network read in one go (64 KiB of gzip can become 64 MiB); ours hand out at most
`STEP` bytes at a time and `read_body` counts them against the cap.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import httpx

from botyard.egress.errors import EgressNetworkError, EgressTooLarge, Reason

STEP = 64 * 1024
ACCEPT_ENCODING = "gzip, deflate"


class _Inflater:
    """gzip (members may follow each other) or deflate (zlib-wrapped, or raw as some servers send it)."""

    def __init__(self, encoding: str) -> None:
        self._gzip = encoding in ("gzip", "x-gzip")
        self._started = False
        self._obj = self._new(zlib.MAX_WBITS | 16 if self._gzip else zlib.MAX_WBITS)

    @staticmethod
    def _new(wbits: int) -> zlib._Decompress:
        return zlib.decompressobj(wbits)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not self._started and data and not self._gzip:
            self._started = True
            try:
                zlib.decompressobj().decompress(data[:2])
            except zlib.error:
                self._obj = self._new(-zlib.MAX_WBITS)  # raw deflate, no zlib header
        yield from self._drain(data)

    def _drain(self, data: bytes) -> Iterator[bytes]:
        while True:
            out = self._obj.decompress(data, STEP)
            if out:
                yield out
            data = self._obj.unconsumed_tail
            if self._obj.eof:
                data = self._obj.unused_data
                if not (self._gzip and data):
                    return  # bytes after the end of a deflate stream are ignored, as browsers do
                self._obj = self._new(zlib.MAX_WBITS | 16)
                continue
            # A full step may leave output pending inside zlib even with no input left: ask again.
            if not data and len(out) < STEP:
                return

    def finish(self) -> Iterator[bytes]:
        tail = self._obj.flush()
        if tail:
            yield tail


class ContentDecoder:
    """Undo a response's Content-Encoding chain step by step; `identity` (or none) passes bytes through."""

    def __init__(self, content_encoding: str) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        stages: list[_Inflater] = []
        for coding in reversed(codings):  # the last coding listed was applied last, so it is undone first
            if coding == "identity":
                continue
            if coding not in ("gzip", "x-gzip", "deflate"):
                raise EgressNetworkError(f"unsupported Content-Encoding {coding!r}", Reason.UNSUPPORTED_ENCODING)
            stages.append(_Inflater(coding))
        self._stages = stages

    def decode(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of the next raw chunk, in pieces of at most `STEP` bytes per stage."""
        yield from self._through(0, data)

    def finish(self) -> Iterator[bytes]:
        """Whatever the decoders still hold at the end of the body."""
        for index, stage in enumerate(self._stages):
            for piece in stage.finish():
                yield from self._through(index + 1, piece)

    def _through(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self._stages):
            if data:
                yield data
            return
        try:
            for piece in self._stages[index].feed(data):
                yield from self._through(index + 1, piece)
        except zlib.error as exc:
            raise EgressNetworkError(f"corrupt compressed body: {exc}", Reason.BAD_ENCODING) from exc


async def read_body(response: httpx.Response, limit: int) -> bytes:
    """The decoded body, refused as soon as it passes `limit` bytes (counted after decompression)."""
    url = str(response.request.url)
    encoding = response.headers.get("content-encoding", "")
    declared = response.headers.get("content-length", "")
    if not encoding and declared.isdigit() and int(declared) > limit:
        raise EgressTooLarge(f"{url} announces {declared} bytes (cap {limit})", Reason.RESPONSE_TOO_LARGE, url=url)
    decoder = ContentDecoder(encoding)
    parts: list[bytes] = []
    size = raw_size = 0

    def take(piece: bytes) -> None:
        nonlocal size
        size += len(piece)
        if size > limit:
            raise EgressTooLarge(f"{url} sent more than {limit} bytes", Reason.RESPONSE_TOO_LARGE, url=url)
        parts.append(piece)

    async for chunk in response.aiter_raw():
        raw_size += len(chunk)
        # Compressed input that inflates to little (an endless gzip header) is still input: cap it too.
        if raw_size > limit + STEP:
            raise EgressTooLarge(f"{url} sent more than {limit} bytes", Reason.RESPONSE_TOO_LARGE, url=url)
        for piece in decoder.decode(chunk):
            take(piece)
    for piece in decoder.finish():
        take(piece)
    return b"".join(parts)
