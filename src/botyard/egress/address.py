"""Which addresses the service may connect to, and how numeric hosts are read.

Hosts are read the way browsers (WHATWG URL) and libc's `inet_aton` read them, so `127.1`, `2130706433`,
`0x7f000001` and `0177.0.0.1` all mean 127.0.0.1: a name that looks numeric is an address, never a DNS query.
The address tables are ours rather than `ipaddress.is_global`, whose answers changed between Python releases and
which calls NAT64 and 6to4 forms of private IPv4 addresses global.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_network

IPAddress = IPv4Address | IPv6Address

_DIGITS = re.compile(r"[0-9]+")


def _number(part: str) -> int | None:
    """One part of a numeric host (WHATWG "IPv4 number"): decimal, 0x-hex or 0-octal; None if it is not one."""
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:], 16
        if digits == "":
            return 0
    elif len(part) > 1 and part.startswith("0"):
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    try:
        # int() alone would accept "1_0", " 1" and "+1"; only plain digits of the base are a number here.
        return int(digits, base) if digits.isascii() and digits.isalnum() else None
    except ValueError:
        return None


def parse_ipv4(host: str) -> IPv4Address | None:
    """Read `host` as an IPv4 address the way browsers do.

    None means it is a name. ValueError means it looks numeric (its last label is a number) but is no valid address,
    like `1.2.3.256` or `foo.0x10`: browsers refuse those, and so do we rather than ask DNS about them.
    """
    labels = host.split(".")
    if len(labels) > 1 and labels[-1] == "":
        labels.pop()  # one trailing dot is allowed, as in a fully qualified name
    last = labels[-1]
    if not last or (_DIGITS.fullmatch(last) is None and _number(last) is None):
        return None
    if len(labels) > 4:
        raise ValueError(f"{host!r} is not a valid IPv4 address")
    numbers = [_number(label) if label else None for label in labels]
    if any(n is None for n in numbers):
        raise ValueError(f"{host!r} is not a valid IPv4 address")
    *head, tail = [n for n in numbers if n is not None]
    # inet_aton: the last part fills all the remaining bytes (a.b.c.d, a.b.c16, a.b24, a32).
    if any(n > 255 for n in head) or tail >= 256 ** (4 - len(head)):
        raise ValueError(f"{host!r} is not a valid IPv4 address")
    value = tail
    for index, n in enumerate(head):
        value += n << (8 * (3 - index))
    return IPv4Address(value)


def canonical(ip: IPAddress) -> IPAddress:
    """An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address: a dual-stack socket reaches exactly that."""
    if isinstance(ip, IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


_V4_BLOCKED: list[tuple[IPv4Network, str]] = [
    (IPv4Network(net), what)
    for net, what in (
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared (CGNAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.169.254/32", "cloud metadata"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignment"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "6to4 relay anycast"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
    )
]

_V6_BLOCKED: list[tuple[IPv6Network, str]] = [
    (IPv6Network(net), what)
    for net, what in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::/96", "IPv4-compatible (deprecated)"),
        ("::ffff:0:0:0/96", "IPv4-translated"),
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("100::/64", "discard-only"),
        ("2001::/32", "Teredo"),
        ("2001:db8::/32", "documentation"),
        ("2001::/23", "IETF protocol assignment"),
        ("3fff::/20", "documentation"),
        ("fd00:ec2::254/128", "cloud metadata"),
        ("fc00::/7", "unique local (private)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local (deprecated)"),
        ("ff00::/8", "multicast"),
    )
]

# Forms that carry an IPv4 address inside an IPv6 one: they are as reachable as the IPv4 address they embed.
_NAT64 = IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = IPv6Network("2002::/16")
_GLOBAL_UNICAST = IPv6Network("2000::/3")


def why_not_global(ip: IPAddress) -> str | None:
    """Why `ip` must not be connected to (e.g. "loopback"), or None when it is a globally reachable address."""
    ip = canonical(ip)
    if isinstance(ip, IPv4Address):
        for net, what in _V4_BLOCKED:
            if ip in net:
                return what
        return None if ip.is_global else "not globally reachable"
    for net6, what in _V6_BLOCKED:
        if ip in net6:
            return what
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        inner = why_not_global(embedded)
        return None if inner is None else f"{inner} ({embedded}) inside an IPv6 address"
    if ip not in _GLOBAL_UNICAST:
        return "not global unicast"
    return None if ip.is_global else "not globally reachable"


def _embedded_ipv4(ip: IPv6Address) -> IPv4Address | None:
    if ip in _NAT64:
        return IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _SIX_TO_FOUR:
        return ip.sixtofour
    return None


def parse_network(entry: str) -> IPv4Network | IPv6Network | None:
    """An allowlist entry as a network (`10.0.0.0/8`, `127.0.0.1`, `::1`), or None when it is a host name."""
    try:
        return ip_network(entry, strict=False)
    except ValueError:
        pass
    ipv4 = parse_ipv4(entry)  # a numeric spelling like 127.1 is an address too; ValueError if malformed
    return None if ipv4 is None else IPv4Network(ipv4)
