"""The server's refusals and how every error is answered: JSON ``{"error": ...}`` on the
API, a page for people, one line in the log for what crashed; never a traceback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from arena import __version__
from arena.errors import ArenaError
from arena.storage import StorageBusy, StorageError, StorageFull, StorageGone, disk_full

if TYPE_CHECKING:
    from arena.server.core import Server

DISK_FULL_ANSWER = ("the server's disk is full: nothing was stored; try again later (the "
                    "admin is told)")
STORAGE_ANSWER = ("the server's database did not answer: nothing was changed; try again "
                  "in a minute (the admin is told)")


class Refused(ArenaError):
    """A request the server will not do: ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def error_response(request: Request, status: int, message: str) -> Response:
    """JSON for the API, the error page for people."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    return request.app.state.templates.TemplateResponse(  # type: ignore[no-any-return]
        request, "error.html", page_context(None, message=message, status=status),
        status_code=status)


def page_context(user: Any, **values: Any) -> dict[str, Any]:
    """What every page's template gets."""
    return {"user": user, "version": __version__, "csrf": "", **values}


def install_error_handlers(app: FastAPI, server: Server, body_limit: int) -> None:
    from arena.server.middleware import TooLarge

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
        return error_response(request, 413, f"the request has more than {body_limit} bytes")

    @app.exception_handler(Exception)
    async def crashed(request: Request, error: Exception) -> Response:
        # one line per cause a minute: a visitor repeating the request fills no log
        route = getattr(request.scope.get("route"), "path", request.url.path)
        server.log_limited(f"{request.method} {route} {type(error).__name__}",
                           f"{request.method} {request.url.path[:200]}: {error!r}"[:1000])
        return error_response(request, 500, "internal error (the server's log has details)")

    # (their own handlers: one for Exception also gets the traceback printed)
    @app.exception_handler(StorageError)
    @app.exception_handler(OSError)
    async def storage_failed(request: Request, error: Exception) -> Response:
        where = f"{request.method} {request.url.path[:200]}"
        if disk_full(error):  # nothing was changed: the store rolled the write back
            server.log_limited("disk full", f"{where}: the disk is full")
            return error_response(request, 507, DISK_FULL_ANSWER)
        if isinstance(error, StorageError) and not isinstance(error, StorageFull):
            server.log_limited(f"storage {type(error).__name__}", f"{where}: {error}"[:1000])
            return error_response(request, 503 if isinstance(error, (StorageBusy, StorageGone))
                                  else 500,
                                  STORAGE_ANSWER)
        return await crashed(request, error)
