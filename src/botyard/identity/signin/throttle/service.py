"""Attempts take their places in the counts before their passwords are checked, in one brief write transaction:
a burst of attempts sent at once is limited exactly as the same attempts sent one after another, whichever database
and however many processes. A right password then forgives what its rule says (`rules.forgiven`)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from ipaddress import IPv4Network, IPv6Network, ip_address

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.identity.signin.throttle.repository import AttemptRepository
from botyard.identity.signin.throttle.rules import (
    ADDRESS,
    NETWORK,
    Count,
    Rule,
    blocked_seconds,
    forgiven,
    with_attempt,
)
from botyard.models import SigninAttempt

IPV4_NETWORK_PREFIX = 24
IPV6_NETWORK_PREFIX = 64
LONGEST_WINDOW = max(ADDRESS.window, NETWORK.window)


@dataclass(frozen=True)
class Key:
    key: str
    rule: Rule


@dataclass(frozen=True)
class Place:
    """The place an attempt took in a key's count."""

    key: Key
    place: int


class Waiting(Exception):
    """Some key of the attempt waits: the attempt counts nowhere and is not verified."""

    def __init__(self, seconds: int, key: Key) -> None:
        super().__init__(seconds)
        self.seconds = seconds
        self.key = key


def address_key(email: str) -> Key:
    """The count of a normalised address, whether a member has it or not (stored as its SHA-256 only)."""
    return Key("address:" + hashlib.sha256(email.encode()).hexdigest(), ADDRESS)


def network_key(address: str) -> Key:
    """The count of a client's network: its IPv4 /24 or IPv6 /64 (`client_address.client_address` gives the address,
    trusted proxies considered); a client with no address ("unknown") counts with all such."""
    try:
        parsed = ip_address(address)
    except ValueError:
        return Key("network:unknown", NETWORK)
    if parsed.version == 4:
        network: IPv4Network | IPv6Network = IPv4Network((parsed, IPV4_NETWORK_PREFIX), strict=False)
    else:
        network = IPv6Network((parsed, IPV6_NETWORK_PREFIX), strict=False)
    return Key(f"network:{network}", NETWORK)


def device_key(device_id: str, rule: Rule) -> Key:
    return Key(f"device:{device_id}", rule)


def _count(row: SigninAttempt) -> Count:
    return Count(row.failures, row.blocked_until, row.window_start)


def _write(row: SigninAttempt, count: Count) -> None:
    row.failures, row.blocked_until, row.window_start = count.failures, count.blocked_until, count.window_start


async def take_places(db: AsyncSession, keys: Sequence[Key], now: datetime) -> list[Place]:
    """Count the attempt in every one of `keys`, or raise `Waiting` (counting it nowhere) if one of them waits.

    The keys' rows are locked in the order of their names, so two attempts sharing two keys never deadlock."""
    repository = AttemptRepository(db)
    ordered = sorted(keys, key=lambda key: key.key)
    rows = [await repository.locked(key.key, now) for key in ordered]
    waits = [(blocked_seconds(_count(row), now) or 0, key) for key, row in zip(ordered, rows, strict=True)]
    if any(seconds for seconds, _ in waits):
        raise Waiting(*max(waits, key=lambda wait: wait[0]))
    places = []
    for key, row in zip(ordered, rows, strict=True):
        count = with_attempt(_count(row), key.rule, now)
        _write(row, count)
        places.append(Place(key, count.failures))
    await db.flush()
    return places


async def prune(db: AsyncSession, now: datetime) -> None:
    """Forget counts that ended (their own transaction: it holds no key an attempt needs, and waits for none)."""
    await AttemptRepository(db).prune(now - LONGEST_WINDOW)


def began_a_count(places: Sequence[Place]) -> bool:
    """Whether the attempt began a count (a new key, or one whose window had passed): the time to prune, as often
    as rows are made."""
    return any(place.place == 1 for place in places)


async def forgive(db: AsyncSession, places: Sequence[Place], now: datetime) -> None:
    """The attempt that took `places` had the right password."""
    repository = AttemptRepository(db)
    for place in sorted(places, key=lambda place: place.key.key):
        row = await repository.locked(place.key.key, now)
        _write(row, forgiven(_count(row), place.key.rule, place.place))
    await db.flush()


async def forget_address(db: AsyncSession, email: str) -> None:
    """A reset link proved the person: the address's count starts again."""
    await AttemptRepository(db).forget(address_key(email).key)
