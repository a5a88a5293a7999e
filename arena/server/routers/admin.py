"""The admin's pages: accounts to approve or disable, versions to check again, the
leaderboards and the server's log."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from arena.server.dependencies import CheckedForm, ServicesDep, Web, WebAdmin

router = APIRouter(prefix="/admin", include_in_schema=False)


@router.get("", response_class=HTMLResponse)
async def admin_page(admin: WebAdmin, web: Web, services: ServicesDep) -> Response:
    return web.page("admin.html", **services.admin.overview(admin))


@router.post("/users/{name}/approve")
async def approve(name: str, form: CheckedForm, admin: WebAdmin, web: Web,
                  services: ServicesDep) -> Response:
    services.admin.approve(admin, name)
    return web.redirect("/admin")


@router.post("/users/{name}/disable")
async def disable_user(name: str, form: CheckedForm, admin: WebAdmin, web: Web,
                       services: ServicesDep) -> Response:
    services.admin.disable_user(admin, name)
    return web.redirect("/admin")


@router.post("/versions/{version_id}/revalidate")
async def revalidate(version_id: int, form: CheckedForm, admin: WebAdmin, web: Web,
                     services: ServicesDep) -> Response:
    version = services.admin.revalidate(admin, version_id)
    return web.redirect(f"/bots/{version.owner}/{version.bot}")
