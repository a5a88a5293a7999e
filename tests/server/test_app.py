"""The app in process (httpx's ASGI transport under trio): every route and every refusal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import trio

from tests.server.conftest import (
    PASSWORD,
    bot_archive,
    csrf_of,
    in_process,
    make_server_folder,
    tar_gz,
)

pytestmark = pytest.mark.anyio


async def test_openapi_lists_the_api(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        answer = await api.client.get("/api/v1/openapi.json")
        assert answer.status_code == 200
        paths = answer.json()["paths"]
        for path in ("/api/v1/register", "/api/v1/tokens", "/api/v1/me",
                     "/api/v1/bots/{owner}/{name}/versions", "/api/v1/versions/{version_id}",
                     "/api/v1/bots/{owner}/{name}", "/api/v1/leaderboard",
                     "/api/v1/games/{game_id}", "/api/v1/events"):
            assert path in paths
        assert not any(p in paths for p in ("/", "/login", "/account"))  # pages: not API
        docs = await api.client.get("/api/v1/docs")
        assert docs.status_code == 200


async def test_register_token_me_and_revoke(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        token = await api.account("ada")
        auth = {"Authorization": f"Bearer {token}"}
        me = await api.client.get("/api/v1/me", headers=auth)
        assert me.json() == {"name": "ada", "role": "user", "approved": True}
        tokens = (await api.client.get("/api/v1/tokens", headers=auth)).json()
        assert [t["name"] for t in tokens] == ["test"] and "token" not in tokens[0]
        again = await api.client.post("/api/v1/register",
                                      json={"name": "ada", "password": PASSWORD})
        assert again.status_code == 409 and "taken" in again.json()["error"]
        for bad in ({"name": "Bad Name", "password": PASSWORD},
                    {"name": "bob", "password": "short"}, {"name": "arena",
                                                           "password": PASSWORD}):
            answer = await api.client.post("/api/v1/register", json=bad)
            assert answer.status_code == 400 and answer.json()["error"]
        wrong = await api.client.post("/api/v1/tokens", json={"name": "ada",
                                                              "password": "wrong password"})
        assert wrong.status_code == 401 and wrong.json() == {"error": "wrong name or password"}
        nobody = await api.client.post("/api/v1/tokens", json={"name": "zed",
                                                               "password": PASSWORD})
        assert nobody.status_code == 401
        revoked = await api.client.delete(f"/api/v1/tokens/{tokens[0]['id']}", headers=auth)
        assert revoked.status_code == 200
        after = await api.client.get("/api/v1/me", headers=auth)
        assert after.status_code == 401 and "API token" in after.json()["error"]
        missing = await api.client.get("/api/v1/me")
        assert missing.status_code == 401
        forged = await api.client.get("/api/v1/me", headers={"Authorization": "Bearer ra_x"})
        assert forged.status_code == 401


async def test_approval_required_and_an_admin_approves(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "strict"
    admin_password = make_server_folder(
        folder, capsys, **{"approval_required = false": "approval_required = true"})
    async with in_process(folder) as api:
        answer = await api.client.post("/api/v1/register",
                                       json={"name": "ada", "password": PASSWORD})
        assert answer.json()["approved"] is False
        waiting = await api.client.post("/api/v1/tokens", json={"name": "ada",
                                                                "password": PASSWORD})
        assert waiting.status_code == 403 and "approval" in waiting.json()["error"]
        admin = await api.token("root", admin_password)
        approved = await api.client.post("/api/v1/users/ada/approve",
                                         headers={"Authorization": f"Bearer {admin}"})
        assert approved.status_code == 200
        user_token = await api.token("ada")
        not_admin = await api.client.post("/api/v1/users/root/approve",
                                          headers={"Authorization": f"Bearer {user_token}"})
        assert not_admin.status_code == 403


async def test_login_and_registration_are_rate_limited(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "limited"
    make_server_folder(folder, capsys, **{"login_per_minute = 10": "login_per_minute = 3",
                                          "register_per_hour = 5": "register_per_hour = 2"})
    async with in_process(folder) as api:
        await api.client.post("/api/v1/register", json={"name": "ada", "password": PASSWORD})
        await api.client.post("/api/v1/register", json={"name": "bob", "password": PASSWORD})
        third = await api.client.post("/api/v1/register",
                                      json={"name": "cyd", "password": PASSWORD})
        assert third.status_code == 429 and "too many" in third.json()["error"]
        codes = [(await api.client.post("/api/v1/tokens", json={
            "name": "ada", "password": "wrong password"})).status_code for _ in range(4)]
        assert codes == [401, 401, 401, 429]
        right = await api.client.post("/api/v1/tokens", json={"name": "ada",
                                                              "password": PASSWORD})
        assert right.status_code == 429  # even the right password waits


async def test_web_register_login_logout_and_csrf(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        client = api.client
        page = await client.get("/register")
        assert page.status_code == 200
        cookie = page.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
        token = csrf_of(page.text)
        form = {"name": "ada", "password": PASSWORD}
        missing = await client.post("/register", data=form)
        assert missing.status_code == 403 and "CSRF" in missing.text
        wrong = await client.post("/register", data={**form, "csrf": "x" + token})
        assert wrong.status_code == 403
        made = await client.post("/register", data={**form, "csrf": token})
        assert made.status_code == 303 and made.headers["location"] == "/account"
        account = await client.get("/account")
        assert account.status_code == 200 and "ada" in account.text
        new_csrf = csrf_of(account.text)
        assert new_csrf != token  # a fresh CSRF token with the session
        # a token from the page: shown once, then only its name
        shown = await client.post("/account/tokens", data={"csrf": new_csrf,
                                                           "token_name": "laptop"})
        assert "ra_" in shown.text and "laptop" in shown.text
        listed = await client.get("/account")
        assert "laptop" in listed.text and re.search(r"ra_[\w-]{20}", listed.text) is None
        out = await client.post("/logout", data={"csrf": new_csrf})
        assert out.status_code == 303
        assert (await client.get("/account")).headers["location"] == "/login"
        # an old session cookie replayed after logout is no longer a session
        login = await client.get("/login")
        bad = await client.post("/login", data={"csrf": csrf_of(login.text), "name": "ada",
                                                "password": "wrong password"})
        assert bad.status_code == 401 and "wrong name or password" in bad.text
        good = await client.post("/login", data={"csrf": csrf_of(login.text), "name": "ada",
                                                 "password": PASSWORD})
        assert good.status_code == 303
        # a forged cookie is a new anonymous session
        client.cookies.clear()
        client.cookies.set("ra_session", "forged.value.here")
        assert (await client.get("/account")).headers["location"] == "/login"


async def test_upload_validates_and_refusals(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0], background=True) as api:
        ada = await api.account("ada")
        bob = await api.account("bob")
        answer = await api.upload(ada, "ada", "mine", bot_archive("mine"))
        assert answer.status_code == 202, answer.text
        version = answer.json()
        assert version["state"] == "pending" and version["bot"] == "ada/mine"
        done = await api.wait_state(version["id"], ada)
        assert done["state"] == "valid", done
        assert done["report"]["passed"] and done["manifest_version"] == "1.0.0"
        # another user's bot: refused
        other = await api.upload(bob, "ada", "mine", bot_archive("mine"))
        assert other.status_code == 403 and "only ada" in other.json()["error"]
        for action in ("disable", "enable"):
            refused = await api.client.post(f"/api/v1/bots/ada/mine/{action}",
                                            headers={"Authorization": f"Bearer {bob}"})
            assert refused.status_code == 403
        gone = await api.client.delete("/api/v1/bots/ada/mine",
                                       headers={"Authorization": f"Bearer {bob}"})
        assert gone.status_code == 403
        # no token
        anonymous = await api.client.post("/api/v1/bots/ada/mine/versions",
                                          content=bot_archive("mine"))
        assert anonymous.status_code == 401
        # the manifest names another bot
        renamed = await api.upload(ada, "ada", "other", bot_archive("mine"))
        assert renamed.status_code == 400 and "names the bot 'mine'" in renamed.json()["error"]
        # a broken manifest: every problem, and no path of the server's
        bad = await api.upload(ada, "ada", "mine", tar_gz({"bot.toml": b'name = "mine"\n'}))
        assert bad.status_code == 400 and "bot.toml" in bad.json()["error"]
        assert str(api.server.settings.folder) not in bad.text and "/upload" not in bad.text
        # a hostile archive: one line
        hostile = await api.upload(ada, "ada", "mine", tar_gz({"../x": b"x"}))
        assert hostile.status_code == 400 and ".." in hostile.json()["error"]
        # too big for the server (0.5 MB)
        import os

        big = await api.upload(ada, "ada", "mine", os.urandom(600_000))
        assert big.status_code == 413 and big.json()["error"]
        # a broken bot is rejected with its report
        broken = bot_archive("broken")
        import io
        import tarfile

        with tarfile.open(fileobj=io.BytesIO(broken), mode="r:gz") as archive:
            files = {m.name: archive.extractfile(m).read()  # type: ignore[union-attr]
                     for m in archive.getmembers()}
        files["bot.py"] = b"import sys\nsys.stderr.write('I crash on purpose\\n')\nsys.exit(3)\n"
        answer = await api.upload(ada, "ada", "broken", tar_gz(files))
        rejected = await api.wait_state(answer.json()["id"], ada)
        assert rejected["state"] == "rejected" and "failed the conformance check" in \
            rejected["message"]
        assert "I crash on purpose" in rejected["stderr_tail"]
        # why, in one line: the bot died before its handshake (runner/diagnosis.py), on
        # its page too
        why = ("handshake: crash: died before its handshake: its stderr ends: I crash on "
               "purpose; exited with code 3")
        assert rejected["message"].endswith(why)
        assert why in (await api.client.get("/bots/ada/broken")).text
        # the report and the stderr are the owner's (and admins'): not bob's, not anyone's
        for headers in ({}, {"Authorization": f"Bearer {bob}"}):
            seen = (await api.client.get(f"/api/v1/versions/{answer.json()['id']}",
                                         headers=headers)).json()
            assert seen["state"] == "rejected" and seen["stderr_tail"] == ""
            assert seen["report"] is None
            listed = (await api.client.get("/api/v1/bots/ada/broken", headers=headers)).json()
            assert all(v["stderr_tail"] == "" for v in listed["versions"])
        # quota: 2 active bots for ada (mine, broken)
        third = await api.upload(ada, "ada", "third", bot_archive("third"))
        assert third.status_code == 429 and "active bots" in third.json()["error"]
        # the bot and its versions; a new version; disable and delete by the owner
        again = await api.upload(ada, "ada", "mine", bot_archive("mine"))
        assert again.json()["number"] == 2
        bot = (await api.client.get("/api/v1/bots/ada/mine")).json()
        assert [v["number"] for v in bot["versions"]] == [1, 2]
        auth = {"Authorization": f"Bearer {ada}"}
        assert (await api.client.post("/api/v1/bots/ada/mine/disable",
                                      headers=auth)).json()["disabled"] is True
        assert (await api.client.delete("/api/v1/bots/ada/broken", headers=auth)).status_code \
            == 200
        assert (await api.client.get("/api/v1/bots/ada/broken")).status_code == 404
        # quota: uploads per day (5): ada has made 3 (mine 1 and 2, broken 1)
        for _ in range(2):
            assert (await api.upload(ada, "ada", "mine", bot_archive("mine"))).status_code \
                == 202
        sixth = await api.upload(ada, "ada", "mine", bot_archive("mine"))
        assert sixth.status_code == 429 and "per day" in sixth.json()["error"]


async def test_web_upload_form_and_bot_pages(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        client = api.client
        page = await client.get("/register")
        await client.post("/register", data={"name": "ada", "password": PASSWORD,
                                             "csrf": csrf_of(page.text)})
        account = await client.get("/account")
        token = csrf_of(account.text)
        files = {"archive": ("mine.tar.gz", bot_archive("mine"), "application/gzip")}
        no_csrf = await client.post("/upload", data={"name": "mine"}, files=files)
        assert no_csrf.status_code == 403
        made = await client.post("/upload", data={"name": "mine", "csrf": token}, files=files)
        assert made.status_code == 303 and made.headers["location"] == "/bots/ada/mine"
        bot = await client.get("/bots/ada/mine")
        assert "pending" in bot.text and "disable" in bot.text
        home = await client.get("/")
        assert home.status_code == 200 and "Ladder" in home.text
        admin = await client.get("/admin")
        assert admin.status_code == 403
        # another user's page has no forms, and its actions are refused
        client.cookies.clear()
        page = await client.get("/register")
        await client.post("/register", data={"name": "bob", "password": PASSWORD,
                                             "csrf": csrf_of(page.text)})
        other = await client.get("/bots/ada/mine")
        assert "delete" not in other.text
        refused = await client.post("/bots/ada/mine/delete", data={"csrf": csrf_of(other.text)})
        assert refused.status_code == 403


async def test_admin_page_and_login(server_folder: tuple[Path, str]) -> None:
    folder, password = server_folder
    async with in_process(folder) as api:
        login = await api.client.get("/login")
        await api.client.post("/login", data={"csrf": csrf_of(login.text), "name": "root",
                                              "password": password})
        admin = await api.client.get("/admin")
        assert admin.status_code == 200 and "root" in admin.text


async def test_errors_are_json_with_a_message_never_a_traceback(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        unknown = await api.client.get("/api/v1/nothing/here")
        assert unknown.status_code == 404 and unknown.json()["error"]
        invalid = await api.client.post("/api/v1/register", json={"name": 3})
        assert invalid.status_code == 422 and "invalid request" in invalid.json()["error"]
        not_json = await api.client.post("/api/v1/register", content=b"{",
                                         headers={"Content-Type": "application/json"})
        assert not_json.status_code == 422 and not_json.json()["error"]
        version = await api.client.get("/api/v1/versions/999")
        assert version.status_code == 404 and version.json() == {"error": "no version 999"}
        game = await api.client.get("/api/v1/games/0123456789abcdef")
        assert game.status_code == 404 and "Traceback" not in game.text
        assert str(api.server.settings.folder) not in game.text  # no server paths
        bad_game = await api.client.get("/api/v1/games/..%2F..%2Fetc")
        assert bad_game.status_code == 404
        board = await api.client.get("/api/v1/leaderboard?game=ra_dice")
        assert board.status_code == 404

        def boom(*args: object) -> None:
            raise RuntimeError("secret internals")

        api.server.store.version = boom  # type: ignore[method-assign]
        crash = await api.client.get("/api/v1/versions/1")
        assert crash.status_code == 500
        assert "secret internals" not in crash.text and "Traceback" not in crash.text
        assert crash.json() == {"error": "internal error (the server's log has details)"}
        page = await api.client.get("/no/such/page")
        assert page.status_code == 404 and "<html" in page.text


async def test_nothing_secret_is_stored_in_clear(server_folder: tuple[Path, str]) -> None:
    folder, admin_password = server_folder
    async with in_process(folder) as api:
        token = await api.account("ada")
        page = await api.client.get("/login")
        await api.client.post("/login", data={"csrf": csrf_of(page.text), "name": "ada",
                                              "password": PASSWORD})
        session_cookie = api.client.cookies.get("ra_session")
        assert session_cookie
        texts = list(api.server.store.iter_text())
    # SQLite's file and its log as they are on disk (on PostgreSQL: its tables' text)
    raw = b"".join(path.read_bytes() for path in folder.glob("league.sqlite*"))
    for secret in (PASSWORD, admin_password, token, token[3:]):
        assert secret.encode() not in raw
        assert not any(secret in text for text in texts)
    assert any(text.startswith("$argon2id$") for text in texts)


async def test_leaderboard_game_record_and_events(server_folder: tuple[Path, str]) -> None:
    """A stored game (added to the ladder's store as the ladder would) is served as
    `arena export` writes it, and the events stream announces games."""
    from arena.league.engine import StoredGame
    from arena.server.ladder import _Listener

    async with in_process(server_folder[0]) as api:
        import dataclasses

        from arena.runner.players import random_player
        from arena.runner.referee import play_game

        played = await play_game(api.server.games["ra"],
                                 [random_player("a/x@1"), random_player("b/y@1")], seed=7)
        record = dataclasses.replace(played, game_id="feedbeef12345678", table="t")
        api.server.league_store.add_game(record)
        record = api.server.league_store.find_game(record.game_id)
        # (httpx's ASGI transport returns a response whole, so the stream itself is read
        # from a real server in test_live.py; here, what the listener publishes)
        events = api.server.events.subscribe()
        _Listener(api.server.ladder).game_stored(None, StoredGame(  # type: ignore[arg-type]
            record.result(), None))
        text = events.receive_nowait()  # (this process's watchers: at once)
        assert text.startswith("id: 1\nevent: game_stored\ndata: {")
        assert json.loads(text.split("data: ")[1])["game_id"] == record.game_id
        answer = await api.client.get(f"/api/v1/games/{record.game_id}")
        assert answer.status_code == 200 and answer.json() == record.to_json()
        await api.server.leaderboards.compute()
        board = (await api.client.get("/api/v1/leaderboard?players=2")).json()
        assert board["games"] == 1
        assert sorted(row["bot"] for row in board["bots"]) == ["a/x@1", "b/y@1"]


async def test_body_limit_refuses_a_huge_request(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        token = await api.account("ada")

        async def chunks():  # type: ignore[no-untyped-def]
            for _ in range(100):
                yield bytes(64 * 1024)  # 6.4 MB, no Content-Length

        answer = await api.client.post(
            "/api/v1/bots/ada/mine/versions", content=chunks(),
            headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 413 and answer.json()["error"]


def test_api_is_only_reachable_with_a_token_not_a_cookie(
        server_folder: tuple[Path, str]) -> None:
    """A logged-in browser's cookie is no API credential (no cross-site forgery of API
    calls)."""
    async def main() -> None:
        async with in_process(server_folder[0]) as api:
            page = await api.client.get("/register")
            await api.client.post("/register", data={"name": "ada", "password": PASSWORD,
                                                     "csrf": csrf_of(page.text)})
            me = await api.client.get("/api/v1/me")
            assert me.status_code == 401

    trio.run(main)


async def test_the_remaining_routes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Listing bots, enabling, the page forms for revoking, approving, disabling and
    enabling, the stylesheet, a wrong method."""
    folder = tmp_path / "server"
    admin_password = make_server_folder(
        folder, capsys, **{"approval_required = false": "approval_required = true"})
    async with in_process(folder) as api:
        client = api.client
        # an account waiting for approval, approved by the admin on the admin page
        page = await client.get("/register")
        waiting = await client.post("/register", data={"name": "ada", "password": PASSWORD,
                                                       "csrf": csrf_of(page.text)})
        assert waiting.status_code == 200 and "approval" in waiting.text
        client.cookies.clear()
        login = await client.get("/login")
        await client.post("/login", data={"csrf": csrf_of(login.text), "name": "root",
                                          "password": admin_password})
        admin = await client.get("/admin")
        assert "approve" in admin.text
        no_csrf = await client.post("/admin/users/ada/approve")
        assert no_csrf.status_code == 403
        approved = await client.post("/admin/users/ada/approve",
                                     data={"csrf": csrf_of(admin.text)})
        assert approved.status_code == 303
        assert api.server.store.user("ada").approved  # type: ignore[union-attr]
        # ada's token, a bot, the listing; disable and enable by the owner
        token = await api.token("ada")
        auth = {"Authorization": f"Bearer {token}"}
        made = await api.upload(token, "ada", "mine", bot_archive("mine"))
        assert made.status_code == 202
        assert (await client.get("/api/v1/bots")).json() == [
            {"bot": "ada/mine", "disabled": False}]
        off = await client.post("/api/v1/bots/ada/mine/disable", headers=auth)
        on = await client.post("/api/v1/bots/ada/mine/enable", headers=auth)
        assert off.json()["disabled"] is True and on.json()["disabled"] is False
        # the pages' forms, as ada
        client.cookies.clear()
        login = await client.get("/login")
        await client.post("/login", data={"csrf": csrf_of(login.text), "name": "ada",
                                          "password": PASSWORD})
        bot = await client.get("/bots/ada/mine")
        csrf = csrf_of(bot.text)
        assert (await client.post("/bots/ada/mine/disable", data={"csrf": csrf})
                ).status_code == 303
        assert api.server.store.bot("ada", "mine").disabled  # type: ignore[union-attr]
        assert (await client.post("/bots/ada/mine/enable", data={"csrf": csrf})
                ).status_code == 303
        assert (await client.post("/bots/ada/mine/explode", data={"csrf": csrf})
                ).status_code == 404
        account = await client.get("/account")
        token_id = api.server.store.tokens(api.server.store.user("ada").id)[0].id  # type: ignore[union-attr]
        no_csrf = await client.post(f"/account/tokens/{token_id}/revoke")
        assert no_csrf.status_code == 403
        revoked = await client.post(f"/account/tokens/{token_id}/revoke",
                                    data={"csrf": csrf_of(account.text)})
        assert revoked.status_code == 303
        assert (await client.get("/api/v1/me", headers=auth)).status_code == 401
        not_mine = await client.post("/account/tokens/999/revoke",
                                     data={"csrf": csrf_of(account.text)})
        assert not_mine.status_code == 404
        # the stylesheets: the report's own, then the server's rules; a wrong method is
        # JSON too
        from importlib import resources

        css = await client.get("/static/report.css")
        assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
        # the very file arena report inlines
        assert css.text == resources.files("arena.report").joinpath("report.css").read_text()
        own = await client.get("/static/server.css")
        assert own.status_code == 200 and "header.site" in own.text
        for response in (css, account, wrong := await client.put("/api/v1/register", json={})):
            assert response.headers["x-frame-options"] == "DENY"
            assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
            assert response.headers["x-content-type-options"] == "nosniff"
        assert wrong.status_code == 405 and wrong.json()["error"]
