"""The replay page of Ra and of the dice game draws exactly what it drew before drawing
moved into the games (issue 27): every position's board, move line, position line and
epoch table as the browser built them (their HTML), and the embedded game data, hashed.
The digests were taken from the page before the move.  Also kept: a screenshot of each
for people to compare (results/test-artifacts/)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from arena.records import GameRecord
from arena.viewer.frames import page_data
from arena.viewer.page import render_replay
from tests.viewer.browser import Browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "results" / "test-artifacts"
EVERY_FRAME = """(() => {
  const slider = document.getElementById('slider');
  const parts = [];
  for (let i = 0; i <= Number(slider.max); i++) {
    slider.value = String(i);
    slider.dispatchEvent(new Event('input'));
    for (const id of ['board', 'move', 'position', 'epochs']) {
      parts.push(document.getElementById(id).outerHTML);
    }
  }
  return parts.join('\\n');
})()"""
# fixture -> (sha256 of the embedded data, sha256 of every frame's HTML)
EXPECTED: dict[str, tuple[str, str]] = {
    "ra_game": ("cfd3036236a198114f03f75e1dc79b510422a72ca771b7eec70df64147d83e65",
                "66983bad3565aa524a9012eeb3bebccabae2c494afee89e3e0641afe49a260a1"),
    "dice_game": ("d3d0d0e5b20b45cded187d585f5b2566eed5f86162ac98a8762c9253ddfcdfe8",
                  "bceec8b3360d62c7b2b42d5afb58990afbead453462709e325bdc51c63754624"),
    "forfeited_game": ("bc4b4adb47d6b5cde7bd6fb09bf682ea7e16c136c3f6b86ae4fee6546031fb43",
                       "c6a791746a572e8fc8e1522592480d798ff0cbe5700880df2eede495f5a119f8"),
}


@pytest.mark.parametrize("fixture", ["ra_game", "dice_game", "forfeited_game"])
def test_every_frame_draws_as_before(fixture: str, request, browser: Browser,
                                     tmp_path: Path) -> None:
    record: GameRecord = request.getfixturevalue(fixture)
    data = hashlib.sha256(json.dumps(page_data(record), sort_keys=True).encode()).hexdigest()
    page = tmp_path / "page.html"
    page.write_text(render_replay(record), encoding="utf-8")
    browser.open(page)
    frames = hashlib.sha256(browser.evaluate(EVERY_FRAME).encode()).hexdigest()
    browser.evaluate("(() => { const s = document.getElementById('slider'); s.value = '30'; "
                     "s.dispatchEvent(new Event('input')); })()")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.screenshot(ARTIFACTS / f"replay-{record.game}-{record.game_id[:8]}.png")
    assert browser.problems == []
    assert (data, frames) == EXPECTED[fixture]
