"""The command-line side of a server: where ``arena login`` keeps its tokens
(``$XDG_CONFIG_HOME/ra-arena/servers.json`` or ``~/.config/ra-arena/servers.json``,
mode 0600 in a 0700 folder) and the HTTP calls (httpx)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from arena.errors import ArenaError
from arena.runner.botspec import is_loopback

CONFIG_FILE = "servers.json"


def config_folder() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ra-arena"


def check_url(url: str, insecure: bool = False) -> str:
    """``url`` without a trailing slash; plain http only to a loopback server (or with
    ``insecure``): a password or token must not cross a network in clear."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ArenaError(f"{url!r} is not a server URL (http://HOST:PORT or https://HOST)")
    if parts.scheme == "http" and not insecure and not is_loopback(parts.hostname):
        raise ArenaError(f"{url} is plain http to another machine: your password and token "
                         "would cross the network in clear; use https, or --insecure")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"



def _load() -> dict[str, Any]:
    path = config_folder() / CONFIG_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"default": None, "servers": {}}
    except (OSError, ValueError) as problem:
        raise ArenaError(f"{path} cannot be read ({problem}); delete it and `arena login` "
                         "again") from None
    if not isinstance(data, dict) or not isinstance(data.get("servers"), dict):
        raise ArenaError(f"{path} is not what `arena login` writes; delete it and log in again")
    return data


def save_login(url: str, user: str, token: str) -> Path:
    """Keep the token for ``url`` (and make it the default server)."""
    folder = config_folder()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = _load()
    data["servers"][url] = {"user": user, "token": token}
    data["default"] = url
    path = folder / CONFIG_FILE
    temporary = folder / f".{CONFIG_FILE}.{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=2)
    os.replace(temporary, path)
    return path


def login_for(url: str | None) -> tuple[str, dict[str, str]]:
    """The server's URL and the saved login for it (default: the last one)."""
    data = _load()
    if url is None:
        url = data.get("default")
        if not url:
            raise ArenaError("no server yet: `arena login URL` first (or --server URL)")
    else:
        url = check_url(url, insecure=True)  # the check was made at login
    login = data["servers"].get(url)
    if not isinstance(login, dict) or "token" not in login:
        raise ArenaError(f"not logged in to {url}: `arena login {url}` first")
    return url, login


def request(method: str, url: str, *, token: str | None = None, **options: Any) -> Any:
    """One API call; the server's error message as an ArenaError."""
    import httpx

    headers = dict(options.pop("headers", {}))
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        response = httpx.request(method, url, headers=headers, timeout=120, **options)
    except httpx.ConnectError as problem:  # refused, no route, unknown host
        server = url.split("/api/", 1)[0]
        raise ArenaError(f"cannot reach the server at {server} ({problem}): is it running? "
                         "(`arena serve FOLDER` starts one; check the URL and port)") from None
    except httpx.HTTPError as problem:
        raise ArenaError(f"{url}: {problem}") from None
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.status_code >= 400:
        message = data.get("error") if isinstance(data, dict) else None
        raise ArenaError(f"the server refused ({response.status_code}): "
                         f"{message or response.reason_phrase}")
    return data
