"""Reading an untrusted URL into the one canonical form that is checked and then fetched.

We split the authority ourselves (so a numeric host such as `0177.0.0.1`, which httpx would reject, is still
recognised as 127.0.0.1), rewrite numeric hosts to their canonical spelling, then let httpx parse the result and
insist that httpx reads the same host we checked: no parser differential can point the request elsewhere.

Decisions: credentials in a URL (`user:pass@`, even a bare `@`) are refused, not stripped, because stripping would
silently fetch something else than what was asked and would store secrets in source URLs. Whitespace, control
characters and backslashes are refused anywhere in the URL: browsers treat `\\` as `/` and drop tabs, so such URLs
mean different hosts to different parsers. The fragment is dropped (it is never sent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address

import httpx

from botyard.egress.address import IPAddress, parse_ipv4
from botyard.egress.errors import EgressRefused, Reason

DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_URL_LENGTH = 8192

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_FORBIDDEN = re.compile(r"[\x00-\x20\x7f\\]")
_HOSTNAME = re.compile(r"(?=.{1,253}$)[a-z0-9_-]{1,63}(\.[a-z0-9_-]{1,63})*\.?")


@dataclass(frozen=True)
class ParsedURL:
    """A syntactically acceptable http(s) URL in canonical form, not yet resolved nor checked against addresses."""

    url: httpx.URL
    host: str
    """The host exactly as the connection layer will see it: an IDNA (ASCII) name or an address's canonical text."""
    port: int
    ip: IPAddress | None
    """The address when the host is a literal one."""

    @property
    def origin(self) -> tuple[str, str, int]:
        return (self.url.scheme, self.host, self.port)


def _refuse(reason: Reason, message: str, url: str | None = None) -> EgressRefused:
    return EgressRefused(message, reason, url=url)


def parse_url(raw: str) -> ParsedURL:
    """Parse and canonicalise `raw`, or raise EgressRefused ("invalid url", "scheme not allowed", ...)."""
    shown = raw[:200]
    if not raw or len(raw) > MAX_URL_LENGTH or _FORBIDDEN.search(raw):
        raise _refuse(Reason.INVALID_URL, "URL is empty, too long, or contains whitespace or backslashes", shown)
    match = _SCHEME.match(raw)
    if match is None:
        raise _refuse(Reason.INVALID_URL, "URL has no scheme", shown)
    scheme = match.group()[:-1].lower()
    if scheme not in DEFAULT_PORTS:
        raise _refuse(Reason.SCHEME_NOT_ALLOWED, f"scheme {scheme!r} is not allowed (only http and https)", shown)
    rest = raw[match.end() :]
    if not rest.startswith("//"):
        raise _refuse(Reason.INVALID_URL, "URL has no host", shown)
    rest = rest[2:]
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:].partition("#")[0]
    if "@" in authority:
        # No URL here: it holds the credentials.
        raise _refuse(Reason.CREDENTIALS_IN_URL, "URLs with credentials (user:password@) are not allowed")
    host_text, port = _split_port(authority, scheme, shown)
    ip = _literal_address(host_text, shown)
    if ip is not None:
        host_text = f"[{ip.compressed}]" if isinstance(ip, IPv6Address) else str(ip)
    elif not host_text or "%" in host_text:
        raise _refuse(Reason.INVALID_URL, "URL has an empty or percent-encoded host", shown)
    port_text = "" if port == DEFAULT_PORTS[scheme] else f":{port}"
    try:
        url = httpx.URL(f"{scheme}://{host_text}{port_text}{tail or '/'}")
    except httpx.InvalidURL as exc:
        raise _refuse(Reason.INVALID_URL, f"invalid URL: {exc}", shown) from exc
    host = url.raw_host.decode("ascii")
    _same_host(host, ip, shown)
    return ParsedURL(url=url, host=host, port=port, ip=ip)


def _split_port(authority: str, scheme: str, shown: str) -> tuple[str, int]:
    if authority.startswith("["):
        host, bracket, after = authority[1:].partition("]")
        if not bracket or (after and not after.startswith(":")):
            raise _refuse(Reason.INVALID_URL, "malformed IPv6 host", shown)
        host, port_text = f"[{host}]", after[1:]
    else:
        host, _, port_text = authority.partition(":")
    if not port_text:
        return host, DEFAULT_PORTS[scheme]
    if not port_text.isascii() or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise _refuse(Reason.INVALID_URL, f"invalid port {port_text[:10]!r}", shown)
    return host, int(port_text)


def _literal_address(host: str, shown: str) -> IPAddress | None:
    try:
        if host.startswith("["):
            if "%" in host:
                raise ValueError("zone identifiers are not allowed")
            return IPv6Address(host[1:-1])
        return parse_ipv4(host.lower())
    except ValueError as exc:
        raise _refuse(Reason.INVALID_URL, f"invalid address in URL: {exc}", shown) from exc


def _same_host(host: str, ip: IPAddress | None, shown: str) -> None:
    """Defence in depth: httpx must connect to the very host we are about to check."""
    if ip is not None:
        try:
            same = ip_address(host) == ip
        except ValueError:
            same = False
        if not same:
            raise _refuse(Reason.INVALID_URL, "URL host is ambiguous", shown)
        return
    try:
        numeric: IPv4Address | None = parse_ipv4(host)
    except ValueError:
        numeric = IPv4Address(0)  # malformed numeric after IDNA: refused just below
    if numeric is not None or _HOSTNAME.fullmatch(host) is None:
        raise _refuse(Reason.INVALID_URL, f"invalid host name {host[:80]!r}", shown)


def resolve_location(base: httpx.URL, location: str) -> ParsedURL:
    """The URL a redirect's Location points to (absolute, scheme-relative or relative to `base`), parsed afresh."""
    if _SCHEME.match(location):
        return parse_url(location)
    if location.startswith("//"):
        return parse_url(f"{base.scheme}:{location}")
    if _FORBIDDEN.search(location):
        raise _refuse(Reason.INVALID_URL, "redirect Location contains whitespace or backslashes", str(base))
    return parse_url(str(base.join(location)))
