"""The egress policy: resolve a parsed URL's host once and decide whether its addresses and port may be used.

The addresses that pass are returned in a `Target`, and the connection layer connects to those and nothing else,
so a second DNS answer (DNS rebinding) can never change where the request goes.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network, ip_address
from typing import Protocol

from botyard.config import setting_name
from botyard.egress.address import IPAddress, canonical, parse_network, why_not_global
from botyard.egress.errors import EgressNetworkError, EgressRefused, Reason
from botyard.egress.url import ParsedURL

log = logging.getLogger(__name__)

_HOST_ENTRY = re.compile(r"[a-z0-9_-]{1,63}(\.[a-z0-9_-]{1,63})*")
ALLOWLIST = setting_name("egress_allowlist", "Allowed hosts")
PORTS = setting_name("egress_allowed_ports", "Allowed ports")
"""The settings that lift a refusal, named in its message: the operator reads there what to change."""


class Resolver(Protocol):
    """Turns a host name into addresses. The one DNS seam: tests inject a fake one."""

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]:
        """Every address `host` resolves to (raise OSError, or return nothing, when it does not resolve)."""
        ...


class SystemResolver:
    """The operating system's resolver (getaddrinfo, run off the event loop)."""

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]:
        """Every address getaddrinfo returns for `host`, in its order."""
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
        # sockaddr[0] is the address text; an IPv6 scope ("fe80::1%eth0") parses too and is refused as link-local.
        return [ip_address(str(info[4][0])) for info in infos]


@dataclass(frozen=True)
class Allowlist:
    """Operator-approved hosts and networks: reachable even when private, on any port."""

    hosts: frozenset[str]
    networks: tuple[IPv4Network | IPv6Network, ...]

    @classmethod
    def parse(cls, entries: Iterable[str]) -> Allowlist:
        """Read entries like `10.0.0.0/8`, `127.0.0.1`, `::1` or `intranet.example` (exact name, no wildcards).

        ValueError on a bad entry, and on `0.0.0.0/0` or `::/0`: there is no global "off".
        """
        hosts: set[str] = set()
        networks: list[IPv4Network | IPv6Network] = []
        for raw in entries:
            entry = raw.strip().lower()
            if not entry:
                continue
            network = parse_network(entry)
            if network is not None and network.prefixlen == 0:
                raise ValueError(f"egress allowlist entry {raw!r} would switch the address check off")
            if network is not None:
                networks.append(network)
            elif _HOST_ENTRY.fullmatch(entry.rstrip(".")):
                hosts.add(entry.rstrip("."))
            else:
                raise ValueError(f"egress allowlist entry {raw!r} is neither a host name nor an address/CIDR")
        return cls(frozenset(hosts), tuple(networks))

    def has_host(self, host: str) -> bool:
        return host.rstrip(".") in self.hosts

    def has_address(self, ip: IPAddress) -> bool:
        return any(ip in network for network in self.networks)


@dataclass(frozen=True)
class Target:
    """A URL that passed every check, with the only addresses its connection may use."""

    parsed: ParsedURL
    addresses: tuple[IPAddress, ...]

    @property
    def key(self) -> tuple[str, int]:
        """How the connection layer asks for this target: (host as in the URL, port)."""
        return (self.parsed.host, self.parsed.port)


class Policy:
    """Allowed ports, the operator allowlist and the resolver, applied to one URL at a time."""

    def __init__(self, *, allowlist: Allowlist, ports: Iterable[int], resolver: Resolver) -> None:
        self._allowlist = allowlist
        self._ports = frozenset(ports)
        self._resolver = resolver

    def configure(self, *, allowlist: Allowlist, ports: Iterable[int]) -> None:
        """Use another allowlist and ports from the next check on (the dashboard's settings changed). Every client
        made by `with_limits` shares this policy, so they all follow; a fetch under way finishes its hops under the
        rules it started with only as far as they were already checked."""
        self._allowlist = allowlist
        self._ports = frozenset(ports)

    async def check(self, parsed: ParsedURL, *, any_port: bool = False) -> Target:
        """Resolve (unless the host is a literal address) and check; raise EgressRefused or EgressNetworkError.
        `any_port`: the port is another protocol's own (a mail server's), not one of the allowed HTTP ports."""
        shown = str(parsed.url)
        addresses = (parsed.ip,) if parsed.ip is not None else await self._resolve(parsed.host, parsed.port, shown)
        addresses = tuple(dict.fromkeys(canonical(ip) for ip in addresses))
        trusted = self._allowlist.has_host(parsed.host) or all(self._allowlist.has_address(ip) for ip in addresses)
        if trusted:
            return Target(parsed, addresses)
        if parsed.port not in self._ports and not any_port:
            raise EgressRefused(self._port_refused(parsed.port), Reason.PORT_NOT_ALLOWED, url=shown)
        for ip in addresses:
            why = None if self._allowlist.has_address(ip) else why_not_global(ip)
            if why is None:
                continue
            # One bad address refuses the host: we may not choose, and a mixed answer is a classic bypass.
            if parsed.ip is not None:
                message = f"private address: {ip} ({why}); to fetch it, list it or its network in {ALLOWLIST}"
                raise EgressRefused(message, Reason.PRIVATE_ADDRESS, url=shown)
            # A name is answered exactly as one that does not resolve: "private address" would tell a caller which
            # names the server's hosts file or internal DNS knows, and where they point. The operator's log says.
            log.info("egress refused %s: it resolves to %s, which is %s", parsed.host, ip, why)
            raise _unresolved(parsed.host, shown)
        return Target(parsed, addresses)

    def _port_refused(self, port: int) -> str:
        allowed = ", ".join(str(number) for number in sorted(self._ports)) or "none"
        return (
            f"port not allowed: {port} (allowed: {allowed}); to use it, add it to {PORTS}, or list the host in "
            f"{ALLOWLIST} (an allowlisted host may use any port)"
        )

    async def _resolve(self, host: str, port: int, shown: str) -> tuple[IPAddress, ...]:
        try:
            addresses = tuple(await self._resolver.resolve(host, port))
        except (OSError, UnicodeError) as exc:
            raise _unresolved(host, shown) from exc
        if not addresses:
            raise _unresolved(host, shown)
        return addresses


def _unresolved(host: str, shown: str) -> EgressNetworkError:
    """The one answer for a name without a public address, whatever the resolver said (its error text differs
    between a name it does not know and one it knows as private). It names the allowlist for every such name, so
    the hint tells nothing about this one."""
    message = f"{host} does not resolve to a public address (a host of a private network must be listed in {ALLOWLIST})"
    return EgressNetworkError(message, Reason.DNS_FAILURE, url=shown)
