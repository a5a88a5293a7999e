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
from collections.abc import Callable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer

from arena.errors import ArenaError
from arena.server.store import ServerStore, User

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


def user_of_token(store: ServerStore, token: str) -> User | None:
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    return store.user_of_token(digest(token))


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


class RateLimiter:
    """At most ``limit`` events per ``window`` seconds per key (in memory: a restart
    forgets, which only ever lets more through)."""

    def __init__(self, limit: int, window: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.events: dict[str, deque[float]] = {}

    def allow(self, *keys: str) -> bool:
        now = self.clock()
        queues = []
        for key in keys:
            queue = self.events.setdefault(key, deque())
            while queue and queue[0] <= now - self.window:
                queue.popleft()
            if len(queue) >= self.limit:
                return False
            queues.append(queue)
        for queue in queues:
            queue.append(now)
        if len(self.events) > 10000:  # forget idle keys
            for key in [k for k, q in self.events.items() if not q]:
                del self.events[key]
        return True

    def retry_after(self, key: str) -> int:
        queue = self.events.get(key)
        if not queue:
            return 0
        return max(1, int(queue[0] + self.window - self.clock()) + 1)


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
KNOWN_PER_ACCOUNT = 20  # the newest known addresses kept per account


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

    In memory: a restart forgets, which only ever lets more through."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.addresses = RateLimiter(per_minute, 60, clock)
        self.failures: dict[str, deque[float]] = {}  # account -> its failed logins
        self.known: dict[str, dict[str, float]] = {}  # account -> address -> last login

    def wait(self, address: str, account: str) -> tuple[float, str]:
        """Seconds ``address`` must wait before trying ``account`` (0: it may try now,
        and the attempt is counted), and why."""
        now = self.clock()
        failures = self._recent(account, now)
        excess = len(failures) - self.per_minute
        known = self.known.get(account, {}).get(address, -math.inf) > now - KNOWN_SECONDS
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
        now = self.clock()
        self._recent(account, now).append(now)
        if len(self.failures) > 10000:  # forget quiet accounts (and made-up names)
            self.failures = {name: queue for name, queue in self.failures.items()
                             if queue and queue[-1] > now - ACCOUNT_WINDOW}

    def succeeded(self, address: str, account: str) -> None:
        known = self.known.setdefault(account, {})
        known.pop(address, None)
        known[address] = self.clock()
        while len(known) > KNOWN_PER_ACCOUNT:  # the oldest first (insertion order)
            del known[next(iter(known))]

    def _recent(self, account: str, now: float) -> deque[float]:
        queue = self.failures.setdefault(account, deque())
        while queue and queue[0] <= now - ACCOUNT_WINDOW:
            queue.popleft()
        return queue
