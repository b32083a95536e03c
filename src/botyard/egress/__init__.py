"""Egress: the only way out of the service to the network.

Every outbound request to a URL the service does not trust (a scrape, a re-scrape, a tool call, a link found in a
document) goes through `EgressClient`, which refuses anything but http(s) on allowed ports, resolves the host once,
refuses any non-global address (unless the operator allowlisted it), connects to exactly the checked addresses,
repeats all of that on every redirect hop, and caps time and size. Endpoints the operator configured (LLM,
embeddings) get a plain client from `trusted_client`. No other module builds an HTTP client (a test enforces it).

Modules: `url` (parsing and canonical form), `address` (which addresses are global), `policy` (resolution and the
allowlist), `transport` (the pinned connection layer), `decode` (bounded reading and decompression), `client`
(redirects, limits, results), `trusted` (the client for configured endpoints), `errors` (the exception tree).
"""

from botyard.egress.address import IPAddress
from botyard.egress.client import EgressClient, EgressLimits
from botyard.egress.errors import (
    EgressError,
    EgressHTTPError,
    EgressNetworkError,
    EgressRefused,
    EgressTimeout,
    EgressTooLarge,
    Reason,
)
from botyard.egress.policy import Resolver, SystemResolver
from botyard.egress.result import FetchResult
from botyard.egress.trusted import trusted_client

__all__ = [
    "EgressClient",
    "EgressError",
    "EgressHTTPError",
    "EgressLimits",
    "EgressNetworkError",
    "EgressRefused",
    "EgressTimeout",
    "EgressTooLarge",
    "FetchResult",
    "IPAddress",
    "Reason",
    "Resolver",
    "SystemResolver",
    "trusted_client",
]
