"""Accounts: argon2 password hashes, API tokens and session ids (random, stored as sha256),
signed session cookies with a CSRF token, and rate limits."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import re
import secrets
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer

from arena.errors import ArenaError

USER_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{1,31}")
USER_RULE = "2-32 characters: lowercase letters, digits, '-' and '_', not starting with '-' or '_'"
RESERVED_NAMES = frozenset({"arena", "admin-bot", "api", "static", "house"})
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
TOKEN_PREFIX = "ra_"
SESSION_SECONDS = 14 * 24 * 3600
COOKIE_NAME = "ra_session"

_hasher = PasswordHasher()
# verifying against this keeps an unknown name as slow as a wrong password
_DUMMY_HASH = _hasher.hash("not a password of anybody's")


def check_new_account(name: str, password: str) -> None:
    if not USER_PATTERN.fullmatch(name) or name in RESERVED_NAMES:
        raise ArenaError(f"a user name has {USER_RULE}" if name not in RESERVED_NAMES
                         else f"the name {name!r} is reserved")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ArenaError(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def password_matches(stored: str | None, password: str) -> tuple[bool, str | None]:
    """Whether ``password`` matches the argon2 hash ``stored`` (None: an unknown account,
    checked against a dummy hash so that it takes as long), and a new hash when the
    parameters changed since.  Pure: it may run in a thread."""
    try:
        _hasher.verify(stored or _DUMMY_HASH, password[:MAX_PASSWORD])
    except (VerificationError, InvalidHashError):
        return False, None
    if stored is None:
        return False, None
    return True, _hasher.hash(password) if _hasher.check_needs_rehash(stored) else None


def new_secret() -> str:
    """A random secret of 256 bits, URL-safe text."""
    return secrets.token_urlsafe(32)


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    """How a token or session id is kept: sha256 (the secret itself has 256 random bits,
    so a slow hash would add nothing)."""
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass
class Session:
    """What the signed cookie holds: a CSRF token, and a session id once logged in."""

    csrf: str
    sid: str | None = None


class Cookies:
    """Signs and reads the session cookie (itsdangerous: HMAC-SHA1 over a timestamped
    payload, keyed by the server folder's secret)."""

    def __init__(self, secret: str) -> None:
        self.serializer = URLSafeTimedSerializer(secret, salt="ra-arena-session")

    def dump(self, session: Session) -> str:
        return self.serializer.dumps({"c": session.csrf, "s": session.sid})

    def load(self, text: str | None) -> Session | None:
        if not text or len(text) > 4096:
            return None
        try:
            data = self.serializer.loads(text, max_age=SESSION_SECONDS)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("c"), str):
            return None
        sid = data.get("s")
        return Session(data["c"], sid if isinstance(sid, str) else None)


def same_secret(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class RateEvents(Protocol):
    """Where rate limits keep what happened: events by bucket and key, each at a time.
    In memory (:class:`MemoryEvents`: one process; a restart forgets, which only ever lets
    more through), or in the server's store, shared by its processes
    (:class:`arena.server.sql_store.SqlServerStore`'s ``rate_*``)."""

    def rate_allow(self, bucket: str, keys: Sequence[str], limit: int, window: float,
                   now: float) -> bool:
        """True, and an event added for each key, if none of ``keys`` has ``limit``
        events since ``now - window`` (checked and added at once)."""
    def rate_times(self, bucket: str, key: str, since: float) -> list[float]:
        """The times of the key's events since ``since``, oldest first."""
    def rate_add(self, bucket: str, key: str, at: float, keep: float) -> None:
        """An event; the bucket's events older than ``keep`` seconds may be forgotten."""


class MemoryEvents:
    """Rate events in this process's memory (a deque per bucket and key; idle keys are
    forgotten past MAX_KEYS)."""

    MAX_KEYS = 10000

    def __init__(self) -> None:
        self.events: dict[tuple[str, str], deque[float]] = {}

    def _queue(self, bucket: str, key: str, since: float) -> deque[float]:
        queue = self.events.setdefault((bucket, key), deque())
        while queue and queue[0] <= since:
            queue.popleft()
        return queue

    def rate_allow(self, bucket: str, keys: Sequence[str], limit: int, window: float,
                   now: float) -> bool:
        queues = [self._queue(bucket, key, now - window) for key in keys]
        if any(len(queue) >= limit for queue in queues):
            return False
        for queue in queues:
            queue.append(now)
        self._forget(now)
        return True

    def rate_times(self, bucket: str, key: str, since: float) -> list[float]:
        return list(self._queue(bucket, key, since))

    def rate_add(self, bucket: str, key: str, at: float, keep: float) -> None:
        self.events.setdefault((bucket, key), deque()).append(at)
        self._forget(at)

    def _forget(self, now: float) -> None:
        if len(self.events) > self.MAX_KEYS:  # forget idle keys
            self.events = {name: queue for name, queue in self.events.items() if queue}


class RateLimiter:
    """At most ``limit`` events per ``window`` seconds per key of ``bucket``, kept in
    ``events`` (in memory by default)."""

    def __init__(self, limit: int, window: float,
                 clock: Callable[[], float] = time.monotonic,
                 events: RateEvents | None = None, bucket: str = "requests") -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.events = events if events is not None else MemoryEvents()
        self.bucket = bucket

    def allow(self, *keys: str) -> bool:
        return self.events.rate_allow(self.bucket, keys, self.limit, self.window,
                                      self.clock())

    def retry_after(self, key: str) -> int:
        now = self.clock()
        times = self.events.rate_times(self.bucket, key, now - self.window)
        if not times:
            return 0
        return max(1, int(times[0] + self.window - now) + 1)


def address_key(host: str) -> str:
    """What rate limits count per client: its IPv4 address, or its IPv6 /64 (one
    subscriber's network, where an attacker has 2**64 addresses to choose from)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


ACCOUNT_WINDOW = 15 * 60  # an account's failed logins are counted over this long
BACKOFF_CAP = 60.0  # seconds: the longest an account's failures make an address wait
KNOWN_SECONDS = 30 * 24 * 3600  # an address an account logged in from is known this long


class LoginThrottle:
    """Password guessing slowed without letting anyone lock another person out
    (docs/security.md, "Logins"):

    * per address: at most ``per_minute`` attempts a minute, whatever the account;
    * per account: its failed logins from every address, over ACCOUNT_WINDOW; past
      ``per_minute`` of them, an address the account has not logged in from waits after
      the account's last failure, 2 s, 4 s, ... doubling with each failure, at most
      BACKOFF_CAP (a guesser with many addresses gets about one guess a minute);
    * an address the account logged in from in the last KNOWN_SECONDS never waits for
      the account's failures (the owner, where they usually log in, gets in).

    What happened is kept in ``events``: this process's memory (a restart forgets, which
    only ever lets more through), or the store every web process shares."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic,
                 events: RateEvents | None = None) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.events = events if events is not None else MemoryEvents()
        self.addresses = RateLimiter(per_minute, 60, clock, self.events, "login-address")

    def wait(self, address: str, account: str) -> tuple[float, str]:
        """Seconds ``address`` must wait before trying ``account`` (0: it may try now,
        and the attempt is counted), and why."""
        now = self.clock()
        failures = self.events.rate_times("login-failed", account, now - ACCOUNT_WINDOW)
        excess = len(failures) - self.per_minute
        known = bool(self.events.rate_times("login-known", f"{account} {address}",
                                            now - KNOWN_SECONDS))
        if excess >= 0 and not known:
            left = failures[-1] + min(BACKOFF_CAP, 2.0 ** (excess + 1)) - now
            if left > 0:
                return left, (f"too many failed logins to {account!r}; try again in "
                              f"{math.ceil(left)} s, or from where you logged in before")
        if not self.addresses.allow(address):
            return self.addresses.retry_after(address), (
                "too many attempts from your address; wait a minute and try again")
        return 0.0, ""

    def failed(self, address: str, account: str) -> None:
        self.events.rate_add("login-failed", account, self.clock(), ACCOUNT_WINDOW)

    def succeeded(self, address: str, account: str) -> None:
        self.events.rate_add("login-known", f"{account} {address}", self.clock(),
                             KNOWN_SECONDS)
