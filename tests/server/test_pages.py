"""The server's pages in process (httpx's ASGI transport under trio): the leaderboard, a
game's replay and download, a bot page with its results and failure triage, the upload
page; their Content-Security-Policy, and every text a user supplied escaped."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import PASSWORD, Api, bot_archive, csrf_of, in_process

pytestmark = pytest.mark.anyio
EVIL = "<script>alert(1)</script>&<b>"


async def web_login(api: Api, name: str, password: str = PASSWORD) -> None:
    api.client.cookies.clear()
    login = await api.client.get("/login")
    answer = await api.client.post("/login", data={"csrf": csrf_of(login.text), "name": name,
                                                   "password": password})
    assert answer.status_code == 303, answer.text


async def valid_bot(api: Api, owner: str, name: str) -> str:
    """OWNER/NAME version 1 uploaded and marked valid (no validation queue here)."""
    token = await api.account(owner)
    answer = await api.upload(token, owner, name, bot_archive(name))
    assert answer.status_code == 202, answer.text
    version = answer.json()
    api.server.store.finish_validation(version["id"], "valid", "1", {"passed": True},
                                       f"passed {EVIL}", f"said {EVIL}")
    return str(version["ladder_name"])


async def store_games(api: Api, names: list[str], count: int, crash: str | None = None,
                      ) -> list[Any]:
    """COUNT games of NAMES (2 seats each) stored as the ladder stores them; CRASH's seat
    crashes at decision 3, with an angry stderr."""
    from arena.runner.players import random_player
    from arena.runner.referee import play_game
    from tests.viewer.conftest import crashes_at

    records = []
    for i in range(count):
        seats = names if i % 2 == 0 else names[::-1]
        players = [crashes_at(3, name) if name == crash else random_player(name)
                   for name in seats]
        played = await play_game(api.server.games["ra"], players, seed=100 + i)
        record = played.in_league(f"abcd{i:04d}ef{i:06d}", "t", i)
        if record.failures:
            record = dataclasses.replace(record, failures=tuple(
                {**f, "stderr_tail": f"Traceback {EVIL}"} for f in record.failures))
        api.server.league_store.add_game(record)
        records.append(api.server.league_store.find_game(record.game_id))
    await api.server.leaderboards.compute()
    return records


def scripts_of(html: str) -> list[str]:
    return re.findall(r"<script[^>]*>", html)


async def test_leaderboard_page_rows_marks_games_and_policy(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        ada = await valid_bot(api, "ada", "alpha")
        bob = await valid_bot(api, "bob", "beta")
        records = await store_games(api, [ada, bob], 4)
        page = await api.client.get("/")
        assert page.status_code == 200
        html = page.text
        assert ada in html and bob in html and 'href="/bots/ada/alpha"' in html
        # four games cannot settle two bots' order: both rows carry the mark
        assert html.count('class="unsettled"') == 2 and "order not settled" in html
        assert f'href="/games/{records[-1].game_id}"' in html
        assert 'id="in-progress"' in html
        # no inline script; the policy runs the server's own files only
        assert scripts_of(html) == ['<script src="/static/leaderboard.js">']
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        assert "connect-src 'self'" in policy and "default-src 'none'" in policy
        board = (await api.client.get("/api/v1/leaderboard?players=2")).json()
        assert all(row["unsettled"] for row in board["bots"])
        assert [g["game_id"] for g in board["recent"]][0] == records[-1].game_id
        assert board["in_progress"] == []
        # a game the ladder has handed to the league and not stored yet (announced to
        # every web process as the ladder announces it)
        api.server.announce("game_started", {"game_id": "f00d", "num_players": 2,
                                             "bots": [bob, ada]})
        playing = (await api.client.get("/")).text
        listed = playing.split('id="in-progress"')[1].split("</ul>")[0]
        assert f"{bob} · {ada}" in listed
        script = await api.client.get("/static/leaderboard.js")
        assert script.status_code == 200 and "innerHTML" not in script.text
        assert (await api.client.get("/?players=5")).status_code == 404


async def test_game_page_and_download(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        ada = await valid_bot(api, "ada", "alpha")
        bob = await valid_bot(api, "bob", "beta")
        (record,) = await store_games(api, [ada, bob], 1, crash=bob)
        page = await api.client.get(f"/games/{record.game_id}")
        assert page.status_code == 200
        policies = page.headers.get_list("content-security-policy")
        assert len(policies) == 1  # the page's own: the hashes of its script and style
        assert "'sha256-" in policies[0] and "unsafe-inline" not in policies[0]
        assert "frame-ancestors 'none'" in policies[0]
        assert EVIL not in page.text  # the stderr tail in the embedded data is escaped
        assert f'href="/games/{record.game_id}/record.json"' in page.text
        download = await api.client.get(f"/games/{record.game_id}/record.json")
        assert download.status_code == 200
        assert "attachment" in download.headers["content-disposition"]
        assert download.json() == record.to_json() == (
            await api.client.get(f"/api/v1/games/{record.game_id}")).json()
        for bad in ("nosuchgame1234", "x", "../../etc"):
            assert (await api.client.get(f"/games/{bad}")).status_code == 404
        assert (await api.client.get("/games/nosuchgame1234/record.json")).status_code == 404


async def test_bot_page_results_chart_and_failure_triage(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        ada = await valid_bot(api, "ada", "alpha")
        bob = await valid_bot(api, "bob", "beta")
        records = await store_games(api, [ada, bob], 4, crash=bob)
        await web_login(api, "bob")
        page = await api.client.get("/bots/bob/beta")
        assert page.status_code == 200
        html = page.text
        assert "Against each opponent" in html and '<td class="title">ada/alpha@1</td>' in html
        assert '<section class="failure-group" data-reason="crash">' in html
        assert "crash: 4 games" in html
        failure = records[-1].failures[0]
        assert f'href="/games/{records[-1].game_id}#decision={failure["decision"]}"' in html
        # stderr, the message and the report: escaped, never as markup
        assert EVIL not in html and "Traceback &lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "said &lt;script&gt;" in html
        assert "<svg" in html and "<script>" not in html  # the chart: no script in it
        assert scripts_of(html) == ['<script src="/static/bot.js">']
        # another user sees the triage without the stderr tails
        await web_login(api, "ada")
        other = await api.client.get("/bots/bob/beta")
        assert "crash: 4 games" in other.text and "Traceback" not in other.text
        assert "said &lt;" not in other.text
        mine = (await api.client.get("/bots/ada/alpha")).text
        assert "No failure in its ladder games." in mine
        # the verdict as the page's script reads it: private parts for the owner only
        seen = (await api.client.get("/bots/bob/beta/versions/1.json")).json()
        assert seen["state"] == "valid" and seen["report"] is None
        await web_login(api, "bob")
        own = (await api.client.get("/bots/bob/beta/versions/1.json")).json()
        assert own["report"] == {"passed": True} and EVIL in own["stderr_tail"]
        assert (await api.client.get("/bots/bob/beta/versions/9.json")).status_code == 404
        assert (await api.client.get("/bots/bob/nobot/versions/1.json")).status_code == 404
        script = await api.client.get("/static/bot.js")
        assert "innerHTML" not in script.text


async def test_token_names_and_messages_are_escaped(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        await api.account("ada")
        await web_login(api, "ada")
        account = await api.client.get("/account")
        shown = await api.client.post("/account/tokens", data={
            "csrf": csrf_of(account.text), "token_name": EVIL})
        assert EVIL not in shown.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown.text
        listed = await api.client.get("/account")
        assert EVIL not in listed.text and "&lt;b&gt;" in listed.text
        # a refusal's message quotes what was sent: escaped too
        refused = await api.client.get("/games/" + "a" * 70)
        assert refused.status_code == 404
        error = await api.client.get("/bots/ada/%3Cscript%3E")
        assert error.status_code == 404 and "<script>" not in error.text


async def test_upload_page(server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        anonymous = await api.client.get("/upload")
        assert anonymous.status_code == 303 and anonymous.headers["location"] == "/login"
        await api.account("ada")
        await web_login(api, "ada")
        page = await api.client.get("/upload?name=clever")
        assert page.status_code == 200 and 'value="clever"' in page.text
        assert 'name="owner"' not in page.text  # admins only
        files = {"archive": ("x.tar.gz", bot_archive("clever"), "application/gzip")}
        made = await api.client.post("/upload", data={"name": "clever",
                                                      "csrf": csrf_of(page.text)}, files=files)
        assert made.headers["location"] == "/bots/ada/clever"
        bot = await api.client.get("/bots/ada/clever")
        assert 'data-state="pending"' in bot.text
        assert "script-src 'self'" in bot.headers["content-security-policy"]


async def test_admin_disables_a_user_and_a_bot_and_validates_again(
        server_folder: tuple[Path, str]) -> None:
    folder, password = server_folder
    async with in_process(folder) as api:
        ada = await valid_bot(api, "ada", "alpha")
        await store_games(api, [ada, "arena/x@1"], 1)
        ada_token = await api.token("ada")
        # a user cannot use the admin's forms
        await web_login(api, "ada")
        page = await api.client.get("/account")
        for action in ("/admin/users/ada/disable", "/admin/versions/1/revalidate"):
            answer = await api.client.post(action, data={"csrf": csrf_of(page.text)})
            assert answer.status_code == 403, action
        await web_login(api, "root", password)
        admin = await api.client.get("/admin")
        html = admin.text
        assert admin.status_code == 200 and 'id="ladder"' in html
        assert "/admin/users/ada/disable" in html and "/admin/users/root/disable" not in html
        assert "/admin/versions/1/revalidate" in html and "ada/alpha@1" in html
        assert 'action="/bots/ada/alpha/disable"' in html
        csrf = csrf_of(html)
        # validate again: pending, out of the ladder, on the queue
        again = await api.client.post("/admin/versions/1/revalidate", data={"csrf": csrf})
        assert again.status_code == 303 and again.headers["location"] == "/bots/ada/alpha"
        version = api.server.store.version(1)
        assert version is not None and version.state == "pending" and version.report is None
        assert api.server.queue_receive.receive_nowait() == 1
        twice = await api.client.post("/admin/versions/1/revalidate", data={"csrf": csrf})
        assert twice.status_code == 409
        missing = await api.client.post("/admin/versions/99/revalidate", data={"csrf": csrf})
        assert missing.status_code == 404
        # disable the bot, then the user: no login, no token, bots out
        off = await api.client.post("/bots/ada/alpha/disable", data={"csrf": csrf})
        assert off.status_code == 303
        assert api.server.store.bot("ada", "alpha").disabled  # type: ignore[union-attr]
        gone = await api.client.post("/admin/users/ada/disable", data={"csrf": csrf})
        assert gone.status_code == 303
        me = await api.client.get("/api/v1/me", headers={"Authorization": f"Bearer {ada_token}"})
        assert me.status_code == 401
        assert (await api.client.post("/admin/users/root/disable",
                                      data={"csrf": csrf})).status_code == 403
        assert (await api.client.post("/admin/users/nobody/disable",
                                      data={"csrf": csrf})).status_code == 404
        api.client.cookies.clear()
        login = await api.client.get("/login")
        refused = await api.client.post("/login", data={
            "csrf": csrf_of(login.text), "name": "ada", "password": PASSWORD})
        assert refused.status_code == 403


async def test_friendly_games_are_played_apart_and_never_rated(
        server_folder: tuple[Path, str]) -> None:
    import trio

    async with in_process(server_folder[0]) as api:
        ada = await valid_bot(api, "ada", "alpha")
        bob = await valid_bot(api, "bob", "beta")
        server = api.server
        server.ladder.set_roster(server.ladder.specs())  # as the running ladder sets it
        assert {spec.name for spec in server.ladder.roster} == {ada, bob}
        await web_login(api, "ada")
        page = await api.client.get("/bots/ada/alpha")
        assert 'id="friendly-form"' in page.text and f'value="{bob}"' in page.text
        csrf = csrf_of(page.text)
        for form, status in (({"games": "2"}, 400),  # no opponent
                             ({"games": "0", "opponent": bob}, 400),
                             ({"games": "99", "opponent": bob}, 400),
                             ({"games": "x", "opponent": bob}, 400),
                             ({"games": "2", "opponent": "eve/x@1"}, 400),
                             ({"games": "2", "opponent": ada}, 400)):
            answer = await api.client.post("/bots/ada/alpha/friendly",
                                           data={**form, "csrf": csrf})
            assert answer.status_code == status, (form, answer.text)
        others = await api.client.post("/bots/bob/beta/friendly",
                                       data={"games": "2", "opponent": ada, "csrf": csrf})
        assert others.status_code == 403
        asked = await api.client.post("/bots/ada/alpha/friendly",
                                      data={"games": "2", "opponent": bob, "csrf": csrf})
        assert asked.status_code == 303
        async with trio.open_nursery() as nursery:
            nursery.start_soon(server.friendlies.run)
            with trio.fail_after(120):
                while server.store.friendlies(1)[0].state not in ("done", "failed"):
                    await trio.sleep(0.2)
            nursery.cancel_scope.cancel()
        (request,) = server.store.friendlies(1)
        assert request.state == "done" and request.played == 2, request
        assert len(request.game_ids) == 2
        # apart from the ladder's games: no rating, no leaderboard
        assert server.league_store.count() == 0
        await server.leaderboards.compute()
        assert (await api.client.get("/api/v1/leaderboard?players=2")).json()["games"] == 0
        # the bot page lists them; each opens in the viewer and downloads
        page = await api.client.get("/bots/ada/alpha")
        for game_id in request.game_ids:
            assert f'href="/games/{game_id}"' in page.text
            assert (await api.client.get(f"/games/{game_id}")).status_code == 200
            record = (await api.client.get(f"/games/{game_id}/record.json")).json()
            assert record["game_id"] == game_id and ada in json.dumps(record)


@pytest.mark.no_store
def test_house_bots_are_shown_without_their_tag_where_the_name_is_unique() -> None:
    """Issue 43: "Newest games" was a wall of bot@hash.  A house bot (arena/NAME@TAG) is
    shown as arena/NAME unless another house bot of that name is shown beside it (the old
    and the new after an upgrade); an uploaded bot's version number stays."""
    from arena.server.views import shown_names

    assert shown_names(["arena/random@08636689", "ada/alpha@1", "arena/first@e85759f5"]) \
        == {"arena/random@08636689": "arena/random", "ada/alpha@1": "ada/alpha@1",
            "arena/first@e85759f5": "arena/first"}
    upgraded = shown_names(["arena/random@08636689", "arena/random@1a2b3c4d"])
    assert upgraded == {name: name for name in upgraded}
