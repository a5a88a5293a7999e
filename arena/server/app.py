"""The web app and the JSON API (FastAPI on anyio; Hypercorn's trio worker serves it),
assembled here from its parts, in the layout FastAPI's documentation gives for bigger
applications:

- ``routers/``: one APIRouter per area: ``api`` (``/api/v1``: JSON, ``Authorization:
  Bearer TOKEN``, never the cookie), ``pages``, ``account``, ``admin``;
- ``dependencies.py``: who is asking (token or signed session cookie), an admin, a
  CSRF-checked form, the services;
- ``services/``: the logic, the only code that reaches the store;
- ``models.py``: the API's bodies (``/api/v1/openapi.json`` describes every answer);
- ``errors.py``: JSON or a page for every error, never a traceback;
- ``middleware.py``: the body-size limit and the security headers of every response.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from fastapi.templating import Jinja2Templates
from starlette.staticfiles import StaticFiles

from arena import __version__
from arena.server.errors import install_error_handlers
from arena.server.middleware import CSP, FORM_OVERHEAD, BodyLimit
from arena.server.routers import account, admin, api, pages
from arena.server.services import Services
from arena.server.views import when

if TYPE_CHECKING:
    from arena.server.core import Server

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
__all__ = ["CSP", "create_app"]


def create_app(server: Server) -> Any:
    """The ASGI application of ``server`` (wrapped in the body-size limit)."""
    app = FastAPI(
        title="Ra Arena server", version=__version__, openapi_url="/api/v1/openapi.json",
        docs_url=None, redoc_url=None, debug=False,  # the docs page: our own (routers/api)
        description="Bots, versions, validation, the ladder's leaderboard and games. "
                    "Authenticate with `Authorization: Bearer TOKEN` (see docs/server.md).")
    templates = Jinja2Templates(directory=str(TEMPLATES))
    templates.env.filters["when"] = when
    app.state.templates = templates
    app.state.services = Services.of(server)
    limit = server.settings.max_archive_bytes + FORM_OVERHEAD
    install_error_handlers(app, server, limit)
    for router in (api.router, pages.router, account.router, admin.router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")  # (after them)
    return BodyLimit(app, limit)
