"""The pages anybody may read: the leaderboard, a bot's page (and the state of one of
its versions for the page's script), a stored game's replay and its record."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse, Response

from arena.server.dependencies import ServicesDep, Web

router = APIRouter(include_in_schema=False)


@functools.cache
def report_style() -> str:
    return resources.files("arena.report").joinpath("report.css").read_text(encoding="utf-8")


@router.get("/static/report.css")  # (routers come before the static files: this wins)
async def report_css() -> Response:
    """The report's stylesheet, the pages' look: one definition for both."""
    return Response(report_style(), media_type="text/css",
                    headers={"cache-control": "public, max-age=3600"})


@router.get("/", response_class=HTMLResponse)
async def home(web: Web, services: ServicesDep, players: int | None = None) -> Response:
    services.ladder.check_players(players)
    return web.page("index.html", board=services.ladder.leaderboard(players),
                    players=services.settings.players)


@router.get("/favicon.ico")
async def favicon() -> Response:
    return Response(status_code=204)  # no icon: but no 404 in the browser's log


@router.get("/games/{game_id}", response_class=HTMLResponse)
async def game_page(game_id: str, services: ServicesDep) -> Response:
    """The replay viewer of a stored game, with a link back and the download."""
    html, policy = await services.ladder.replay(game_id)
    return HTMLResponse(html, headers={"content-security-policy": policy})


@router.get("/games/{game_id}/record.json")
async def game_download(game_id: str, services: ServicesDep) -> Response:
    record = services.ladder.record(game_id)
    return JSONResponse(record.to_json(), headers={
        "content-disposition": f'attachment; filename="{record.game_id}.json"'})


@router.get("/bots/{owner}/{name}", response_class=HTMLResponse)
async def bot_page(owner: str, name: str, web: Web, services: ServicesDep) -> Response:
    return web.page("bot.html", **await services.bots.page(owner, name, web.user))


@router.get("/bots/{owner}/{name}/versions/{number}.json")
async def version_state(owner: str, name: str, number: int, web: Web,
                        services: ServicesDep) -> dict[str, Any]:
    """One version as the bot page's script reads it (the report and the stderr tail
    only for its owner and admins, by the session)."""
    version = services.bots.version_numbered(owner, name, number)
    return services.bots.version_json(version, web.user)
