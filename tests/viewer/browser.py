"""A real Chromium, driven over the DevTools protocol through a pipe (no extra package).

``--remote-debugging-pipe`` makes Chromium read commands from its fd 3 and write replies
and events to its fd 4, each a JSON message ended by a NUL byte.  :class:`Browser` opens
one page, sends commands to it and keeps every console message, uncaught exception and
log entry (e.g. a blocked network load) it saw, so a test can say "nothing went wrong".
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--remote-debugging-pipe",
]


def need_chromium() -> str:
    """Chromium's path; without it the test skips, except under CI, where it fails: CI
    installs it (.ci/apt-packages), so its absence there is a broken setup."""
    if CHROMIUM is None:
        message = "chromium is not installed (CI installs it: see .ci/apt-packages)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


def _above_four(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    def __init__(self, profile: Path, width: int = 1200, height: int = 1400) -> None:
        executable = need_chromium()
        profile.mkdir(parents=True, exist_ok=True)
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        # above 4, so that moving them to 3 and 4 in the child cannot overwrite either
        commands_read, replies_write = (_above_four(commands_read), _above_four(replies_write))

        def child_fds() -> None:  # the child's fd 3 reads our commands, fd 4 takes replies
            os.dup2(commands_read, 3)
            os.dup2(replies_write, 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, pass_fds=(3, 4),
        )
        os.close(commands_read)
        os.close(replies_write)
        self._buffer = b""
        self._next_id = 0
        self.problems: list[str] = []  # console messages, exceptions, log entries
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # already gone: killed below
            self.call("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._replies)

    # -- the protocol ------------------------------------------------------------
    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self._note(reply)
        raise TimeoutError(f"no reply to {method}")

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def _note(self, event: dict[str, Any]) -> None:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.problems.append(f"console.{params['type']}: " + " ".join(
                str(arg.get("value", arg.get("description"))) for arg in params["args"]))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.problems.append("exception: " + str(
                details.get("exception", {}).get("description", details.get("text"))))
        elif method == "Log.entryAdded":
            self.problems.append(f"log: {params['entry']['text']}")

    # -- what tests do -------------------------------------------------------------
    def open(self, page: Path, fragment: str = "") -> None:
        self.call("Page.navigate", session=True, url=page.as_uri() + fragment)
        for _ in range(100):  # until the page's script has drawn the first position
            if self.evaluate("document.readyState === 'complete' && "
                             "!!document.getElementById('board')?.dataset.decision"):
                return
            time.sleep(0.05)
        raise TimeoutError(f"{page} never finished drawing; seen: {self.problems}")

    def evaluate(self, expression: str) -> Any:
        reply = self.call("Runtime.evaluate", session=True, expression=expression,
                          returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def press(self, key: str, code: int) -> None:
        """A real key press, as the keyboard would send it to the focused page."""
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=key, code=key,
                      windowsVirtualKeyCode=code)

    def click(self, selector: str) -> None:
        box = self.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)

    def screenshot(self, path: Path) -> None:
        shot = self.call("Page.captureScreenshot", session=True, format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
