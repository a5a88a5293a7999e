"""What routes declare they need (FastAPI dependencies): the services; who is asking (by
API token for the JSON API, by the signed session cookie for the pages), an admin; the
page's session with its CSRF token; a form whose CSRF token was checked; the client's
address as the rate limits count it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import FormData

from arena.server import accounts
from arena.server.accounts import COOKIE_NAME, Session
from arena.server.errors import Refused, page_context
from arena.server.middleware import FORM_OVERHEAD
from arena.server.services import Services
from arena.server.services.admin import require_admin
from arena.server.store import User
from arena.server.views import text

MAX_FORM_FIELDS = 20
# every dependency is a coroutine: FastAPI runs a plain function in a worker thread, and
# the store is used from the event loop's thread only (SQLite's connection is bound to
# it; a query is shorter than a thread's round trip)


async def services(request: Request) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


ServicesDep = Annotated[Services, Depends(services)]


async def client_address(request: Request) -> str:
    """Who the rate limits count: the address (IPv6: its /64)."""
    return accounts.address_key(request.client.host if request.client else "unknown")


Address = Annotated[str, Depends(client_address)]


# -- the JSON API: API tokens only (never the cookie: no other site can forge a call) ----
async def api_user_or_none(request: Request, services: ServicesDep) -> User | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return services.accounts.user_of_token(token.strip()) \
        if scheme.lower() == "bearer" else None


OptionalApiUser = Annotated[User | None, Depends(api_user_or_none)]


async def api_user(user: OptionalApiUser) -> User:
    if user is None:
        raise Refused("a valid API token is needed (Authorization: Bearer TOKEN; "
                      "`arena login URL` or the account page makes one)", 401)
    return user


ApiUser = Annotated[User, Depends(api_user)]


async def api_admin(user: ApiUser) -> User:
    return require_admin(user)


ApiAdmin = Annotated[User, Depends(api_admin)]


# -- the pages: the signed session cookie ------------------------------------------------
class WebSession:
    """A page request's session (from its signed cookie, or a new one with a fresh CSRF
    token), its user, and the responses that carry a new cookie when one was made."""

    def __init__(self, request: Request, services: Services) -> None:
        self.request = request
        self.services = services
        self.cookies = services.accounts.cookies
        self.secure = services.accounts.secure_cookies
        loaded = self.cookies.load(request.cookies.get(COOKIE_NAME))
        self.new_cookie = loaded is None
        self.session = loaded or Session(accounts.new_secret())
        self._user: tuple[User | None] | None = None

    @property
    def user(self) -> User | None:
        if self._user is None:
            self._user = (self.services.accounts.user_of_session(self.session.sid),)
        return self._user[0]

    def log_in(self, user: User) -> None:
        """A new session for ``user`` (and a fresh CSRF token), the old one ended."""
        sid = self.services.accounts.start_session(user, self.session.sid)
        self._set(Session(accounts.new_secret(), sid), user)

    def log_out(self) -> None:
        self.services.accounts.end_session(self.session.sid)
        self._set(Session(accounts.new_secret()), None)

    def _set(self, session: Session, user: User | None) -> None:
        self.session = session
        self._user = (user,)
        self.new_cookie = True

    def with_cookie(self, response: Response) -> Response:
        if self.new_cookie:
            response.set_cookie(COOKIE_NAME, self.cookies.dump(self.session),
                                max_age=accounts.SESSION_SECONDS, httponly=True,
                                samesite="lax", secure=self.secure, path="/")
        return response

    def page(self, name: str, **values: Any) -> Response:
        """The template ``name`` with the user, the CSRF token and ``values``."""
        values.setdefault("user", self.user)
        templates = self.request.app.state.templates
        return self.with_cookie(templates.TemplateResponse(
            self.request, name, page_context(
                csrf=self.session.csrf,
                server_game=self.services.settings.game, **values)))

    def redirect(self, to: str) -> Response:
        return self.with_cookie(RedirectResponse(to, status_code=303))


async def web_session(request: Request, services: ServicesDep) -> WebSession:
    return WebSession(request, services)


Web = Annotated[WebSession, Depends(web_session)]


async def web_user_or_none(web: Web) -> User | None:
    return web.user


OptionalWebUser = Annotated[User | None, Depends(web_user_or_none)]


async def web_user(user: OptionalWebUser) -> User:
    if user is None:
        raise Refused("log in first", 401)
    return user


WebUser = Annotated[User, Depends(web_user)]


async def web_admin(user: WebUser) -> User:
    return require_admin(user)


WebAdmin = Annotated[User, Depends(web_admin)]


async def checked_form(request: Request, web: Web) -> FormData:
    """The form, after its CSRF token is checked against the session's (declared before
    the user: a forged form is refused as such, logged in or not)."""
    settings = web.services.settings
    form = await request.form(max_files=1, max_fields=MAX_FORM_FIELDS,
                              max_part_size=settings.max_archive_bytes + FORM_OVERHEAD)
    if not accounts.same_secret(text(form.get("csrf")), web.session.csrf):
        raise Refused("the form's CSRF token is missing or wrong: reload the page and "
                      "send it again", 403)
    return form


CheckedForm = Annotated[FormData, Depends(checked_form)]
