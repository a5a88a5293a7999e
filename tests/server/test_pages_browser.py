"""The server's pages in a real Chromium against a real server on a free loopback port:
register, log in, upload a bot on the upload page, see its verdict arrive and the bot
appear on the live leaderboard without a reload, open one of its games and step through
it, open the failure list of a bot that crashes in the ladder and its replay at the
failing decision; no page breaks its Content-Security-Policy (a blocked script or style
would be a console message); no page is wider than a phone, and no figure of a table or
chart is off a phone's screen.

Screenshots of the main pages, at desktop and phone width, go to
results/test-artifacts/server-pages/ (docs/images/ has copies). Without Chromium the test
skips, but under CI=true it fails (tests/viewer/browser.py)."""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.conftest import (
    PASSWORD,
    bot_archive,
    free_port,
    make_server_folder,
    start_server,
    tar_gz,
    wait_until,
)
from tests.viewer.browser import Browser

pytestmark = pytest.mark.slow
SHOTS = Path(__file__).resolve().parents[2] / "results" / "test-artifacts" / "server-pages"
PHONE = 390

# a bot that plays like random, except in the ladder (its opponents have ladder names,
# OWNER/NAME@N; the validation's are bundled bots): there it crashes at its third
# decision, saying so on stderr with some markup that must come out as text
CRASHY = b'''
import random
import sys

from arena.sdk import run

rng = random.Random(0)
state = {"ladder": False, "decisions": 0}


def new_game(message):
    rng.seed(message["seed"])
    others = [n for seat, n in enumerate(message["players"]) if seat != message["seat"]]
    state["ladder"] = any("@" in name for name in others)
    state["decisions"] = 0


def choose(observation, legal):
    state["decisions"] += 1
    if state["ladder"] and state["decisions"] == 3:
        print("about to fail <b>not bold</b>", file=sys.stderr, flush=True)
        raise RuntimeError("boom <img src=x onerror=alert(1)>")
    return rng.randrange(len(legal))


if __name__ == "__main__":
    run(choose, name="crashy", version="1.0.0", on_new_game=new_game, observation=False)
'''
CRASHY_TOML = b'''name = "crashy"
version = "1.0.0"
description = "crashes at its third decision in the ladder"
command = ["{python}", "bot.py"]

[games]
ra = [2, 3, 4, 5]
'''


class Pages:
    """The browser on the server: navigation, waiting, the things a person does."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.browser = browser
        self.url = url

    def go(self, path: str) -> None:
        self.browser.call("Page.navigate", session=True, url=self.url + path)
        self.loaded(path.split("#")[0])

    def loaded(self, path: str | None = None) -> None:
        def ready() -> bool:
            state = self.js("[document.readyState, location.pathname + location.search]")
            return bool(state[0] == "complete" and (path is None or state[1] == path))

        wait_until(ready, 30, f"the page {path} to load")

    def js(self, expression: str) -> Any:
        return self.browser.evaluate(expression)

    def fill(self, values: dict[str, str]) -> None:
        for name, value in values.items():
            self.js(f"document.querySelector('main [name={name}]').value = "
                    f"{json.dumps(value)}")

    def submit(self, form: str, then: str) -> None:
        self.js(f"document.querySelector({json.dumps(form + ' button[type=submit]')})"
                ".click()")
        self.loaded(then)

    def attach(self, selector: str, path: Path) -> None:
        root = self.browser.call("DOM.getDocument", session=True)["root"]["nodeId"]
        node = self.browser.call("DOM.querySelector", session=True, nodeId=root,
                                 selector=selector)["nodeId"]
        self.browser.call("DOM.setFileInputFiles", session=True, nodeId=node,
                          files=[str(path)])

    def until(self, expression: str, seconds: float, what: str) -> Any:
        return wait_until(lambda: self.js(expression), seconds, what)

    def mark(self) -> None:
        """A value that lives as long as the document: gone after any reload."""
        self.js("window.__notReloaded = true")

    def not_reloaded(self) -> bool:
        return bool(self.js("window.__notReloaded === true"))

    def whole_page(self, path: Path, width: int) -> None:
        """A screenshot of the whole page (up to 2400 px high)."""
        high = min(2400, int(self.js("document.documentElement.scrollHeight")))
        shot = self.browser.call("Page.captureScreenshot", session=True, format="png",
                                 captureBeyondViewport=True,
                                 clip={"x": 0, "y": 0, "width": width, "height": high,
                                       "scale": 1})
        path.write_bytes(base64.b64decode(shot["data"]))

    def shots(self, name: str) -> None:
        """Desktop and phone screenshots of the page, and the page fits a phone."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.whole_page(SHOTS / f"{name}-desktop.png", 1200)
        self.browser.call("Emulation.setDeviceMetricsOverride", session=True, width=PHONE,
                          height=1000, deviceScaleFactor=1, mobile=True)
        try:
            time.sleep(0.3)
            wide = self.js("document.documentElement.scrollWidth")
            assert wide <= PHONE, f"{name} is {wide} px wide at phone width"
            # no figure hides off screen in a scrolling box either (a table is cards)
            outside = self.js(f"""[...document.querySelectorAll('main td, main .chart svg')]
                .filter((e) => e.getClientRects().length
                        && e.getBoundingClientRect().right > {PHONE} + 0.5)
                .map((e) => e.outerHTML.slice(0, 80))""")
            assert outside == [], f"{name} at phone width: {outside}"
            self.whole_page(SHOTS / f"{name}-phone.png", PHONE)
        finally:
            self.browser.call("Emulation.clearDeviceMetricsOverride", session=True)


def test_the_pages_in_chromium(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "server"
    # crashy fails in every ladder game: kept in the ladder (not paused) for its pages
    make_server_folder(folder, capsys, **{"pause_failures = 0.5": "pause_failures = 1"})
    browser = Browser(tmp_path / "profile", width=1200, height=1100)  # skips without one
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    try:
        server = start_server(folder, port, tmp_path / "server.log",
                              {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    except BaseException:
        browser.close()
        raise
    try:
        pages = Pages(browser, url)
        # register, log out, log in
        pages.go("/register")
        pages.fill({"name": "ada", "password": PASSWORD})
        pages.submit("main form", "/account")
        assert "ada" in pages.js("document.querySelector('header nav').textContent")
        pages.submit("header form", "/")
        pages.go("/login")
        pages.fill({"name": "ada", "password": PASSWORD})
        pages.submit("main form", "/account")
        pages.shots("account")
        # a bot that crashes in the ladder, uploaded with a token (as `arena upload` does)
        token = httpx.post(f"{url}/api/v1/tokens", json={
            "name": "ada", "password": PASSWORD, "token_name": "cli"}).json()["token"]
        crashy = httpx.post(f"{url}/api/v1/bots/ada/crashy/versions",
                            content=tar_gz({"bot.py": CRASHY, "bot.toml": CRASHY_TOML}),
                            headers={"Authorization": f"Bearer {token}"}).json()
        checked = wait_until(lambda: (lambda v: v if v["state"] != "pending" else None)(
            httpx.get(f"{url}/api/v1/versions/{crashy['id']}").json()), 120,
            "the crashing bot to be validated")
        assert checked["state"] == "valid", checked["message"]
        # the upload page: the verdict appears on the bot page without a reload
        archive = tmp_path / "alpha.tar.gz"
        archive.write_bytes(bot_archive("alpha"))
        pages.go("/upload")
        pages.shots("upload")
        pages.fill({"name": "alpha"})
        pages.attach("input[type=file]", archive)
        pages.submit("main form", "/bots/ada/alpha")
        pages.mark()
        assert pages.js("document.querySelector('#version-1 .state').textContent") in (
            "pending", "valid")
        pages.until("document.querySelector('#version-1 .state').textContent === 'valid'",
                    120, "the verdict on the bot page")
        assert pages.not_reloaded()
        assert "passed the conformance check" in pages.js(
            "document.querySelector('#version-1 .message').textContent")
        # the live leaderboard: alpha arrives and the count of games grows, no reload
        pages.go("/")
        pages.mark()
        games = int(pages.js("document.getElementById('games-count').textContent"))
        pages.until("document.getElementById('live-status').textContent === 'live'", 20,
                    "the events stream")
        pages.until(f"Number(document.getElementById('games-count').textContent) > {games}"
                    " && document.getElementById('board-rows').textContent"
                    ".includes('ada/alpha@1')", 120, "alpha on the live leaderboard")
        assert pages.not_reloaded()
        assert int(pages.js("document.getElementById('leaderboard').dataset.updates")) >= 1
        pages.until("document.querySelectorAll('#recent a').length > 0", 60, "a game link")
        pages.shots("leaderboard")
        # one of its games: open it from the leaderboard and step through it
        pages.js("document.querySelector('#recent a').click()")
        pages.until("!!document.getElementById('board')?.dataset.decision", 30,
                    "the replay to draw")
        assert pages.js("location.pathname").startswith("/games/")
        first = pages.js("document.getElementById('position').textContent")
        for _ in range(3):
            browser.press("ArrowRight", 39)
        assert pages.js("document.getElementById('board').dataset.decision") == "4"
        browser.click("#next")
        assert pages.js("document.getElementById('board').dataset.decision") == "5"
        assert pages.js("document.getElementById('position').textContent") != first
        assert pages.js("document.querySelector('a[download]').getAttribute('href')")\
            .endswith("/record.json")
        pages.shots("game")
        # the failures of the crashing bot, grouped, with their stderr as text
        pages.go("/bots/ada/crashy")
        wait_until(lambda: pages.go("/bots/ada/crashy") or pages.js(
            "!!document.querySelector('.failure-group[data-reason=crash] pre.stderr')"),
            120, "a crash in the ladder")
        stderr = pages.js("document.querySelector('.failure-group pre.stderr').textContent")
        assert "about to fail <b>not bold</b>" in stderr and "boom <img" in stderr
        assert str(folder) not in stderr and "uploads/ada/crashy/1/bot.py" in stderr
        assert pages.js("document.querySelectorAll('.failure-group pre b, "
                        ".failure-group pre img').length") == 0
        link = pages.js("document.querySelector('.failure-group a.replay').href")
        decision = int(link.split("#decision=")[1])
        pages.shots("bot-failures")
        pages.js("document.querySelector('.failure-group a.replay').click()")
        pages.until("!!document.getElementById('board')?.dataset.decision", 30,
                    "the replay at the failure")
        assert pages.js("document.getElementById('board').dataset.decision") == str(decision)
        assert "failed (crash" in pages.js("document.querySelector('.failure').textContent")
        # friendly games: alpha's owner asks for two against crashy; unrated, listed
        pages.go("/bots/ada/alpha")
        pages.fill({"games": "2"})
        pages.js("document.querySelector('input[name=opponent][value=\"ada/crashy@1\"]')"
                 ".checked = true")
        pages.submit("#friendly-form", "/bots/ada/alpha")
        wait_until(lambda: pages.go("/bots/ada/alpha") or pages.js(
            "document.querySelector('#friendlies li')?.dataset.state === 'done'"),
            120, "the friendly games")
        assert pages.js("document.querySelectorAll('#friendlies li a').length") == 2
        rated = httpx.get(f"{url}/api/v1/leaderboard?players=2").json()
        friendly = pages.js("document.querySelector('#friendlies li a').pathname")
        assert friendly.split("/")[-1] not in json.dumps(rated)
        pages.js("document.querySelector('#friendlies li a').click()")
        pages.until("!!document.getElementById('board')?.dataset.decision", 30,
                    "a friendly game's replay")
        # nothing was blocked, nothing threw, on any page
        assert browser.problems == [], browser.problems
    finally:
        browser.close()
        server.terminate()
        server.wait(timeout=30)
