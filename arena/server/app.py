"""The web app and the JSON API (FastAPI on anyio; Hypercorn's trio worker serves it).

- ``/api/v1/...``: JSON, authenticated by ``Authorization: Bearer TOKEN`` (API tokens:
  never by the session cookie, so no API call can be forged from another site); every
  error is ``{"error": message}`` with its status, never a traceback.
- The web pages: Jinja2 templates, a signed ``HttpOnly``/``SameSite=Lax`` session cookie
  that also carries the CSRF token every form sends back.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import StreamingResponse
from starlette.staticfiles import StaticFiles

from arena import __version__
from arena.errors import ArenaError
from arena.server import accounts
from arena.server.accounts import COOKIE_NAME, Session
from arena.server.cache import Shared
from arena.server.core import DISK_FULL_ANSWER, MAX_FRIENDLY_GAMES, Refused, Server
from arena.server.events import next_batch
from arena.server.store import User, disk_full
from arena.server.verdicts import verdict_json

if TYPE_CHECKING:
    from arena.records import GameRecord, GameResult

# the replay page at phone width: long words (paths in a stderr tail) wrap, the controls
# shrink
REPLAY_PHONE_STYLE = (
    "pre, .failure, #move { overflow-wrap: anywhere; } "
    "@media (max-width: 600px) { main { padding: 8px; } #position { min-width: 0; } "
    ".controls input[type=range] { min-width: 0; flex-basis: 100%; } "
    ".seats { grid-template-columns: 1fr; } }")
CHART_POINTS = 30  # ratings computed for the bot page's chart, at most
FRESH_SECONDS = 1.0  # what the pages derive from the games: made again at most this often
CHART_DUTY = 0.1  # the bot pages' rating histories take at most this share of a core

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
KEEPALIVE_SECONDS = 15.0
MAX_EVENT_STREAMS = 200
FORM_OVERHEAD = 64 * 1024  # multipart framing and the form's other fields

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


# on every response: no framing (clickjacking of the forms), no sniffing, no referrer to
# other sites; the pages load nothing but the server's own stylesheet
DOCS_HEADERS = [(b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff"),
                (b"referrer-policy", b"same-origin")]
# the pages run only the server's own script files (no inline script) and talk only to
# the server (the events stream, the JSON API); a replay page sends a policy of its own
# (the hashes of its inline script and style), which this one then does not replace
CSP = (b"default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; "
       b"img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = [*DOCS_HEADERS, (b"content-security-policy", CSP)]


class TooLarge(Exception):
    pass


class BodyLimit:
    """Refuses a request body larger than ``limit`` bytes with 413, counting what is read
    (a Content-Length is not trusted, a chunked body has none); adds the security headers
    to every response."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit() and int(value) > self.limit:
                await _send_json(send, 413, f"the request has more than {self.limit} bytes")
                return
        seen = 0
        started = too_large = False

        async def counted() -> Message:
            nonlocal seen, too_large
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    too_large = True
                    raise TooLarge()
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if too_large:  # the app answered a body cut at the limit (FastAPI: a 400)
                if not started and message["type"] == "http.response.start":
                    started = True
                    await _send_json(send, 413, f"the request has more than {self.limit} "
                                                "bytes")
                return
            if message["type"] == "http.response.start":
                started = True
                headers = message.get("headers", [])
                own = any(key.lower() == b"content-security-policy" for key, _ in headers)
                message = {**message, "headers": [
                    *headers, *(DOCS_HEADERS if own else HEADERS)]}
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except TooLarge:
            if not started:
                await _send_json(send, 413, f"the request has more than {self.limit} bytes")
        except Exception:
            # the app's handler answered 500 and logged it in one line (rate-limited);
            # Starlette raises it again for the server's log, a traceback per request
            if not started:
                await _send_json(send, 500, "internal error (the server's log has details)")


async def _send_json(send: Send, status: int, message: str) -> None:
    body = JSONResponse({"error": message}, status_code=status).body
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


# -- request bodies of the API -------------------------------------------------------
class Credentials(BaseModel):
    name: str = Field(max_length=64)
    password: str = Field(max_length=accounts.MAX_PASSWORD)


class TokenRequest(Credentials):
    token_name: str = Field(default="cli", min_length=1, max_length=64)


def create_app(server: Server) -> Any:
    """The ASGI application of ``server`` (wrapped in the body-size limit)."""
    app = FastAPI(
        title="Ra Arena server", version=__version__, openapi_url="/api/v1/openapi.json",
        docs_url=None, redoc_url=None, debug=False,  # the docs page: our own, below
        description="Bots, versions, validation, the ladder's leaderboard and games. "
                    "Authenticate with `Authorization: Bearer TOKEN` (see docs/server.md).")
    templates = Jinja2Templates(directory=str(TEMPLATES))
    templates.env.filters["when"] = _when
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    settings = server.settings
    store = server.store

    # -- errors: JSON for the API, a page for people; never a traceback --------------
    def error_response(request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=status)
        return templates.TemplateResponse(
            request, "error.html", _context(request, None, message=message, status=status),
            status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        message = error.detail if isinstance(error.detail, str) else "error"
        if error.status_code == 404 and message == "Not Found":
            message = f"no such page: {request.url.path}"
        return error_response(request, error.status_code, message)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', 'invalid')}"
            for e in error.errors()[:5])
        return error_response(request, 422, f"invalid request: {problems}")

    @app.exception_handler(Refused)
    async def refused(request: Request, error: Refused) -> Response:
        return error_response(request, error.status, str(error))

    @app.exception_handler(ArenaError)
    async def arena_error(request: Request, error: ArenaError) -> Response:
        return error_response(request, 400, str(error))

    @app.exception_handler(TooLarge)
    async def too_large(request: Request, error: TooLarge) -> Response:
        return error_response(request, 413, f"the request has more than "
                              f"{settings.max_archive_bytes + FORM_OVERHEAD} bytes")

    @app.exception_handler(Exception)
    async def crashed(request: Request, error: Exception) -> Response:
        # one line per cause a minute: a visitor repeating the request fills no log
        route = getattr(request.scope.get("route"), "path", request.url.path)
        server.log_limited(f"{request.method} {route} {type(error).__name__}",
                           f"{request.method} {request.url.path[:200]}: {error!r}"[:1000])
        return error_response(request, 500, "internal error (the server's log has details)")

    # (their own handler: one for Exception also gets the traceback printed)
    @app.exception_handler(sqlite3.OperationalError)
    @app.exception_handler(OSError)
    async def write_failed(request: Request, error: Exception) -> Response:
        if disk_full(error):  # nothing was changed: SQLite rolled the write back
            server.log_limited("disk full", f"{request.method} {request.url.path[:200]}: "
                                            "the disk is full")
            return error_response(request, 507, DISK_FULL_ANSWER)
        return await crashed(request, error)

    # -- who is asking ----------------------------------------------------------------
    def api_user(request: Request, *, required: bool = True) -> User | None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        user = accounts.user_of_token(store, token.strip()) \
            if scheme.lower() == "bearer" else None
        if user is not None and not user.approved:
            user = None  # disabled by an admin (its tokens are revoked too)
        if user is None and required:
            raise Refused("a valid API token is needed (Authorization: Bearer TOKEN; "
                          "`arena login URL` or the account page makes one)", 401)
        return user

    def session_of(request: Request) -> Session:
        cached = getattr(request.state, "session", None)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        session = server.cookies.load(request.cookies.get(COOKIE_NAME))
        if session is None:
            session = Session(accounts.new_secret())
            request.state.new_cookie = True
        request.state.session = session
        return session

    def web_user(request: Request) -> User | None:
        session = session_of(request)
        if session.sid is None:
            return None
        user = store.user_of_session(accounts.digest(session.sid))
        return user if user is not None and user.approved else None

    def need_web_user(request: Request) -> User:
        user = web_user(request)
        if user is None:
            raise Refused("log in first", 401)
        return user

    async def form_of(request: Request) -> dict[str, Any]:
        """The form, after its CSRF token is checked against the session's."""
        form = await request.form(max_files=1, max_fields=20,
                                  max_part_size=settings.max_archive_bytes + FORM_OVERHEAD)
        if not accounts.same_secret(_text(form.get("csrf")), session_of(request).csrf):
            raise Refused("the form's CSRF token is missing or wrong: reload the page and "
                          "send it again", 403)
        return dict(form)

    def client(request: Request) -> str:
        """Who the rate limits count: the address (IPv6: its /64)."""
        return accounts.address_key(request.client.host if request.client else "unknown")

    def with_cookie(request: Request, response: Response) -> Response:
        session = getattr(request.state, "session", None)
        if session is not None and getattr(request.state, "new_cookie", False):
            response.set_cookie(COOKIE_NAME, server.cookies.dump(session),
                                max_age=accounts.SESSION_SECONDS, httponly=True,
                                samesite="lax", secure=server.secure_cookies, path="/")
        return response

    def page(request: Request, name: str, user: User | None, **values: Any) -> Response:
        return with_cookie(request, templates.TemplateResponse(
            request, name, _context(request, user, csrf=session_of(request).csrf,
                                    server_game=settings.game, **values)))

    def redirect(request: Request, to: str) -> Response:
        return with_cookie(request, RedirectResponse(to, status_code=303))

    def start_session(request: Request, user: User) -> None:
        sid = accounts.new_secret()
        store.add_session(accounts.digest(sid), user.id, accounts.SESSION_SECONDS)
        old = session_of(request)
        if old.sid:
            store.end_session(accounts.digest(old.sid))
        request.state.session = Session(accounts.new_secret(), sid)  # a fresh CSRF token
        request.state.new_cookie = True

    # -- accounts: the logic the API and the pages share --------------------------------
    async def register(request: Request, name: str, password: str) -> User:
        if not server.register_limit.allow(client(request)):
            raise Refused("too many new accounts from your address; try again later", 429)
        accounts.check_new_account(name, password)
        if store.user(name) is not None:
            raise Refused(f"the name {name!r} is taken", 409)
        hashed = await trio.to_thread.run_sync(accounts.hash_password, password)
        return store.add_user(name, hashed, "user", not settings.approval_required)

    async def check_login(request: Request, name: str, password: str) -> User:
        address = client(request)
        wait, why = server.login_limit.wait(address, name)
        if wait:
            raise Refused(why, 429)
        user = store.user(name)
        stored = store.password_hash(user.id) if user is not None else None
        ok, rehashed = await trio.to_thread.run_sync(accounts.password_matches, stored,
                                                     password)
        if user is None or not ok:
            server.login_limit.failed(address, name)
            raise Refused("wrong name or password", 401)
        server.login_limit.succeeded(address, name)
        if rehashed is not None:
            store.set_password_hash(user.id, rehashed)
        if not user.approved:
            raise Refused("your account waits for an admin's approval", 403)
        return user

    def bot_json(owner: str, name: str, user: User | None) -> dict[str, Any]:
        bot = store.bot(owner, name)
        if bot is None:
            raise Refused(f"no bot {owner}/{name}", 404)
        private = server.may_see(user, owner)
        verdicts = {verdict.version_id: verdict for verdict in store.verdicts(bot.id)}
        versions = [{**v.to_json(private), "verdict": verdict_json(verdicts.get(v.id))}
                    for v in store.versions(bot.id)]
        # the bot's verdict: its newest valid version's against its predecessor
        current = next((v for v in reversed(versions) if v["state"] == "valid"), None)
        return {"bot": bot.full_name, "owner": bot.owner, "name": bot.name,
                "disabled": bot.disabled, "created_at": bot.created_at,
                "verdict": current["verdict"] if current else None, "versions": versions}

    def leaderboard(players: int | None) -> dict[str, Any]:
        count = players if players is not None else settings.players[0]
        board = server.leaderboards.boards.get(count)
        names = store.all_ladder_names()
        rows = []
        for row in (board or {}).get("bots", []):
            version = names.get(row["bot"])
            rows.append({**_finite(row), "owner": version.owner if version else "arena",
                         "version_id": version.id if version else None,
                         "page": f"/bots/{version.owner}/{version.bot}" if version else None})
        _mark_unsettled(rows)
        playing = [{"game_id": game.game_id, "bots": list(game.seats)}
                   for game in list(server.ladder.in_progress.values())
                   if game.num_players == count]
        return {"game": settings.game, "num_players": count,
                "games": (board or {}).get("games", 0), "bots": rows,
                "roster": [spec.name for spec in server.ladder.roster],
                "in_progress": playing, "recent": (board or {}).get("recent", [])}

    # -- what the pages derive from the ladder's games: shared, not made per view -------
    bot_views: Shared[tuple[dict[str, Any], str | None, list[dict[str, Any]], str]] = \
        Shared(FRESH_SECONDS)
    chart_histories: Shared[tuple[list[int], dict[str, list[float | None]]]] = \
        Shared(FRESH_SECONDS, duty=CHART_DUTY)

    async def bot_ladder_view(versions: list[dict[str, Any]]
                              ) -> tuple[dict[str, Any], str | None, list[dict[str, Any]], str]:
        """A bot's ladder results (per version, against each opponent), the current
        version's name, its failures (the newest few of each reason, with their records'
        details) and its rating chart: computed in a thread once for every viewer of the
        bot while no game is stored, or at most once a second (``cache.Shared``)."""
        valid = [v for v in versions if v["state"] == "valid"]
        names = frozenset(v["ladder_name"] for v in valid)
        current = valid[-1]["ladder_name"] if valid else None
        every = server.ladder.results  # kept up as games are stored (one copy in memory)
        # before the ladder has read its games, they are read from the store, and a
        # view is kept only its minimum age (a version that equals no other)
        generation: object = len(every) if every else object()

        def compute() -> tuple[dict[str, Any], str | None, list[dict[str, Any]], str]:
            games = list(every) if every else server.ladder_results() if names else []
            results = [result for result in games if names.intersection(result.bots)]
            summary = bot_results(versions, results)
            failures: list[dict[str, Any]] = []
            if current is None:
                return summary, current, failures, ""
            failed = [(r.game_id, seat, r.failures[seat]) for r in reversed(results)
                      for seat, bot in enumerate(r.bots)
                      if bot == current and seat in r.failures]
            # the newest few of each reason, read from their records
            per_reason: dict[str, int] = {}
            chosen = []
            for game_id, seat, reason in failed:
                per_reason[reason] = per_reason.get(reason, 0) + 1
                if per_reason[reason] <= FAILURES_SHOWN:
                    chosen.append((game_id, seat))
            groups: dict[str, list[dict[str, Any]]] = {}
            for failure in server.failures_in(chosen):
                groups.setdefault(failure["reason"], []).append(failure)
            failures = [{"reason": reason, "count": count, "shown": groups.get(reason, [])}
                        for reason, count in sorted(per_reason.items(),
                                                    key=lambda item: -item[1])]

            def history(count: int) -> tuple[list[int], dict[str, list[float | None]]]:
                # one history per player count for every bot's chart, refreshed as its
                # cost allows (a long ladder's refits are not made for every game)
                from arena.rating import rating_history

                return chart_histories.get_sync(count, generation, lambda: rating_history(
                    [r for r in games if r.num_players == count], checkpoints=CHART_POINTS))

            return summary, current, failures, rating_chart(games, current, history)

        key = (tuple(v["ladder_name"] for v in versions), current)
        return await bot_views.get(key, generation, compute)

    def record_of(game_id: str) -> GameRecord:
        if not 8 <= len(game_id) <= 64 or not game_id.isalnum():
            raise Refused("a game id is 8 to 64 letters and digits", 404)
        try:
            return server.find_game(game_id)
        except ArenaError as problem:
            raise Refused(str(problem).split(" in /")[0], 404) from None

    # -- the JSON API -------------------------------------------------------------------
    @app.post("/api/v1/register", status_code=201, tags=["accounts"])
    async def api_register(request: Request, body: Credentials) -> dict[str, Any]:
        """Make an account (it may need an admin's approval: see ``approved``)."""
        user = await register(request, body.name, body.password)
        return {"name": user.name, "role": user.role, "approved": user.approved}

    @app.post("/api/v1/tokens", status_code=201, tags=["accounts"])
    async def api_create_token(request: Request, body: TokenRequest) -> dict[str, Any]:
        """A new API token for the account (name and password): shown this once."""
        user = await check_login(request, body.name, body.password)
        token = accounts.new_token()
        record = store.add_token(user.id, body.token_name, accounts.digest(token))
        return {"id": record.id, "name": record.name, "token": token, "user": user.name}

    @app.get("/api/v1/tokens", tags=["accounts"])
    async def api_tokens(request: Request) -> list[dict[str, Any]]:
        user = api_user(request)
        assert user is not None
        return [vars(token) for token in store.tokens(user.id)]

    @app.delete("/api/v1/tokens/{token_id}", tags=["accounts"])
    async def api_revoke_token(request: Request, token_id: int) -> dict[str, Any]:
        user = api_user(request)
        assert user is not None
        if not store.revoke_token(user.id, token_id):
            raise Refused(f"you have no token {token_id}", 404)
        return {"revoked": token_id}

    @app.get("/api/v1/me", tags=["accounts"])
    async def api_me(request: Request) -> dict[str, Any]:
        user = api_user(request)
        assert user is not None
        return {"name": user.name, "role": user.role, "approved": user.approved}

    @app.post("/api/v1/users/{name}/approve", tags=["accounts"])
    async def api_approve(request: Request, name: str) -> dict[str, Any]:
        user = api_user(request)
        assert user is not None
        if not user.admin:
            raise Refused("only an admin can approve accounts", 403)
        target = store.user(name)
        if target is None:
            raise Refused(f"no user {name!r}", 404)
        store.approve(target.id)
        return {"name": name, "approved": True}

    @app.post("/api/v1/bots/{owner}/{name}/versions", status_code=202, tags=["bots"],
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/gzip": {"schema": {"type": "string", "format": "binary"}},
                  "application/zip": {"schema": {"type": "string", "format": "binary"}}}}})
    async def api_upload(request: Request, owner: str, name: str) -> dict[str, Any]:
        """Upload a new version of OWNER/NAME: the body is the bot folder as .tar.gz or
        .zip.  Answers at once with the version's id, ``pending``; poll
        ``/api/v1/versions/{id}`` (or watch the events) for ``valid`` or ``rejected``."""
        user = api_user(request)
        assert user is not None
        data = await request.body()
        version = await server.upload(user, owner, name, data)
        return {**version.to_json(True), "verdict": verdict_json(store.verdict(version.id))}

    @app.get("/api/v1/versions/{version_id}", tags=["bots"])
    async def api_version(request: Request, version_id: int) -> dict[str, Any]:
        """A version's state (pending, valid, rejected) and message; its validation
        report and stderr tail for its owner's (or an admin's) token only."""
        version = store.version(version_id)
        if version is None:
            raise Refused(f"no version {version_id}", 404)
        return {**version.to_json(server.may_see(api_user(request, required=False),
                                                 version.owner)),
                "verdict": verdict_json(store.verdict(version.id))}

    @app.get("/api/v1/bots", tags=["bots"])
    async def api_bots() -> list[dict[str, Any]]:
        return [{"bot": b.full_name, "disabled": b.disabled} for b in store.bots()]

    @app.get("/api/v1/bots/{owner}/{name}", tags=["bots"])
    async def api_bot(request: Request, owner: str, name: str) -> dict[str, Any]:
        """A bot and all its versions, each with its ``verdict`` against its predecessor
        (null if none; the bot's own ``verdict`` is its newest valid version's):
        ``state`` (testing, stronger, weaker, no_difference, inconclusive, superseded),
        ``elo`` and its 95% interval ``low``/``high``, ``games`` together, ``against``."""
        return bot_json(owner, name, api_user(request, required=False))

    @app.post("/api/v1/bots/{owner}/{name}/disable", tags=["bots"])
    async def api_disable(request: Request, owner: str, name: str) -> dict[str, Any]:
        user = api_user(request)
        assert user is not None
        server.set_disabled(user, owner, name, True)
        return bot_json(owner, name, user)

    @app.post("/api/v1/bots/{owner}/{name}/enable", tags=["bots"])
    async def api_enable(request: Request, owner: str, name: str) -> dict[str, Any]:
        user = api_user(request)
        assert user is not None
        server.set_disabled(user, owner, name, False)
        return bot_json(owner, name, user)

    @app.delete("/api/v1/bots/{owner}/{name}", tags=["bots"])
    async def api_delete(request: Request, owner: str, name: str) -> dict[str, Any]:
        """Take the bot out of the ladder and the listings; its games stay."""
        user = api_user(request)
        assert user is not None
        server.delete(user, owner, name)
        return {"deleted": f"{owner}/{name}"}

    @app.get("/api/v1/leaderboard", tags=["ladder"])
    async def api_leaderboard(game: str | None = None, players: int | None = None
                              ) -> dict[str, Any]:
        """The ladder's ratings for one player count (Bradley–Terry Elo, 95% intervals)."""
        if game is not None and game != settings.game:
            raise Refused(f"this server's ladder plays {settings.game}, not {game}", 404)
        if players is not None and players not in settings.players:
            raise Refused(f"this ladder plays with {'/'.join(map(str, settings.players))} "
                          "players", 404)
        return leaderboard(players)

    @app.get("/api/v1/games/{game_id}", tags=["ladder"])
    async def api_game(game_id: str) -> dict[str, Any]:
        """A stored game's record: the JSON of ``arena export`` (docs/records.md)."""
        return record_of(game_id).to_json()

    @app.get("/api/v1/events", tags=["ladder"],
             responses={200: {"content": {"text/event-stream": {}}}})
    async def api_events() -> StreamingResponse:
        """Server-sent events: ``game_started``, ``game_stored``, ``rating_changed``,
        ``upload_validated``, ``friendly_stored``, ``verdict`` (a version's test
        against its predecessor has ended)."""
        if len(server.events.subscribers) >= MAX_EVENT_STREAMS:
            raise Refused("too many event streams open; try again later", 503)
        receive = server.events.subscribe()

        async def stream() -> AsyncIterator[str]:
            try:
                yield ": ra-arena events\n\n"
                while True:
                    # never yield inside the timeout's scope: a client that leaves while
                    # the generator is suspended there would unwind it out of order
                    # (trio: "cancel scope stack corrupted")
                    yield await next_batch(receive, KEEPALIVE_SECONDS)
            finally:
                server.events.unsubscribe(receive)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    @app.get("/api/v1/docs", response_class=HTMLResponse, include_in_schema=False)
    async def api_docs(request: Request) -> Response:
        """The API's reference, made here from its OpenAPI description: a page under the
        pages' policy (no script, nothing from elsewhere; Swagger UI would load both)."""
        return page(request, "api.html", web_user(request), routes=api_routes(app.openapi()))

    @app.get("/api/v1/{rest:path}", include_in_schema=False)
    async def api_unknown(rest: str) -> None:
        raise Refused(f"no such API route: /api/v1/{rest}", 404)

    # -- the web pages ------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request, players: int | None = None) -> Response:
        if players is not None and players not in settings.players:
            raise Refused(f"this ladder plays with {'/'.join(map(str, settings.players))} "
                          "players", 404)
        return page(request, "index.html", web_user(request), board=leaderboard(players),
                    players=settings.players)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)  # no icon: but no 404 in the browser's log

    @app.get("/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def game_page(game_id: str) -> Response:
        """The replay viewer of a stored game, with a link back and the download."""
        from arena.viewer.page import render_replay

        record = record_of(game_id)
        html = await trio.to_thread.run_sync(render_replay, record)
        links = (f'<nav class="arena-links"><a href="/">← the ladder</a> · '
                 f'<a href="/games/{record.game_id}/record.json" download>download the '
                 "record (JSON, as arena export writes it)</a></nav>\n")
        html = html.replace("<main>\n", "<main>\n" + links, 1).replace(
            "</head>", f"<style>{REPLAY_PHONE_STYLE}</style>\n</head>", 1)
        return HTMLResponse(html, headers={"content-security-policy": replay_policy(html)})

    @app.get("/games/{game_id}/record.json", include_in_schema=False)
    async def game_download(game_id: str) -> Response:
        record = record_of(game_id)
        return JSONResponse(record.to_json(), headers={
            "content-disposition": f'attachment; filename="{record.game_id}.json"'})

    @app.get("/register", response_class=HTMLResponse, include_in_schema=False)
    async def register_page(request: Request) -> Response:
        return page(request, "register.html", web_user(request))

    @app.post("/register", include_in_schema=False)
    async def register_form(request: Request) -> Response:
        form = await form_of(request)
        user = await register(request, _text(form.get("name")), _text(form.get("password")))
        if not user.approved:
            return page(request, "message.html", None,
                        message="Your account waits for an admin's approval.")
        start_session(request, user)
        return redirect(request, "/account")

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    async def login_page(request: Request) -> Response:
        return page(request, "login.html", web_user(request))

    @app.post("/login", include_in_schema=False)
    async def login_form(request: Request) -> Response:
        form = await form_of(request)
        user = await check_login(request, _text(form.get("name")), _text(form.get("password")))
        start_session(request, user)
        return redirect(request, "/account")

    @app.post("/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        await form_of(request)
        session = session_of(request)
        if session.sid:
            store.end_session(accounts.digest(session.sid))
        request.state.session = Session(accounts.new_secret())
        request.state.new_cookie = True
        return redirect(request, "/")

    @app.get("/account", response_class=HTMLResponse, include_in_schema=False)
    async def account(request: Request) -> Response:
        user = web_user(request)
        if user is None:
            return redirect(request, "/login")
        return page(request, "account.html", user, tokens=store.tokens(user.id),
                    bots=store.bots(user.id), new_token=None)

    @app.post("/account/tokens", include_in_schema=False)
    async def new_token_form(request: Request) -> Response:
        form = await form_of(request)
        user = need_web_user(request)
        token = accounts.new_token()
        name = _text(form.get("token_name"))[:64] or "token"
        store.add_token(user.id, name, accounts.digest(token))
        return page(request, "account.html", user, tokens=store.tokens(user.id),
                    bots=store.bots(user.id), new_token=token)

    @app.post("/account/tokens/{token_id}/revoke", include_in_schema=False)
    async def revoke_form(request: Request, token_id: int) -> Response:
        await form_of(request)
        user = need_web_user(request)
        if not store.revoke_token(user.id, token_id):
            raise Refused(f"you have no token {token_id}", 404)
        return redirect(request, "/account")

    @app.get("/upload", response_class=HTMLResponse, include_in_schema=False)
    async def upload_page(request: Request, name: str = "") -> Response:
        user = web_user(request)
        if user is None:
            return redirect(request, "/login")
        return page(request, "upload.html", user, bot_name=name[:64], players=settings.players)

    @app.post("/upload", include_in_schema=False)
    async def upload_form(request: Request) -> Response:
        form = await form_of(request)
        user = need_web_user(request)
        archive = form.get("archive")
        if archive is None or not hasattr(archive, "read"):
            raise Refused("choose the bot's archive (.tar.gz or .zip)")
        data = await archive.read()
        owner = _text(form.get("owner")) or user.name
        version = await server.upload(user, owner, _text(form.get("name")), data)
        return redirect(request, f"/bots/{version.owner}/{version.bot}")

    @app.get("/bots/{owner}/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def bot_page(request: Request, owner: str, name: str) -> Response:
        user = web_user(request)
        data = bot_json(owner, name, user)
        mine = server.may_see(user, owner)
        summary, current, failures, chart = await bot_ladder_view(data["versions"])
        bot_row = store.bot(owner, name)
        assert bot_row is not None
        in_ladder = [spec.name for spec in server.ladder.roster]
        verdicts = [v["verdict"] for v in reversed(data["versions"]) if v["verdict"]]
        return page(request, "bot.html", user, bot=data, mine=mine, summary=summary,
                    verdicts=verdicts, verdict_rule=(
                        f"at least {settings.verdict_elo1:+g} Elo rather than at most "
                        f"{settings.verdict_elo0:+g} (and the mirror), alpha "
                        f"{settings.verdict_alpha:g}, beta {settings.verdict_beta:g}, at "
                        f"most {settings.verdict_max_games} games"),
                    current=current, failures=failures, chart=chart,
                    friendlies=store.friendlies(bot_row.id),
                    rivals=[n for n in in_ladder if n != current],
                    playable=current in in_ladder,
                    max_friendly=MAX_FRIENDLY_GAMES,
                    opponents=summary["opponents"].get(current, []) if current else [])

    @app.get("/bots/{owner}/{name}/versions/{number}.json", include_in_schema=False)
    async def version_state(request: Request, owner: str, name: str, number: int
                            ) -> dict[str, Any]:
        """One version as the bot page's script reads it (the report and the stderr tail
        only for its owner and admins, by the session)."""
        bot = store.bot(owner, name)
        version = next((v for v in store.versions(bot.id) if v.number == number), None) \
            if bot is not None else None
        if version is None:
            raise Refused(f"no version {number} of {owner}/{name}", 404)
        return {**version.to_json(server.may_see(web_user(request), owner)),
                "verdict": verdict_json(store.verdict(version.id))}

    @app.post("/bots/{owner}/{name}/friendly", include_in_schema=False)
    async def friendly_form(request: Request, owner: str, name: str) -> Response:
        form = await form_of(request)
        user = need_web_user(request)
        opponents = [_text(v) for v in (await request.form()).getlist("opponent")]
        try:
            games = int(_text(form.get("games")) or "0")
        except ValueError:
            raise Refused("the number of games is a whole number") from None
        server.ask_friendly(user, owner, name, opponents, games)
        return redirect(request, f"/bots/{owner}/{name}#friendly")

    @app.post("/bots/{owner}/{name}/{action}", include_in_schema=False)
    async def bot_action(request: Request, owner: str, name: str, action: str) -> Response:
        await form_of(request)
        user = need_web_user(request)
        if action in ("disable", "enable"):
            server.set_disabled(user, owner, name, action == "disable")
            return redirect(request, f"/bots/{owner}/{name}")
        if action == "delete":
            server.delete(user, owner, name)
            return redirect(request, "/account")
        raise Refused(f"no action {action!r}", 404)

    def need_admin(request: Request) -> User:
        user = need_web_user(request)
        if not user.admin:
            raise Refused("admins only", 403)
        return user

    @app.get("/admin", response_class=HTMLResponse, include_in_schema=False)
    async def admin_page(request: Request) -> Response:
        user = need_admin(request)
        boards = {count: leaderboard(count) for count in settings.players}
        return page(request, "admin.html", user, users=store.users(), settings=settings,
                    bots=store.bots(), versions=store.recent_versions(), boards=boards,
                    log=server.log_lines[-50:])

    @app.post("/admin/users/{name}/approve", include_in_schema=False)
    async def approve_form(request: Request, name: str) -> Response:
        await form_of(request)
        need_admin(request)
        target = store.user(name)
        if target is None:
            raise Refused(f"no user {name!r}", 404)
        store.approve(target.id)
        return redirect(request, "/admin")

    @app.post("/admin/users/{name}/disable", include_in_schema=False)
    async def disable_user_form(request: Request, name: str) -> Response:
        await form_of(request)
        server.disable_user(need_admin(request), name)
        return redirect(request, "/admin")

    @app.post("/admin/versions/{version_id}/revalidate", include_in_schema=False)
    async def revalidate_form(request: Request, version_id: int) -> Response:
        await form_of(request)
        version = server.revalidate(need_admin(request), version_id)
        return redirect(request, f"/bots/{version.owner}/{version.bot}")

    return BodyLimit(app, settings.max_archive_bytes + FORM_OVERHEAD)


def api_routes(openapi: dict[str, Any]) -> list[dict[str, Any]]:
    """Each operation of the OpenAPI description, as the docs page lists it."""
    routes = []
    for path, operations in openapi.get("paths", {}).items():
        for method, operation in operations.items():
            parameters = [f"{p['name']} ({p['in']}{', required' if p.get('required') else ''})"
                          for p in operation.get("parameters", [])]
            body = operation.get("requestBody", {}).get("content", {})
            routes.append({"method": method.upper(), "path": path,
                           "tag": (operation.get("tags") or ["other"])[0],
                           "description": operation.get("description", ""),
                           "parameters": parameters, "body": ", ".join(body)})
    return sorted(routes, key=lambda route: route["tag"])


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _finite(row: dict[str, Any]) -> dict[str, Any]:
    return {key: (None if isinstance(value, float) and not math.isfinite(value) else value)
            for key, value in row.items()}


FAILURES_SHOWN = 5  # the newest failures of each reason on a bot page


def bot_results(versions: list[dict[str, Any]], results: list[GameResult]
                ) -> dict[str, Any]:
    """Per ladder name: games, first places and failures; and its results against each
    opponent (won: placed ahead of it; lost; tied), most played first."""
    names = {v["ladder_name"] for v in versions}
    totals: dict[str, dict[str, Any]] = {
        name: {"games": 0, "firsts": 0, "failures": {}} for name in names}
    against: dict[str, dict[str, dict[str, int]]] = {name: {} for name in names}
    for result in results:
        for seat, bot in enumerate(result.bots):
            if bot not in names:
                continue
            total = totals[bot]
            total["games"] += 1
            total["firsts"] += result.placements[seat] == 1
            if seat in result.failures:
                reason = result.failures[seat]
                total["failures"][reason] = total["failures"].get(reason, 0) + 1
            for other, opponent in enumerate(result.bots):
                if other == seat:
                    continue
                line = against[bot].setdefault(opponent, {"games": 0, "won": 0, "lost": 0,
                                                          "tied": 0})
                line["games"] += 1
                mine, theirs = result.placements[seat], result.placements[other]
                line["won" if mine < theirs else "lost" if mine > theirs else "tied"] += 1
    return {"totals": totals, "opponents": {
        name: sorted(({"bot": opponent, **line} for opponent, line in lines.items()),
                     key=lambda line: (-line["games"], line["bot"]))
        for name, lines in against.items()}}


def rating_chart(results: list[GameResult], name: str,
                 history: Callable[[int], tuple[list[int], dict[str, list[float | None]]]]
                 ) -> str:
    """The report's chart (arena/report/svg.py) of NAME's Elo as the ladder's games of its
    player count came in: the ratings refitted on growing prefixes of those games
    (``history(count)``: arena.rating.rating_history of them), centred like the
    leaderboard's table; "" before its second game."""
    from arena.report.svg import line_chart

    mine = [result for result in results if name in result.bots]
    if len(mine) < 2:
        return ""
    count = mine[-1].num_players
    sizes, history_of = history(count)
    return line_chart(sizes, [(name, history_of.get(name, []))], width=700, height=260,
                      x_label=f"{count}-player ladder games", y_label="Elo")


def _when(stamp: float | None) -> str:
    """A time as the pages show it: UTC, to the minute."""
    if stamp is None:
        return ""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(stamp))


def _mark_unsettled(rows: list[dict[str, Any]]) -> None:
    """``unsettled`` on each row whose 95% interval overlaps a neighbour's in the same
    group (the report's "order not settled": more games could swap them)."""
    for row in rows:
        row["unsettled"] = False
    for upper, lower in zip(rows, rows[1:], strict=False):
        if None in (upper.get("low"), lower.get("high")):
            continue
        if upper.get("group") == lower.get("group") and lower["high"] >= upper["low"]:
            upper["unsettled"] = lower["unsettled"] = True


def replay_policy(html: str) -> str:
    """The Content-Security-Policy of a replay page: only its own inline script and
    style run (by their hashes), nothing is loaded."""
    def hashes(element: str) -> str:
        return " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
            for text in re.findall(f"<{element}>(.*?)</{element}>", html, re.S))

    return (f"default-src 'none'; script-src {hashes('script')}; "
            f"style-src {hashes('style')}; img-src 'self'; form-action 'none'; "
            "frame-ancestors 'none'; base-uri 'none'")


def _context(request: Request, user: User | None, **values: Any) -> dict[str, Any]:
    return {"user": user, "version": __version__, "csrf": "", **values}
