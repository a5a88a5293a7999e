"""The replay page's content, checked without a browser (the browser test draws it)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.store import create_store
from arena.plugins import load_game
from arena.records import GameRecord
from arena.viewer.frames import apply_patch, describe_action, diff, page_data, positions
from arena.viewer.page import render_replay


def embedded(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', page,
                      re.DOTALL)
    assert found is not None
    return json.loads(found[1])


@pytest.mark.parametrize("fixture", ["ra_game", "dice_game", "forfeited_game"])
def test_every_position_is_the_engines_and_the_diffs_rebuild_it(fixture: str, request) -> None:
    record: GameRecord = request.getfixturevalue(fixture)
    entries = positions(record)
    assert len(entries) == len(record.engine["actions"]) + 1
    # position k is what the engine shows after the first k actions of the record
    game = load_game(record.game)
    for k in (0, 1, len(entries) // 2, len(entries) - 1):
        partial = {**record.engine, "actions": record.engine["actions"][:k]}
        if k == len(entries) - 1:
            state = game.replay(record.engine)
            assert entries[k]["view"] == state.observation(0)
        else:
            state = game.new_game(record.num_players, record.seed, record.engine.get("options"))
            for step in partial["actions"]:
                state.apply_action(step["action"])
            assert entries[k]["view"] == state.observation(entries[k]["seat"])
    # the page's patches rebuild exactly those positions
    data = page_data(record)
    view = None
    for frame, entry in zip(data["frames"], positions(record), strict=True):
        view = apply_patch(view, frame["patch"])
        assert view == entry["view"]
        assert frame["decision"] == entry["decision"]


def test_diff_handles_added_removed_and_resized_values() -> None:
    old = {"a": [1, 2], "b": {"c": 1, "gone": 2}, "d": None}
    new = {"a": [1, 2, 3], "b": {"c": 5, "new": [1]}, "d": {"x": 1}}
    assert apply_patch(old, diff(old, new)) == new
    assert diff(new, new) == []
    assert diff(1, 1.0) == [[[], 1.0]]  # a change of type is a change


def test_actions_read_as_words() -> None:
    assert describe_action({"type": "bid", "sun": 9}) == "bid sun 9"
    assert describe_action({"type": "invoke_ra"}) == "invoke ra"
    assert describe_action({"type": "reroll", "dice": ["red", "blue"]}) == "reroll dice red, blue"


def test_the_page_is_self_contained_and_small(ra_game: GameRecord) -> None:
    page = render_replay(ra_game)
    assert len(page.encode()) < 300_000
    # nothing is fetched: no URL, no src/href attribute, no import; the CSP forbids it too
    assert not re.search(r"https?://|\bsrc=|\bhref=|@import|url\(", page)
    assert "default-src 'none'" in page
    assert embedded(page)["game_id"] == ra_game.game_id


def test_untrusted_names_and_comments_cannot_break_out_of_the_page(ra_game: GameRecord) -> None:
    hostile = "</script><script>alert(1)</script><!--"
    players = tuple({**p, "name": hostile} for p in ra_game.players)
    comments = ({"decision": 1, "seat": 0, "comment": hostile},)
    record = dataclasses.replace(ra_game, players=players, comments=comments)
    page = render_replay(record)
    assert "<script>alert" not in page
    assert page.count("</script>") == 2  # the data's and the viewer's own
    data = embedded(page)
    assert data["players"][0]["name"] == hostile and data["comments"][0]["comment"] == hostile


def test_a_forfeit_is_shown_at_the_decision_where_it_happened(forfeited_game) -> None:
    data = page_data(forfeited_game)
    failure = data["failures"][0]
    assert failure["seat"] == 1 and failure["reason"] == "crash"
    assert "out of ideas" in failure["detail"]
    frame = data["frames"][failure["decision"] - 1]
    assert frame["seat"] == 1  # the crashing seat was to move there


def test_arena_replay_html_writes_the_page(ra_game: GameRecord, tmp_path: Path, capsys) -> None:
    store = create_store(tmp_path / "league")
    store.add_game(ra_game)
    store.close()
    out = tmp_path / "game.html"
    assert main(["replay", ra_game.game_id[:6], "--results", str(tmp_path / "league"),
                 "--html", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert embedded(out.read_text())["frames"] == page_data(ra_game)["frames"]
    # errors are one line, exit 2, and nothing half-written is left
    assert main(["replay", ra_game.game_id, "--results", str(tmp_path / "league"),
                 "-o", str(tmp_path / "x.html")]) == 2
    assert "-o/--output is for --html" in capsys.readouterr().err
    assert main(["replay", ra_game.game_id, "--results", str(tmp_path / "league"), "--html",
                 "-o", str(tmp_path / "missing" / "x.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_record_the_engine_cannot_replay_is_a_clear_error(ra_game, tmp_path, capsys) -> None:
    wrong_seat = (ra_game.engine["actions"][0]["seat"] + 1) % ra_game.num_players
    broken = dataclasses.replace(
        ra_game, engine={**ra_game.engine, "actions": [{"seat": wrong_seat, "action": 0}]})
    store = create_store(tmp_path / "league")
    store.add_game(broken)
    store.close()
    assert main(["replay", ra_game.game_id, "--results", str(tmp_path / "league"),
                 "--html", "-o", str(tmp_path / "x.html")]) == 2
    assert "does not replay at decision 1" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_the_report_links_every_game_to_its_replay(ra_game, dice_game, forfeited_game,
                                                   tmp_path: Path, capsys) -> None:
    unreplayable = dataclasses.replace(ra_game, game_id="9999aaaa9999aaaa",
                                       engine={"seed": 1, "actions": "?"})
    store = create_store(tmp_path / "league")
    for record in (ra_game, dice_game, forfeited_game, unreplayable):
        store.add_game(record)
    store.close()
    out = tmp_path / "site" / "report.html"
    out.parent.mkdir()
    assert main(["report", str(tmp_path / "league"), "-o", str(out), "--bootstrap", "0"]) == 0
    printed = capsys.readouterr()
    assert "wrote 3 replay page(s)" in printed.out
    assert "1 game(s) have no replay page, e.g. game 9999aaaa9999aaaa" in printed.err
    report = out.read_text()
    links = re.findall(r'<a href="report-games/([0-9a-f]{16})\.html">\1</a>', report)
    assert sorted(links) == sorted(r.game_id for r in (ra_game, dice_game, forfeited_game))
    for game_id in links:
        page = (tmp_path / "site" / "report-games" / f"{game_id}.html").read_text()
        assert embedded(page)["game_id"] == game_id
    assert "9999aaaa9999aaaa" in report  # listed, without a link
    assert main(["report", str(tmp_path / "league"), "-o", str(tmp_path / "bare.html"),
                 "--bootstrap", "0", "--no-replays"]) == 0
    assert "replay" not in capsys.readouterr().out
    assert not (tmp_path / "bare-games").exists()


def test_a_big_league_gets_replay_pages_only_on_request(ra_game, dice_game, tmp_path: Path,
                                                        capsys, monkeypatch) -> None:
    from arena.report import commands

    store = create_store(tmp_path / "league")
    for record in (ra_game, dice_game):
        store.add_game(record)
    store.close()
    monkeypatch.setattr(commands, "AUTO_REPLAY_GAMES", 1)  # two games count as big here
    out = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "league"), "-o", str(out), "--bootstrap", "0"]) == 0
    printed = capsys.readouterr()
    assert "2 games: no replay pages (more than 1); --replays writes them all" in printed.err
    assert not (tmp_path / "report-games").exists() and out.exists()
    assert main(["report", str(tmp_path / "league"), "-o", str(out), "--bootstrap", "0",
                 "--replays"]) == 0
    assert "wrote 2 replay page(s)" in capsys.readouterr().out
    assert len(list((tmp_path / "report-games").glob("*.html"))) == 2
