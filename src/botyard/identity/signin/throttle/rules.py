"""How attempts count, as pure functions of a key's count: what a new attempt does to it, and what a right password
forgives. The service (`throttle.service`) reads and writes the counts; nothing here touches the database."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

THROTTLE_AFTER = 5
"""Attempts of one address (or one device) that are verified before sign-in waits."""
NETWORK_THROTTLE_AFTER = 20
"""Attempts from one client network that are verified before sign-in from it waits: a guesser spraying many
addresses from one place gets this many, not five for each address; an office behind one address gets a day's
mistyped passwords before anyone waits."""
FIRST_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(minutes=15)


@dataclass(frozen=True)
class Rule:
    after: int
    """Attempts verified freely; each further one makes the key wait, twice as long each time."""
    window: timedelta
    """A count this old that blocks nothing starts again at zero: old mistakes stop counting, and rows can go."""
    forgives_earlier: bool
    """Whether a right password forgives the attempts counted before it too (for one address or device: they were
    the person's own mistakes, or a guesser's that no longer matter), or only itself (for a network, where the one
    who got it right is not the one who guessed)."""


ADDRESS = Rule(THROTTLE_AFTER, timedelta(days=1), forgives_earlier=True)
DEVICE = ADDRESS
NETWORK = Rule(NETWORK_THROTTLE_AFTER, timedelta(hours=1), forgives_earlier=False)


@dataclass(frozen=True)
class Count:
    failures: int
    blocked_until: datetime | None
    window_start: datetime


def wait_after(failures: int, after: int = THROTTLE_AFTER) -> timedelta | None:
    """How long sign-in waits after this many attempts of a key (None: not at all)."""
    if failures < after:
        return None
    doubled: timedelta = FIRST_WAIT * 2 ** min(failures - after, 16)
    return min(doubled, LONGEST_WAIT)


def blocked_seconds(count: Count, now: datetime) -> int | None:
    """Whole seconds the key still waits (None: it does not)."""
    if count.blocked_until is None or count.blocked_until <= now:
        return None
    return max(1, math.ceil((count.blocked_until - now).total_seconds()))


def with_attempt(count: Count, rule: Rule, now: datetime) -> Count:
    """The count with one more attempt in it, as if it fails: it waits from now if this one is past the free ones."""
    fresh = count.window_start + rule.window <= now
    failures = 1 if fresh else count.failures + 1
    wait = wait_after(failures, rule.after)
    return Count(failures, now + wait if wait is not None else None, now if fresh else count.window_start)


def forgiven(count: Count, rule: Rule, place: int) -> Count:
    """The count after the attempt that took `place` in it had the right password. Only the attempts up to it are
    forgiven (attempts counted after it, still being verified, keep their places), and a key back under its free
    attempts waits no more."""
    failures = max(count.failures - (place if rule.forgives_earlier else 1), 0)
    return replace(count, failures=failures, blocked_until=count.blocked_until if failures >= rule.after else None)
