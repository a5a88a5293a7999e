"""The league's optional whole-game clock (time.per_game): it reaches the runner, and a
league with stored games refuses to change it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.play import league_settings
from arena.league.run import run_league
from arena.league.store import open_store
from tests.league.fakes import FakePlay, bots

BAD_BOTS = Path(__file__).with_name("bots")


def test_per_game_becomes_the_runners_game_clock(league_file) -> None:
    assert load_league(league_file()).limits.game_seconds is None
    config = load_league(league_file("[time]", "per_decision = 2", "overage = 5",
                                     "per_game = 90"))
    limits = config.limits
    assert (limits.move_seconds, limits.bank_seconds, limits.game_seconds) == (2.0, 5.0, 90.0)
    assert league_settings(config).limits == limits
    assert limits.protocol_json()["game_ms"] == 90_000  # what the bots are told


@pytest.mark.parametrize(("before", "after", "message"), [
    ("", "per_game = 60", r"time\.per_game was None, now 60\.0"),
    ("per_game = 60", "per_game = 30", r"time\.per_game was 60\.0, now 30\.0"),
])
def test_changing_the_clock_after_games_were_played_is_refused(
        league_file, before: str, after: str, message: str) -> None:
    def run(path: Path) -> int:
        return run_league(load_league(path), backend=FunctionBackend(FakePlay()),
                          bots=bots(["a", "b", "c"]), out=io.StringIO(), err=io.StringIO())

    assert run(league_file("[time]", before)) == 0
    path = league_file("[time]", after)
    with pytest.raises(ArenaError, match=message) as caught:
        run(path)
    assert "another results_dir" in str(caught.value)


def test_a_bot_that_thinks_too_long_forfeits_on_the_league_clock(tmp_path: Path,
                                                                 capsys) -> None:
    # slowpoke sleeps 10 s on its third decision: the 20 s decision limit would let it,
    # the 1 s game clock does not
    league = tmp_path / "league.toml"
    league.write_text(
        'name = "clock"\ngame = "ra"\nplayers = 2\nroster = ["first", "slowpoke"]\n'
        f'bot_paths = ["{BAD_BOTS}"]\nresults_dir = "out"\nconcurrency = 2\n'
        "[time]\nper_decision = 20\nper_game = 1\n"
    )
    assert main(["run", str(league), "--quiet"]) == 0
    capsys.readouterr()
    store = open_store(load_league(league).results_dir)
    results = store.results()
    assert len(results) == 2  # one table, two seatings
    for result in results:
        slow = result.bots.index("slowpoke")
        assert dict(result.failures) == {slow: "timeout"}
        record = store.find_game(result.game_id)
        (failure,) = record.failures
        assert "left on its game clock (1 s per game)" in failure["detail"]
        seats = record.timings["seats"]
        assert seats[slow]["clock_left"] == 0.0
        assert seats[slow]["max_seconds"] < 5  # cut off at the clock, not after 10 s
        assert 0 < seats[1 - slow]["clock_left"] < 1.0  # first's clock ran too
    store.close()


@pytest.mark.parametrize(("value", "message"), [
    ("0", "more than 0"), ("-5", "more than 0"), ('"60s"', "number of seconds"),
    ("100000", "86400"),
])
def test_a_bad_clock_names_the_key(league_file, value: str, message: str) -> None:
    with pytest.raises(ArenaError, match=rf"key 'time\.per_game': .*{message}"):
        load_league(league_file("[time]", f"per_game = {value}"))
