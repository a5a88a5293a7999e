"""The replay page of a game only a plugin knows, in a real Chromium: nim
(tests/runner/toygame.py) supplies no drawing, and its page (``arena replay --html``)
draws every position with the generic board, the seat's JSON as a table, stepping
through the whole game like Ra's.  Its screenshot is kept in results/test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.league.store import create_store
from arena.viewer.frames import positions
from tests.plugins.conftest import fake_distribution  # noqa: F401 - fixtures
from tests.plugins.test_plugin_game import nim_plugin  # noqa: F401 - fixtures
from tests.viewer.browser import Browser
from tests.viewer.conftest import play

ARTIFACTS = Path(__file__).resolve().parents[2] / "results" / "test-artifacts"
SHOWN = """(() => {
  const rows = [...document.querySelectorAll('#board table.json-board tr')];
  return {decision: Number(document.getElementById('board').dataset.decision),
          position: document.getElementById('position').textContent,
          move: document.getElementById('move').textContent,
          rows: Object.fromEntries(rows.map((r) => [r.dataset.key,
                                                   r.querySelector('td').textContent])),
          epochMenu: document.getElementById('epoch').hidden,
          epochTable: document.getElementById('epochs').hidden};
})()"""


@pytest.mark.usefixtures("nim_plugin")
def test_a_plugin_games_page_draws_every_position(browser: Browser, tmp_path: Path) -> None:
    from arena.runner.players import random_player

    record = play("nim", [random_player(f"rand{i}") for i in range(3)], 9, "9999aaaa0000bbbb")
    store = create_store(tmp_path / "league")
    store.add_game(record)
    store.close()
    page = tmp_path / "nim.html"
    assert main(["replay", record.game_id[:8], "--results", str(tmp_path / "league"),
                 "--html", "-o", str(page)]) == 0
    browser.open(page)
    entries = positions(record)
    last = len(entries) - 1
    for index, entry in enumerate(entries):
        if index:
            browser.press("ArrowRight", 39)
        shown = browser.evaluate(SHOWN)
        assert shown["decision"] == entry["decision"]
        # nim's view holds numbers only: each is one row of the table
        assert shown["rows"] == {key: str(value) for key, value in entry["view"].items()}
        assert shown["epochMenu"] and shown["epochTable"]  # nim has no epochs
        if entry["seat"] is None:
            assert shown["position"] == f"End of the game ({last} decisions)"
        else:
            assert shown["position"] == f"Decision {entry['decision']} of {last}"
            assert shown["move"].endswith(f"chooses: {entry['move']}")
    browser.press("Home", 36)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.screenshot(ARTIFACTS / "replay-plugin-game.png")
    assert browser.problems == []


@pytest.mark.usefixtures("nim_plugin")
def test_a_board_script_that_would_end_its_element_is_refused(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.errors import ArenaError
    from arena.runner.players import random_player
    from arena.viewer.page import render_replay
    from tests.runner.toygame import NIM

    record = play("nim", [random_player("a"), random_player("b")], 2, "1234123412341234")
    assert "window.arenaBoard" in render_replay(record)
    monkeypatch.setattr(NIM, "board_script", lambda: "window.arenaBoard = 1; </SCRIPT><b>")
    with pytest.raises(ArenaError, match="nim game's board_script contains '</script'"):
        render_replay(record)
