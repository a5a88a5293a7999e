"""Accounts: argon2 password hashes, API tokens and session ids (random, stored as sha256),
signed session cookies with a CSRF token, and rate limits."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections import deque
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

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.events: dict[str, deque[float]] = {}

    def allow(self, *keys: str) -> bool:
        now = time.monotonic()
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
        return max(1, int(queue[0] + self.window - time.monotonic()) + 1)
