"""What a person does on the pages: register, log in and out, their account and API
tokens, uploads, and their bots' actions (disable, enable, delete, friendly games).
Every form's CSRF token is checked before anything else (``CheckedForm``)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from arena.server.dependencies import (
    Address,
    CheckedForm,
    OptionalWebUser,
    ServicesDep,
    Web,
    WebUser,
)
from arena.server.errors import Refused
from arena.server.views import text

router = APIRouter(include_in_schema=False)


@router.get("/register", response_class=HTMLResponse)
async def register_page(web: Web) -> Response:
    return web.page("register.html")


@router.post("/register")
async def register(form: CheckedForm, web: Web, address: Address, services: ServicesDep
                   ) -> Response:
    user = await services.accounts.register(address, text(form.get("name")),
                                            text(form.get("password")))
    if not user.approved:
        return web.page("message.html", user=None,
                        message="Your account waits for an admin's approval.")
    web.log_in(user)
    return web.redirect("/account")


@router.get("/login", response_class=HTMLResponse)
async def login_page(web: Web) -> Response:
    return web.page("login.html")


@router.post("/login")
async def login(form: CheckedForm, web: Web, address: Address, services: ServicesDep
                ) -> Response:
    web.log_in(await services.accounts.login(address, text(form.get("name")),
                                             text(form.get("password"))))
    return web.redirect("/account")


@router.post("/logout")
async def logout(form: CheckedForm, web: Web) -> Response:
    web.log_out()
    return web.redirect("/")


def _account_page(web: Web, services: ServicesDep, new_token: str | None = None
                  ) -> Response:
    user = web.user
    assert user is not None
    return web.page("account.html", tokens=services.accounts.tokens(user),
                    bots=services.bots.bots_of(user), new_token=new_token)


@router.get("/account", response_class=HTMLResponse)
async def account(web: Web, user: OptionalWebUser, services: ServicesDep) -> Response:
    if user is None:
        return web.redirect("/login")
    return _account_page(web, services)


@router.post("/account/tokens")
async def new_token(form: CheckedForm, user: WebUser, web: Web, services: ServicesDep
                    ) -> Response:
    _, secret = services.accounts.new_token(user, text(form.get("token_name"))[:64] or
                                            "token")
    return _account_page(web, services, new_token=secret)


@router.post("/account/tokens/{token_id}/revoke")
async def revoke(token_id: int, form: CheckedForm, user: WebUser, web: Web,
                 services: ServicesDep) -> Response:
    services.accounts.revoke_token(user, token_id)
    return web.redirect("/account")


@router.get("/upload", response_class=HTMLResponse)
async def upload_page(web: Web, user: OptionalWebUser, services: ServicesDep,
                      name: str = "") -> Response:
    if user is None:
        return web.redirect("/login")
    return web.page("upload.html", bot_name=name[:64],
                    players=services.settings.players)


@router.post("/upload")
async def upload(form: CheckedForm, user: WebUser, web: Web, services: ServicesDep
                 ) -> Response:
    archive = form.get("archive")
    if archive is None or isinstance(archive, str):
        raise Refused("choose the bot's archive (.tar.gz or .zip)")
    data = await archive.read()
    owner = text(form.get("owner")) or user.name
    version = await services.bots.upload(user, owner, text(form.get("name")), data)
    return web.redirect(f"/bots/{version.owner}/{version.bot}")


@router.post("/bots/{owner}/{name}/friendly")
async def friendly(owner: str, name: str, form: CheckedForm, user: WebUser, web: Web,
                   services: ServicesDep) -> Response:
    opponents = [text(value) for value in form.getlist("opponent")]
    try:
        games = int(text(form.get("games")) or "0")
    except ValueError:
        raise Refused("the number of games is a whole number") from None
    services.bots.ask_friendly(user, owner, name, opponents, games)
    return web.redirect(f"/bots/{owner}/{name}#friendly")


@router.post("/bots/{owner}/{name}/{action}")
async def bot_action(owner: str, name: str, action: str, form: CheckedForm, user: WebUser,
                     web: Web, services: ServicesDep) -> Response:
    if action in ("disable", "enable"):
        services.bots.set_disabled(user, owner, name, action == "disable")
        return web.redirect(f"/bots/{owner}/{name}")
    if action == "delete":
        services.bots.delete(user, owner, name)
        return web.redirect("/account")
    raise Refused(f"no action {action!r}", 404)
