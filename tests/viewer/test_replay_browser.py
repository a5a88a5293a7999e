"""The replay page in a real Chromium: keys and buttons step through a whole game, and
what is drawn is checked against the record (through the engine) at several points.

A screenshot of one position is kept in results/test-artifacts/ for people to look at.
Without Chromium the tests skip, but under CI=true they fail (tests/viewer/browser.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.records import GameRecord
from arena.viewer.frames import positions
from arena.viewer.page import render_replay
from tests.viewer.browser import Browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "results" / "test-artifacts"
RIGHT, LEFT, HOME, END, PAGE_DOWN = ("ArrowRight", 39), ("ArrowLeft", 37), ("Home", 36), \
    ("End", 35), ("PageDown", 34)


def page_of(record: GameRecord, folder: Path) -> Path:
    path = folder / f"{record.game_id}.html"
    path.write_text(render_replay(record), encoding="utf-8")
    return path


def drawn(browser: Browser) -> dict:
    """What the page shows now, read from the DOM as a person would read it."""
    script = """(() => {
      const text = (node) => node ? node.textContent.trim() : null;
      const seats = [...document.querySelectorAll('#board .seat')].map((seat) => ({
        seat: Number(seat.dataset.seat), acting: seat.classList.contains('acting'),
        score: text(seat.querySelector('.score b')),
        suns: [...seat.querySelectorAll('.suns .sun:not(.used)')].map(text),
        used: [...seat.querySelectorAll('.suns .sun.used')].map(text),
        tiles: [...seat.querySelectorAll('.tiles .tile')].map((t) => t.dataset.tile),
      }));
      return {decision: Number(document.getElementById('board').dataset.decision),
              position: text(document.getElementById('position')),
              move: text(document.getElementById('move')), seats,
              ra: document.querySelectorAll('#ra-track .slot.filled').length,
              ra_text: [...document.querySelectorAll('#ra-track .slot.filled')].map(text),
              auction: [...document.querySelectorAll('#auction-track .tile')]
                .map((t) => t.dataset.tile),
              dice: [...document.querySelectorAll('#dice .die')].map((d) => d.dataset.face),
              failures: [...document.querySelectorAll('.failure')].map(text),
              disaster: text(document.getElementById('disaster')),
              epochs: document.querySelectorAll('#epoch-scores tr').length - 1};
    })()"""
    result: dict = browser.evaluate(script)
    return result


def check_ra(shown: dict, entry: dict, record: GameRecord) -> None:
    view = entry["view"]
    assert shown["ra"] == view["ra_track"]
    assert shown["auction"] == view["auction_track"]
    for player, seat in zip(view["players"], shown["seats"], strict=True):
        assert seat["score"] == str(player["score"])
        assert seat["suns"] == [str(s) for s in player["suns"]]
        assert seat["used"] == [str(s) for s in player["used_suns"]]
        assert seat["tiles"] == list(player["tiles"])
        assert seat["acting"] == (player["seat"] == entry["seat"])
    disaster = view["disaster"]
    assert shown["disaster"] == (None if disaster is None else (
        f"Disaster: {disaster['disaster'].replace('_', ' ')} - {record.seats[disaster['seat']]} "
        f"(seat {disaster['seat']}) must discard {disaster['to_lose']} more tile(s)"))


def check_dice(shown: dict, entry: dict, record: GameRecord) -> None:
    view = entry["view"]
    assert shown["dice"] == [die["face"] for die in view["dice"]]
    assert shown["ra_text"] == [str(view["ra"]["position"])]
    for s, seat in enumerate(shown["seats"]):
        assert seat["score"] == str(view["scores"][s])
        assert seat["acting"] == (s == entry["seat"])


def check_move(shown: dict, entry: dict, record: GameRecord, last: int) -> None:
    assert shown["decision"] == entry["decision"]
    if entry["seat"] is None:
        assert shown["position"] == f"End of the game ({last} decisions)"
        for seat, name in enumerate(record.seats):
            assert f"{name} (seat {seat}): {float(record.scores[seat])}" in shown["move"] \
                or f"{name} (seat {seat}): {record.scores[seat]:g}" in shown["move"]
    else:
        assert shown["position"].startswith(f"Decision {entry['decision']} of {last}")
        assert shown["move"].startswith(f"{record.seats[entry['seat']]} (seat {entry['seat']})")
        assert shown["move"].endswith(entry["move"])


@pytest.mark.parametrize("fixture", ["ra_game", "dice_game"])
def test_keys_step_through_the_whole_game_and_the_board_matches_the_record(
    fixture: str, request, browser: Browser, tmp_path: Path
) -> None:
    record: GameRecord = request.getfixturevalue(fixture)
    entries = positions(record)
    last = len(entries) - 1
    check_board = check_ra if record.game == "ra" else check_dice
    browser.open(page_of(record, tmp_path))
    checked = set(range(0, last + 1, max(1, last // 6))) | {last}
    disasters = [i for i, e in enumerate(entries)
                 if e["view"].get("disaster") or e["view"].get("disaster_victim")]
    assert disasters  # both fixtures' games have one: it is drawn too
    checked |= set(disasters[:3])
    for index, entry in enumerate(entries):
        if index:
            browser.press(*RIGHT)
        shown = drawn(browser)
        assert shown["decision"] == entry["decision"]  # every step moves exactly one
        if index in checked:
            check_move(shown, entry, record, last)
            check_board(shown, entry, record)
    assert drawn(browser)["epochs"] == len(record.engine["epochs"])  # all epochs scored
    browser.press(*RIGHT)  # past the end: stays there
    assert drawn(browser)["decision"] == entries[-1]["decision"]
    browser.press(*LEFT)
    check_move(drawn(browser), entries[-2], record, last)
    browser.press(*HOME)
    assert drawn(browser)["decision"] == 1 and drawn(browser)["epochs"] == 0
    browser.press(*PAGE_DOWN)  # the first position of epoch 2
    shown = drawn(browser)
    second = next(e for e in entries if e["view"]["epoch"] == 2)
    check_move(shown, second, record, last)
    check_board(shown, second, record)
    assert shown["epochs"] == 1
    browser.press(*END)
    assert drawn(browser)["decision"] == entries[-1]["decision"]
    assert browser.problems == []


def test_buttons_slider_and_epoch_menu(ra_game: GameRecord, browser: Browser,
                                        tmp_path: Path) -> None:
    entries = positions(ra_game)
    browser.open(page_of(ra_game, tmp_path))
    browser.click("#next")
    browser.click("#next")
    browser.click("#prev")
    assert drawn(browser)["decision"] == 2
    browser.click("#last")
    assert drawn(browser)["decision"] == entries[-1]["decision"]
    browser.click("#first")
    assert drawn(browser)["decision"] == 1
    browser.evaluate("(() => { const s = document.getElementById('epoch'); s.value = '3';"
                     " s.dispatchEvent(new Event('change')); })()")
    third = next(e for e in entries if e["view"]["epoch"] == 3)
    check_ra(drawn(browser), third, ra_game)
    browser.evaluate("(() => { const s = document.getElementById('slider'); s.value = '40';"
                     " s.dispatchEvent(new Event('input')); })()")
    check_ra(drawn(browser), entries[40], ra_game)
    browser.click("#play")  # plays on by itself
    before = drawn(browser)["decision"]
    for _ in range(60):
        if drawn(browser)["decision"] >= before + 2:
            break
        browser.evaluate("new Promise((done) => setTimeout(done, 100))")
    assert drawn(browser)["decision"] >= before + 2
    browser.click("#play")  # pauses
    paused = drawn(browser)["decision"]
    browser.evaluate("new Promise((done) => setTimeout(done, 900))")
    assert drawn(browser)["decision"] == paused
    assert browser.problems == []


def test_a_forfeit_is_drawn_where_it_happened(forfeited_game: GameRecord, browser: Browser,
                                               tmp_path: Path) -> None:
    failure = forfeited_game.failures[0]
    decision = failure["decision"]
    assert decision is not None
    page = page_of(forfeited_game, tmp_path)
    browser.open(page, f"#decision={decision + 2}")  # a link can start at any decision
    assert drawn(browser)["decision"] == decision + 2
    browser.press(*HOME)
    for _ in range(decision - 1):
        assert drawn(browser)["failures"] == []
        browser.press(*RIGHT)
    shown = drawn(browser)
    assert shown["decision"] == decision
    assert len(shown["failures"]) == 1
    assert "crashy (seat 1) failed (crash, decision)" in shown["failures"][0]
    assert "out of ideas" in shown["failures"][0]
    assert "fallback policy plays" in shown["move"]  # the move shown is the fallback's
    later = next(e for e in positions(forfeited_game)[decision:] if e["seat"] == 1)
    browser.evaluate(f"(() => {{ const s = document.getElementById('slider'); "
                     f"s.value = '{later['decision'] - 1}'; "
                     "s.dispatchEvent(new Event('input')); })()")
    assert "fallback policy plays" in drawn(browser)["move"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / "replay-forfeit.png"
    browser.evaluate(f"(() => {{ const s = document.getElementById('slider'); "
                     f"s.value = '{decision - 1}'; s.dispatchEvent(new Event('input')); }})()")
    browser.screenshot(screenshot)
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert screenshot.stat().st_size > 30_000  # a real rendering, not a blank page
    assert browser.problems == []


def test_the_page_loads_nothing_and_problems_would_be_caught(browser: Browser,
                                                              tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><meta http-equiv='Content-Security-Policy' content=\"default-src "
        "'none'; script-src 'unsafe-inline'\"><div id='board' data-decision='1'></div>"
        "<img src='http://example.invalid/x.png'><script>console.error('boom');</script>",
        encoding="utf-8")
    browser.open(page)
    browser.evaluate("new Promise((done) => setTimeout(done, 200))")
    problems = json.dumps(browser.problems)
    assert "boom" in problems
    assert "Content Security Policy" in problems or "example.invalid" in problems


def test_comments_and_hostile_names_are_shown_as_text(ra_game: GameRecord, browser: Browser,
                                                       tmp_path: Path) -> None:
    import dataclasses

    hostile = "<img src=x onerror=\"document.title='owned'\">"
    players = tuple({**p, "name": hostile if p["seat"] == 1 else p["name"]}
                    for p in ra_game.players)
    first_move_of_1 = next(e for e in positions(ra_game) if e["seat"] == 1)
    comments = ({"decision": first_move_of_1["decision"], "seat": 1,
                 "comment": "I like the odds </script><b>bold</b>"},)
    record = dataclasses.replace(ra_game, players=players, comments=comments)
    browser.open(page_of(record, tmp_path), f"#decision={first_move_of_1['decision']}")
    shown = drawn(browser)
    assert shown["decision"] == first_move_of_1["decision"]
    assert f"{hostile} says: “I like the odds </script><b>bold</b>”" in shown["move"]
    assert browser.evaluate("document.title") != "owned"
    assert browser.evaluate("document.querySelectorAll('#move b, #board img').length") == 1
    assert browser.problems == []
