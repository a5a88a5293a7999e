"""The ASGI wrappers around the app: the body-size limit with the security headers of
every response (:class:`BodyLimit`), and the deadline for a request's body
(:class:`RequestDeadline`, which ``arena serve`` puts outermost)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import trio
from fastapi.responses import JSONResponse

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

FORM_OVERHEAD = 64 * 1024  # multipart framing and the form's other fields

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
                await send_json(send, 413, f"the request has more than {self.limit} bytes")
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
                    await send_json(send, 413, f"the request has more than {self.limit} "
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
                await send_json(send, 413, f"the request has more than {self.limit} bytes")
        except Exception:
            # the app's handler answered 500 and logged it in one line (rate-limited);
            # Starlette raises it again for the server's log, a traceback per request
            if not started:
                await send_json(send, 500, "internal error (the server's log has details)")


async def send_json(send: Send, status: int, message: str) -> None:
    body = JSONResponse({"error": message}, status_code=status).body
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class RequestDeadline:
    """An ASGI wrapper: a request whose body has not arrived whole ``seconds`` after it
    began (a client sending a byte a second) is answered 408 and its connection closed.
    Only the body is timed: a request without one, or once the answer has begun (an
    event stream), runs as long as it needs."""

    def __init__(self, app: Any, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _has_body(scope):
            await self.app(scope, receive, send)
            return
        done = False  # the body is in, or the answer has begun

        async def watched_receive() -> Message:
            nonlocal done
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                done = True
            return message

        started = False

        async def watched_send(message: Message) -> None:
            nonlocal done, started
            if message["type"] == "http.response.start":
                done = started = True
            await send(message)

        late = False
        async with trio.open_nursery() as nursery:
            async def timer() -> None:
                nonlocal late
                await trio.sleep(self.seconds)
                if not done:
                    late = True
                    nursery.cancel_scope.cancel()

            nursery.start_soon(timer)
            await self.app(scope, watched_receive, watched_send)
            nursery.cancel_scope.cancel()
        if late and not started:
            body = (f'{{"error": "the request did not arrive whole within '
                    f'{self.seconds:g} s"}}').encode()
            await send({"type": "http.response.start", "status": 408, "headers": [
                (b"content-type", b"application/json"), (b"connection", b"close"),
                (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})


def _has_body(scope: Scope) -> bool:
    for key, value in scope.get("headers", []):
        if key == b"transfer-encoding":
            return True
        if key == b"content-length":
            return value.strip() not in (b"0", b"")
    return False
