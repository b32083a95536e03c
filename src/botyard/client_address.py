"""Who is calling, as the limits on anonymous traffic see it: the client's network address, which a client cannot
choose the way it chooses a device id, a session or a header.

Behind a reverse proxy every request comes from the proxy, and the client's address is in `X-Forwarded-For`. That
header is written by whoever sends the request, so it is believed only as far as the hops are trusted proxies
(`BOTYARD_TRUSTED_PROXIES`): read from the right, each trusted hop vouches for the one before it, and the first
untrusted address is the client. With no trusted proxy (the default) the header is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

Network = IPv4Network | IPv6Network

IPV6_CLIENT_PREFIX = 64
"""An IPv6 client is its /64: a home or a cloud machine is handed a whole /64 and may take any address in it, so
counting single addresses would let one client rotate through 2^64 of them."""


def trusted_networks(entries: Sequence[str]) -> tuple[Network, ...]:
    """`BOTYARD_TRUSTED_PROXIES` entries (addresses or CIDRs) as networks; raises ValueError on anything else."""
    return tuple(ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())


def client_network(peer: str | None, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The key the limits count a client by: its IPv4 address, or its IPv6 /64, as text.

    `peer` is the address of the TCP connection's other end; `forwarded_for` the request's `X-Forwarded-For`.
    """
    address = _client(peer, forwarded_for, trusted)
    if address is None:
        return "unknown"  # no peer address (a test transport, a Unix socket): all such callers count together
    return _key(address)


def client_address(peer: str | None, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The client's own address, read as `client_network` reads it but whole (an IPv6 address, not its /64): what
    the audit log says a change came from. "unknown" without a peer address."""
    address = _client(peer, forwarded_for, trusted)
    return "unknown" if address is None else str(address)


def _client(
    peer: str | None, forwarded_for: str | None, trusted: Sequence[Network]
) -> IPv4Address | IPv6Address | None:
    address = _parse(peer)
    if address is None:
        return None
    if trusted and _is_trusted(address, trusted) and forwarded_for:
        for hop in reversed(forwarded_for.split(",")):
            forwarded = _parse(hop.strip())
            if forwarded is None:
                break  # a malformed hop: nothing before it can be vouched for, so the last trusted hop is the client
            address = forwarded
            if not _is_trusted(forwarded, trusted):
                break
    return address


def _parse(text: str | None) -> IPv4Address | IPv6Address | None:
    try:
        address = ip_address((text or "").strip("[]"))
    except ValueError:
        return None
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # ::ffff:192.0.2.1 is the IPv4 client 192.0.2.1 on a dual-stack socket
    return address


def _is_trusted(address: IPv4Address | IPv6Address, trusted: Sequence[Network]) -> bool:
    return any(address.version == network.version and address in network for network in trusted)


def _key(address: IPv4Address | IPv6Address) -> str:
    if isinstance(address, IPv6Address):
        return str(IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))
    return str(address)


def from_trusted_proxy(peer: str | None, trusted: Sequence[Network]) -> bool:
    """Whether the connection comes from one of the trusted proxies (whose `X-Forwarded-*` headers are believed)."""
    address = _parse(peer)
    return address is not None and bool(trusted) and _is_trusted(address, trusted)
