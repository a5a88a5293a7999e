"""Accounts: sign-up, logins (throttled), web sessions and API tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from arena.server import accounts
from arena.server.errors import Refused
from arena.server.store import Token, User

if TYPE_CHECKING:
    from arena.server.core import Server
    from arena.server.store import AccountStore


class AccountService:
    def __init__(self, server: Server) -> None:
        self.server = server

    @property
    def store(self) -> AccountStore:
        return self.server.store

    @property
    def cookies(self) -> accounts.Cookies:
        """The signer of the session cookies (keyed by the server's secret)."""
        return self.server.cookies

    @property
    def secure_cookies(self) -> bool:
        return self.server.secure_cookies

    async def register(self, address: str, name: str, password: str) -> User:
        """A new account (approved unless the settings ask for an admin's approval)."""
        if not self.server.register_limit.allow(address):
            raise Refused("too many new accounts from your address; try again later", 429)
        accounts.check_new_account(name, password)
        if self.store.user(name) is not None:
            raise Refused(f"the name {name!r} is taken", 409)
        hashed = await trio.to_thread.run_sync(accounts.hash_password, password)
        return self.store.add_user(name, hashed, "user",
                                   not self.server.settings.approval_required)

    async def login(self, address: str, name: str, password: str) -> User:
        """The account whose password this is (Refused otherwise, or while ``address``
        must wait: accounts.LoginThrottle)."""
        limit = self.server.login_limit
        wait, why = limit.wait(address, name)
        if wait:
            raise Refused(why, 429)
        user = self.store.user(name)
        stored = self.store.password_hash(user.id) if user is not None else None
        ok, rehashed = await trio.to_thread.run_sync(accounts.password_matches, stored,
                                                     password)
        if user is None or not ok:
            limit.failed(address, name)
            raise Refused("wrong name or password", 401)
        limit.succeeded(address, name)
        if rehashed is not None:
            self.store.set_password_hash(user.id, rehashed)
        if not user.approved:
            raise Refused("your account waits for an admin's approval", 403)
        return user

    def user_of_token(self, token: str) -> User | None:
        """The approved account of an API token (None: no such token, revoked, or its
        account disabled by an admin)."""
        if not token.startswith(accounts.TOKEN_PREFIX) or len(token) > 200:
            return None
        user = self.store.user_of_token(accounts.digest(token))
        return user if user is not None and user.approved else None

    def user_of_session(self, sid: str | None) -> User | None:
        if sid is None:
            return None
        user = self.store.user_of_session(accounts.digest(sid))
        return user if user is not None and user.approved else None

    def start_session(self, user: User, old_sid: str | None) -> str:
        """A new session id for ``user`` (the old one, if any, ended)."""
        sid = accounts.new_secret()
        self.store.add_session(accounts.digest(sid), user.id, accounts.SESSION_SECONDS)
        self.end_session(old_sid)
        return sid

    def end_session(self, sid: str | None) -> None:
        if sid:
            self.store.end_session(accounts.digest(sid))

    def tokens(self, user: User) -> list[Token]:
        return self.store.tokens(user.id)

    def new_token(self, user: User, name: str) -> tuple[Token, str]:
        """A new API token: its row and the secret, shown this once."""
        secret = accounts.new_token()
        return self.store.add_token(user.id, name, accounts.digest(secret)), secret

    def revoke_token(self, user: User, token_id: int) -> None:
        if not self.store.revoke_token(user.id, token_id):
            raise Refused(f"you have no token {token_id}", 404)
