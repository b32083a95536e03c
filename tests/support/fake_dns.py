"""The fake at the DNS seam: names resolve to what a test says, with no network."""

from __future__ import annotations

from collections.abc import Sequence
from ipaddress import ip_address

from botyard.egress import IPAddress

PUBLIC = "93.184.215.14"  # a globally routable address; creation-time checks never connect to it


class FakeDns:
    def __init__(self) -> None:
        self.records: dict[str, list[str]] = {}

    def reset(self) -> None:
        self.records = {"example.com": [PUBLIC], "www.example.com": [PUBLIC]}

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]:
        host = host.lower().rstrip(".")
        answer = self.records.get(host)
        if answer is None and host.endswith(".example.com"):
            answer = [PUBLIC]
        if answer is None:
            raise OSError(f"fake DNS: {host} does not resolve")
        return [ip_address(address) for address in answer]
