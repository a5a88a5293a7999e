"""Hostile visitors (issue 33 item 3), in process: what test_app.py does not already
cover.  Covered there: the registration form without or with a wrong CSRF token, the
upload form without one, a forged cookie, another user's bot changed or deleted through
the API and deleted through its page, login and registration rate limits from one
address, a chunked body over the limit, the API refusing a session cookie."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.server import accounts
from tests.server.conftest import (
    PASSWORD,
    Api,
    bot_archive,
    csrf_of,
    in_process,
    make_server_folder,
    new_database,
)

pytestmark = pytest.mark.anyio


async def web_login(client: httpx.AsyncClient, name: str, password: str = PASSWORD) -> str:
    """Log ``client`` in through the form; the session's CSRF token."""
    page = await client.get("/login")
    answer = await client.post("/login", data={"csrf": csrf_of(page.text), "name": name,
                                               "password": password})
    assert answer.status_code == 303, answer.text
    return csrf_of((await client.get("/account")).text)


def other_client(api: Api, address: str = "127.0.0.1", strict: bool = False
                 ) -> httpx.AsyncClient:
    """Another client of the same app, from ``address``; ``strict``: an exception that
    leaves the app (what Hypercorn would print as a traceback) fails the test."""
    app = api.client._transport.app  # type: ignore[attr-defined]
    return httpx.AsyncClient(transport=httpx.ASGITransport(
        app, raise_app_exceptions=strict, client=(address, 40000)),
        base_url="http://127.0.0.1")


async def test_every_form_refuses_a_missing_wrong_or_foreign_csrf_token(
        server_folder: tuple[Path, str]) -> None:
    folder, admin_password = server_folder
    async with in_process(folder) as api:
        ada = await api.account("ada")
        await api.account("bob", PASSWORD)
        assert (await api.upload(ada, "ada", "mine", bot_archive("mine"))).status_code == 202
        token_id = (await api.client.get("/api/v1/tokens", headers={
            "Authorization": f"Bearer {ada}"})).json()[0]["id"]
        csrf = await web_login(api.client, "ada")
        async with other_client(api) as stranger:  # a second browser: its own CSRF token
            foreign = csrf_of((await stranger.get("/login")).text)
        files = {"archive": ("mine.tar.gz", bot_archive("mine"), "application/gzip")}
        forms: list[tuple[str, dict[str, Any], Any]] = [
            ("/login", {"name": "ada", "password": PASSWORD}, None),
            ("/register", {"name": "cyd", "password": PASSWORD}, None),
            ("/logout", {}, None),
            ("/account/tokens", {"token_name": "stolen"}, None),
            (f"/account/tokens/{token_id}/revoke", {}, None),
            ("/upload", {"name": "mine"}, files),
            ("/bots/ada/mine/disable", {}, None),
            ("/bots/ada/mine/delete", {}, None),
            ("/admin/users/bob/approve", {}, None),
        ]
        for path, data, upload in forms:
            for bad in (None, "", "x" + csrf, csrf[:-1], foreign):
                fields = dict(data) if bad is None else {**data, "csrf": bad}
                answer = await api.client.post(path, data=fields, files=upload)
                assert answer.status_code == 403, (path, bad, answer.status_code)
                assert "CSRF" in answer.text
        # nothing happened: still logged in, no new token, the old one works, the bot is
        # active with its one version, no account cyd
        account = await api.client.get("/account")
        assert account.status_code == 200 and "stolen" not in account.text
        me = await api.client.get("/api/v1/me", headers={"Authorization": f"Bearer {ada}"})
        assert me.status_code == 200
        bot = (await api.client.get("/api/v1/bots/ada/mine")).json()
        assert bot["disabled"] is False and len(bot["versions"]) == 1
        assert api.server.store.user("cyd") is None


async def test_another_users_bot_and_tokens_by_id_are_refused(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        ada = await api.account("ada")
        bob = await api.account("bob")
        assert (await api.upload(ada, "ada", "mine", bot_archive("mine"))).status_code == 202
        ada_token_id = (await api.client.get("/api/v1/tokens", headers={
            "Authorization": f"Bearer {ada}"})).json()[0]["id"]
        bob_auth = {"Authorization": f"Bearer {bob}"}
        # the API: ada's token revoked by its id with bob's token
        answer = await api.client.delete(f"/api/v1/tokens/{ada_token_id}", headers=bob_auth)
        assert answer.status_code == 404
        # the pages, with bob's session and his own valid CSRF token
        csrf = await web_login(api.client, "bob")
        for action in ("disable", "enable", "delete"):
            answer = await api.client.post(f"/bots/ada/mine/{action}", data={"csrf": csrf})
            assert answer.status_code == 403, action
        answer = await api.client.post(f"/account/tokens/{ada_token_id}/revoke",
                                       data={"csrf": csrf})
        assert answer.status_code == 404
        answer = await api.client.post("/upload", data={"csrf": csrf, "name": "mine",
                                                        "owner": "ada"},
                                       files={"archive": ("m.tar.gz", bot_archive("mine"),
                                                          "application/gzip")})
        assert answer.status_code == 403
        answer = await api.client.post("/admin/users/bob/approve", data={"csrf": csrf})
        assert answer.status_code == 403
        assert (await api.client.get("/admin")).status_code == 403
        # ada's bot and token are as they were
        me = await api.client.get("/api/v1/me", headers={"Authorization": f"Bearer {ada}"})
        assert me.status_code == 200
        bot = (await api.client.get("/api/v1/bots/ada/mine")).json()
        assert bot["disabled"] is False and len(bot["versions"]) == 1


async def test_a_session_cookie_replayed_after_logout_is_refused(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        await api.account("ada")
        before_login = (await api.client.get("/login")).cookies.get("ra_session") or \
            api.client.cookies.get("ra_session")
        csrf = await web_login(api.client, "ada")
        logged_in = api.client.cookies.get("ra_session")
        assert logged_in and logged_in != before_login  # a new cookie at login (fixation)
        out = await api.client.post("/logout", data={"csrf": csrf})
        assert out.status_code == 303
        for cookie in (logged_in, before_login):
            api.client.cookies.clear()
            api.client.cookies.set("ra_session", cookie)
            account = await api.client.get("/account")
            assert account.status_code == 303 and account.headers["location"] == "/login"
            made = await api.client.post("/account/tokens", data={"csrf": csrf,
                                                                  "token_name": "replay"})
            assert made.status_code in (401, 403) and "ra_" not in made.text
        assert "replay" not in str(api.server.store.tokens(api.server.store.user("ada").id))


async def test_guessed_and_altered_tokens_are_refused(server_folder: tuple[Path, str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    async with in_process(server_folder[0]) as api:
        token = await api.account("ada")
        guesses = [accounts.new_token() for _ in range(300)]
        guesses += [token[:-1] + ("A" if token[-1] != "A" else "B"), token[:-1], token + "x",
                    token[3:], token.upper(), "ra_", "", "ra_" + "A" * 5000,
                    token.replace("ra_", "RA_"), "ra_" + secrets.token_hex(32)]
        for guess in guesses:
            for header in (f"Bearer {guess}", f"bearer {guess}", guess, f"Basic {guess}"):
                answer = await api.client.get("/api/v1/me", headers={"Authorization": header})
                assert answer.status_code == 401, (header[:40], answer.status_code)
        right = await api.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert right.status_code == 200
    # a token is looked up by its sha256 (an index on hashes: how long the lookup takes
    # says nothing about how much of a real token a guess shares); the CSRF token is
    # compared in constant time
    seen: list[tuple[bytes, bytes]] = []
    real = accounts.hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(accounts.hmac, "compare_digest", spy)
    assert not accounts.same_secret("abc", "abd") and accounts.same_secret("abc", "abc")
    assert len(seen) == 2


class Clock:
    """A clock the test moves (the login throttle's time)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_login_throttle_slows_guessing_and_locks_nobody_out(store_kind: str) -> None:
    """Issue 43 item 7: the owner is never locked out by someone else's failures, while
    brute force from one address and from many is slowed (the numbers of the design,
    docs/security.md "Logins"); kept as one SQLite process keeps it (in memory), and as
    several processes on PostgreSQL share it (in the store)."""
    clock = Clock()
    database = new_database()
    events: accounts.RateEvents = accounts.MemoryEvents()
    if database:
        from arena.server.pg_store import PgServerStore

        events = PgServerStore(database)
    throttle = accounts.LoginThrottle(10, clock=clock, events=events)
    throttle.succeeded("10.9.9.9", "ada")  # where ada logs in
    guesses = 0
    for second in range(0, 3600, 2):  # an hour, a guess every 2 s, each from a new address
        clock.now = 1000.0 + second
        address = f"203.0.{second // 256 % 256}.{second % 256}"
        if throttle.wait(address, "ada")[0] == 0:
            guesses += 1
            throttle.failed(address, "ada")
        if second % 600 == 0:  # meanwhile ada, from where she logs in, is never held up
            assert throttle.wait("10.9.9.9", "ada") == (0.0, "")
    # 10 free, then 2, 4, ... 64 s apart, then one a minute (unthrottled: 1800; the old
    # account-wide limit: 600, and ada locked out all hour)
    assert 60 <= guesses <= 75, guesses
    # from an address ada never used, the right password waits at most BACKOFF_CAP
    wait, why = throttle.wait("198.51.100.7", "ada")
    assert 0 < wait <= accounts.BACKOFF_CAP and "from where you logged in before" in why
    clock.now += wait
    assert throttle.wait("198.51.100.7", "ada")[0] == 0
    # one address trying many accounts: per_minute attempts a minute, then it waits
    answers = [throttle.wait("192.0.2.1", f"user{n}")[0] for n in range(12)]
    assert answers[:10] == [0.0] * 10 and all(answers[10:])
    assert throttle.wait("192.0.2.2", "user0")[0] == 0  # another address is not held up
    # an IPv6 attacker's /64 is one address
    assert accounts.address_key("2001:db8:1:2::1") == accounts.address_key(
        "2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert accounts.address_key("::ffff:192.0.2.7") == "192.0.2.7"


async def test_login_brute_force_from_many_addresses_locks_nobody_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Through the API and the web form: guesses at one account from many addresses are
    slowed, while its owner, where she logged in before, gets in with her password; the
    wait is said (429 with the seconds), and other accounts are not held up."""
    folder = tmp_path / "server"
    make_server_folder(folder, capsys, **{"login_per_minute = 10": "login_per_minute = 4"})
    async with in_process(folder) as api:
        clock = Clock()
        api.server.login_limit = accounts.LoginThrottle(4, clock=clock)
        await api.client.post("/api/v1/register", json={"name": "ada", "password": PASSWORD})
        async with other_client(api, "10.9.9.9") as home:  # ada's usual address
            assert (await home.post("/api/v1/tokens", json={
                "name": "ada", "password": PASSWORD})).status_code == 201
        codes = []
        for number in range(12):
            async with other_client(api, f"10.0.0.{number + 1}") as client:
                if number % 2:
                    page = await client.get("/login")
                    answer = await client.post("/login", data={
                        "csrf": csrf_of(page.text), "name": "ada", "password": f"guess {number}"})
                else:
                    answer = await client.post("/api/v1/tokens", json={
                        "name": "ada", "password": f"guess number {number}"})
                codes.append(answer.status_code)
        assert codes[:4] == [401] * 4 and set(codes[4:]) == {429}, codes
        async with other_client(api, "10.0.0.99") as client:
            held = await client.post("/api/v1/tokens", json={"name": "ada",
                                                             "password": PASSWORD})
        assert held.status_code == 429 and "try again in 2 s" in held.json()["error"]
        async with other_client(api, "10.9.9.9") as home:  # the owner is not locked out
            answer = await home.post("/api/v1/tokens", json={"name": "ada",
                                                             "password": PASSWORD})
            assert answer.status_code == 201
            page = await home.get("/login")
            answer = await home.post("/login", data={"csrf": csrf_of(page.text),
                                                     "name": "ada", "password": PASSWORD})
            assert answer.status_code == 303
        clock.now += 2  # ... and from elsewhere she waits seconds, not for ever
        async with other_client(api, "10.0.0.99") as client:
            assert (await client.post("/api/v1/tokens", json={
                "name": "ada", "password": PASSWORD})).status_code == 201
        # other accounts, from other addresses, are not held up
        await api.client.post("/api/v1/register", json={"name": "bob", "password": PASSWORD})
        async with other_client(api, "10.0.1.1") as client:
            answer = await client.post("/api/v1/tokens", json={"name": "bob",
                                                                "password": PASSWORD})
            assert answer.status_code == 201


async def test_oversized_bodies_are_refused_before_they_are_read(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        token = await api.account("ada")
        limit = api.server.settings.max_archive_bytes + 64 * 1024
        read = 0

        async def counted():  # type: ignore[no-untyped-def]
            nonlocal read
            for _ in range(1000):
                read += 65536
                yield bytes(65536)

        # a declared length over the limit: refused before the body is read
        answer = await api.client.post(
            "/api/v1/bots/ada/mine/versions", content=counted(),
            headers={"Authorization": f"Bearer {token}", "Content-Length": str(100 << 20)})
        assert answer.status_code == 413 and answer.json()["error"]
        # a JSON body, chunked, on an unauthenticated route
        read = 0
        answer = await api.client.post("/api/v1/register", content=counted(),
                                       headers={"Content-Type": "application/json"})
        assert answer.status_code == 413, answer.text
        assert read <= limit + 2 * 65536  # stopped at the limit, not read whole
        # the web upload form, logged in, with a file over the limit
        csrf = await web_login(api.client, "ada")
        answer = await api.client.post("/upload", data={"csrf": csrf, "name": "mine"},
                                       files={"archive": ("big.tar.gz", bytes(limit + 1),
                                                          "application/gzip")})
        assert answer.status_code == 413
        assert not (api.server.settings.uploads / "ada").exists()


async def test_an_oversized_chunked_json_body_says_413(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        async def chunks():  # type: ignore[no-untyped-def]
            for _ in range(200):
                yield bytes(65536)

        answer = await api.client.post("/api/v1/register", content=chunks(),
                                       headers={"Content-Type": "application/json"})
        assert answer.status_code == 413, answer.text
