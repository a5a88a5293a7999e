"""A hostile probe of the server (issue 43 item 7), in process: every route that takes a
number with huge, negative and garbage ones (404 or 422, never a crash), what a crash
writes to the log (one line per cause a minute, no traceback), and the API's docs page
(no script, nothing from elsewhere, under the pages' policy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.server import core
from arena.server.app import CSP
from tests.server.conftest import bot_archive, in_process
from tests.server.test_hostile_visitors import other_client, web_login

pytestmark = pytest.mark.anyio

NUMBERS = ["99999999999999999999", "9223372036854775808", "-9223372036854775809", "-1", "0",
           "-99999999999999999999", "abc", "1e3", "0x10", "1.5", "%00", "1%20OR%201=1",
           "9" * 5000]


async def test_every_route_taking_a_number_answers_404_or_422_to_a_probe(
        server_folder: tuple[Path, str]) -> None:
    folder, admin_password = server_folder
    async with in_process(folder) as api:
        ada = await api.account("ada")
        assert (await api.upload(ada, "ada", "mine", bot_archive("mine"))).status_code == 202
        async with other_client(api, strict=True) as client, \
                other_client(api, strict=True) as admin:
            csrf = await web_login(client, "ada")
            admin_csrf = await web_login(admin, "root", admin_password)
            logged = list(api.server.log_lines)
            for number in NUMBERS:
                probes = [
                    (client, "GET", f"/api/v1/versions/{number}", {}),
                    (client, "GET", f"/api/v1/versions/{number}",
                     {"headers": {"Authorization": f"Bearer {ada}"}}),
                    (client, "DELETE", f"/api/v1/tokens/{number}",
                     {"headers": {"Authorization": f"Bearer {ada}"}}),
                    (client, "POST", f"/account/tokens/{number}/revoke",
                     {"data": {"csrf": csrf}}),
                    (admin, "POST", f"/admin/versions/{number}/revalidate",
                     {"data": {"csrf": admin_csrf}}),
                    (client, "GET", f"/bots/ada/mine/versions/{number}.json", {}),
                    (client, "GET", f"/?players={number}", {}),
                    (client, "GET", f"/api/v1/leaderboard?players={number}", {}),
                    (client, "POST", "/bots/ada/mine/friendly",
                     {"data": {"csrf": csrf, "games": number, "opponent": "x"}}),
                ]
                for who, method, path, extra in probes:
                    answer = await who.request(method, path, **extra)
                    assert answer.status_code in (400, 404, 422), (path[:80], answer.text)
                    assert "Traceback" not in answer.text and str(folder) not in answer.text
                    if path.startswith("/api/"):
                        assert answer.json()["error"]
            assert api.server.log_lines == logged  # a visitor's mistakes are not logged
            # the right ids still work
            version = await client.get("/api/v1/versions/1")
            assert version.status_code == 200 and version.json()["bot"] == "ada/mine"
            token_id = (await client.get("/api/v1/tokens", headers={
                "Authorization": f"Bearer {ada}"})).json()[0]["id"]
            revoked = await client.delete(f"/api/v1/tokens/{token_id}",
                                          headers={"Authorization": f"Bearer {ada}"})
            assert revoked.status_code == 200


async def test_a_crash_is_one_line_a_minute_in_the_log_and_no_traceback(
        server_folder: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(core.time, "monotonic", lambda: now[0])
    async with in_process(server_folder[0]) as api:
        def boom(*args: object) -> None:
            raise RuntimeError("a bug")

        api.server.store.version = boom  # type: ignore[method-assign]
        async with other_client(api, strict=True) as client:  # raises if one leaves the app
            for number in range(1, 51):
                answer = await client.get(f"/api/v1/versions/{number}")
                assert answer.status_code == 500
                assert answer.json() == {"error": "internal error (the server's log has "
                                                  "details)"}
            crashes = [line for line in api.server.log_lines if "a bug" in line]
            assert crashes == ["GET /api/v1/versions/1: RuntimeError('a bug')"]
            now[0] += core.LOG_LIMIT_SECONDS
            await client.get("/api/v1/versions/77")
            crashes = [line for line in api.server.log_lines if "a bug" in line]
            assert crashes[1:] == ["GET /api/v1/versions/77: RuntimeError('a bug') (49 more "
                                   "like it left out of the log since the last)"]


async def test_the_api_docs_page_loads_nothing_from_elsewhere(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        docs = await api.client.get("/api/v1/docs")
        assert docs.status_code == 200
        assert docs.headers["content-security-policy"] == CSP.decode()
        assert "script-src 'self'" in docs.headers["content-security-policy"]
        assert "<script" not in docs.text and "://" not in docs.text  # nothing to fetch
        assert "swagger" not in docs.text.lower()
        for route in ("POST /api/v1/tokens", "GET /api/v1/versions/{version_id}",
                      "DELETE /api/v1/tokens/{token_id}", "GET /api/v1/events"):
            assert route in docs.text
        assert "body: application/gzip, application/zip" in docs.text
        openapi = await api.client.get("/api/v1/openapi.json")
        assert openapi.status_code == 200 and "/api/v1/docs" not in openapi.json()["paths"]
