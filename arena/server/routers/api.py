"""The JSON API, ``/api/v1``: authenticated by ``Authorization: Bearer TOKEN`` (never by
the session cookie); every error ``{"error": message}`` with its status."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.responses import StreamingResponse

from arena.server.dependencies import (
    Address,
    ApiAdmin,
    ApiUser,
    OptionalApiUser,
    ServicesDep,
    Web,
)
from arena.server.errors import Refused
from arena.server.events import next_batch
from arena.server.models import (
    Account,
    Approved,
    BotInfo,
    BotListing,
    Credentials,
    Deleted,
    GameRecordJson,
    Leaderboard,
    NewToken,
    Revoked,
    TokenInfo,
    TokenRequest,
    VersionInfo,
)
from arena.server.views import api_routes

KEEPALIVE_SECONDS = 15.0
ARCHIVE_BODY = {"requestBody": {"required": True, "content": {
    "application/gzip": {"schema": {"type": "string", "format": "binary"}},
    "application/zip": {"schema": {"type": "string", "format": "binary"}}}}}

router = APIRouter(prefix="/api/v1")


# -- accounts -----------------------------------------------------------------------------
@router.post("/register", status_code=201, tags=["accounts"], response_model=Account)
async def register(body: Credentials, address: Address, services: ServicesDep
                   ) -> dict[str, Any]:
    """Make an account (it may need an admin's approval: see ``approved``)."""
    user = await services.accounts.register(address, body.name, body.password)
    return {"name": user.name, "role": user.role, "approved": user.approved}


@router.post("/tokens", status_code=201, tags=["accounts"], response_model=NewToken)
async def create_token(body: TokenRequest, address: Address, services: ServicesDep
                       ) -> dict[str, Any]:
    """A new API token for the account (name and password): shown this once."""
    user = await services.accounts.login(address, body.name, body.password)
    token, secret = services.accounts.new_token(user, body.token_name)
    return {"id": token.id, "name": token.name, "token": secret, "user": user.name}


@router.get("/tokens", tags=["accounts"], response_model=list[TokenInfo])
async def tokens(user: ApiUser, services: ServicesDep) -> list[dict[str, Any]]:
    """Your tokens (never their secrets)."""
    return [vars(token) for token in services.accounts.tokens(user)]


@router.delete("/tokens/{token_id}", tags=["accounts"], response_model=Revoked)
async def revoke_token(token_id: int, user: ApiUser, services: ServicesDep
                       ) -> dict[str, Any]:
    services.accounts.revoke_token(user, token_id)
    return {"revoked": token_id}


@router.get("/me", tags=["accounts"], response_model=Account)
async def me(user: ApiUser) -> dict[str, Any]:
    """Who the token is."""
    return {"name": user.name, "role": user.role, "approved": user.approved}


@router.post("/users/{name}/approve", tags=["accounts"], response_model=Approved)
async def approve(name: str, admin: ApiAdmin, services: ServicesDep) -> dict[str, Any]:
    """An admin's: the account may log in and upload."""
    services.admin.approve(admin, name)
    return {"name": name, "approved": True}


# -- bots ---------------------------------------------------------------------------------
@router.post("/bots/{owner}/{name}/versions", status_code=202, tags=["bots"],
             response_model=VersionInfo, openapi_extra=ARCHIVE_BODY)
async def upload(request: Request, owner: str, name: str, user: ApiUser,
                 services: ServicesDep) -> dict[str, Any]:
    """Upload a new version of OWNER/NAME: the body is the bot folder as .tar.gz or
    .zip.  Answers at once with the version's id, ``pending``; poll
    ``/api/v1/versions/{id}`` (or watch the events) for ``valid`` or ``rejected``."""
    version = await services.bots.upload(user, owner, name, await request.body())
    return services.bots.version_json(version, user)


@router.get("/versions/{version_id}", tags=["bots"], response_model=VersionInfo)
async def version(version_id: int, viewer: OptionalApiUser, services: ServicesDep
                  ) -> dict[str, Any]:
    """A version's state (pending, valid, rejected) and message; its validation
    report and stderr tail for its owner's (or an admin's) token only."""
    return services.bots.version_json(services.bots.version(version_id), viewer)


@router.get("/bots", tags=["bots"], response_model=list[BotListing])
async def bots(services: ServicesDep) -> list[dict[str, Any]]:
    return [{"bot": b.full_name, "disabled": b.disabled} for b in services.bots.bots()]


@router.get("/bots/{owner}/{name}", tags=["bots"], response_model=BotInfo)
async def bot(owner: str, name: str, viewer: OptionalApiUser, services: ServicesDep
              ) -> dict[str, Any]:
    """A bot and all its versions, each with its ``verdict`` against its predecessor
    (null if none; the bot's own ``verdict`` is its newest valid version's):
    ``state`` (testing, stronger, weaker, no_difference, inconclusive, superseded),
    ``elo`` and its 95% interval ``low``/``high``, ``games`` together, ``against``."""
    return services.bots.bot_json(owner, name, viewer)


@router.post("/bots/{owner}/{name}/disable", tags=["bots"], response_model=BotInfo)
async def disable(owner: str, name: str, user: ApiUser, services: ServicesDep
                  ) -> dict[str, Any]:
    """Out of the ladder until enabled (owner or admin)."""
    services.bots.set_disabled(user, owner, name, True)
    return services.bots.bot_json(owner, name, user)


@router.post("/bots/{owner}/{name}/enable", tags=["bots"], response_model=BotInfo)
async def enable(owner: str, name: str, user: ApiUser, services: ServicesDep
                 ) -> dict[str, Any]:
    """Back in the ladder (a pause ends too; owner or admin)."""
    services.bots.set_disabled(user, owner, name, False)
    return services.bots.bot_json(owner, name, user)


@router.delete("/bots/{owner}/{name}", tags=["bots"], response_model=Deleted)
async def delete(owner: str, name: str, user: ApiUser, services: ServicesDep
                 ) -> dict[str, Any]:
    """Take the bot out of the ladder and the listings; its games stay."""
    services.bots.delete(user, owner, name)
    return {"deleted": f"{owner}/{name}"}


# -- the ladder ---------------------------------------------------------------------------
@router.get("/leaderboard", tags=["ladder"], response_model=Leaderboard)
async def leaderboard(services: ServicesDep, game: str | None = None,
                      players: int | None = None) -> dict[str, Any]:
    """The ladder's ratings for one player count (Bradley–Terry Elo, 95% intervals)."""
    services.ladder.check_players(players, game)
    return services.ladder.leaderboard(players)


@router.get("/games/{game_id}", tags=["ladder"], response_model=GameRecordJson)
async def game(game_id: str, services: ServicesDep) -> Response:
    """A stored game's record: the JSON of ``arena export`` (docs/records.md)."""
    return JSONResponse(services.ladder.record(game_id).to_json())


@router.get("/events", tags=["ladder"], response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}},
                             "description": "one event per message: `event:` its kind, "
                                            "`data:` its JSON"}})
async def events(services: ServicesDep) -> StreamingResponse:
    """Server-sent events: ``game_started``, ``game_stored``, ``rating_changed``,
    ``upload_validated``, ``friendly_stored``, ``verdict`` (a version's test
    against its predecessor has ended)."""
    receive = services.ladder.subscribe()

    async def stream() -> AsyncIterator[str]:
        try:
            yield f": ra-arena events{services.ladder.process_label()}\n\n"
            while True:
                # never yield inside the timeout's scope: a client that leaves while
                # the generator is suspended there would unwind it out of order
                # (trio: "cancel scope stack corrupted")
                yield await next_batch(receive, KEEPALIVE_SECONDS)
        finally:
            services.ladder.unsubscribe(receive)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache"})


@router.get("/docs", response_class=HTMLResponse, include_in_schema=False)
async def docs(request: Request, web: Web) -> Response:
    """The API's reference, made here from its OpenAPI description: a page under the
    pages' policy (no script, nothing from elsewhere; Swagger UI would load both)."""
    return web.page("api.html", routes=api_routes(request.app.openapi()))


@router.get("/{rest:path}", include_in_schema=False)
async def unknown(rest: str) -> None:
    raise Refused(f"no such API route: /api/v1/{rest}", 404)
