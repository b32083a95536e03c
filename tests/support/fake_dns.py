"""The fake at the DNS seam: names resolve to what a test says, with no network."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from ipaddress import ip_address

from botyard.egress import IPAddress

PUBLIC = "93.184.215.14"  # a globally routable address; creation-time checks never connect to it


class FakeDns:
    def __init__(self) -> None:
        self.records: dict[str, list[str]] = {}
        self.holds: dict[str, threading.Event] = {}
        self.waiting: set[str] = set()
        """Held names a lookup is waiting for now."""

    def reset(self) -> None:
        self.records = {"example.com": [PUBLIC], "www.example.com": [PUBLIC]}
        for gate in self.holds.values():
            gate.set()
        self.holds = {}

    def hold(self, host: str) -> threading.Event:
        """Lookups of `host` wait (without blocking the event loop) until the returned event is set: a slow DNS."""
        gate = self.holds[host] = threading.Event()
        return gate

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]:
        host = host.lower().rstrip(".")
        gate = self.holds.get(host)
        if gate is not None:
            self.waiting.add(host)
            await asyncio.to_thread(gate.wait, 60)  # a thread waits; the event loop goes on
            self.waiting.discard(host)
        answer = self.records.get(host)
        if answer is None and host.endswith(".example.com"):
            answer = [PUBLIC]
        if answer is None:
            raise OSError(f"fake DNS: {host} does not resolve")
        return [ip_address(address) for address in answer]
