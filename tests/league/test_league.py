"""Running leagues in-process with the fake player: resume, changes, concurrency."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.plan import league_schedule
from arena.league.run import run_league
from arena.league.store import open_store
from tests.league.fakes import FakePlay, bots, fake_bot


def run(path: Path, names: list[str], play: FakePlay | None = None, **kw) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_league(load_league(path), backend=FunctionBackend(play or FakePlay()),
                      bots=kw.pop("specs", None) or bots(names), out=out, err=err, **kw)
    return code, out.getvalue() + err.getvalue()


def test_a_league_plays_every_game_once_within_the_concurrency(league_file) -> None:
    path = league_file('roster = ["a", "b", "c", "d"]', "concurrency = 3", players="[3, 4]")
    play = FakePlay(sleep=0.01)
    code, text = run(path, ["a", "b", "c", "d"], play)
    assert code == 0
    config = load_league(path)
    schedule, _ = league_schedule(config, bots(["a", "b", "c", "d"]))
    store = open_store(config.results_dir)
    assert sorted(store.played_ids()) == sorted(g.game_id for g in schedule)
    assert len(play.started) == len(schedule) == 16
    assert play.max_in_flight == 3
    assert "16 games, 0 already played, 16 to play" in text
    assert "complete: games per bot" in text
    assert store.league_name == "test"
    assert "rank" in text and "Elo" in text  # the leaderboard at the end

    # Running again plays nothing.
    again = FakePlay()
    code, text = run(path, ["a", "b", "c", "d"], again)
    assert code == 0 and again.started == [] and "16 already played, 0 to play" in text


def test_adding_a_bot_plays_only_the_new_games(league_file) -> None:
    path = league_file()
    run(path, ["a", "b", "c"])
    play = FakePlay()
    code, _ = run(path, ["a", "b", "c", "d"], play)
    assert code == 0
    assert len(play.started) == 4 * 3 - 3  # C(4,3)*3 rotations minus the table played
    store = open_store(load_league(path).results_dir)
    assert store.count() == 12
    assert {bot for r in store.results() for bot in r.bots} == {"a", "b", "c", "d"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("[time]\nper_decision = 2", r"time\.per_decision was 1\.0, now 2\.0"),
        ("seed = 5", "seed was 1, now 5"),
        ("[options]\nshort = true", "options was {}, now {'short': True}"),
        ("[limits]\nmemory_mb = 100", "limits.memory_mb was 2048, now 100"),
    ],
)
def test_a_changed_file_is_refused(league_file, change: str, message: str) -> None:
    path = league_file()
    run(path, ["a", "b", "c"])
    path.write_text(path.read_text() + change + "\n")
    with pytest.raises(ArenaError, match=message) as caught:
        run(path, ["a", "b", "c"])
    assert "another results_dir" in str(caught.value)


def test_removing_a_bot_is_refused(league_file) -> None:
    path = league_file()
    run(path, ["a", "b", "c", "d"])
    with pytest.raises(ArenaError, match=r"9 game\(s\) already played .* not in this file's"):
        run(path, ["a", "b", "c"])


def test_a_changed_bot_is_refused(league_file) -> None:
    path = league_file()
    run(path, ["a", "b", "c"])
    changed = [fake_bot("a", version="2.0.0"), fake_bot("b"), fake_bot("c")]
    with pytest.raises(ArenaError, match=r"bot 'a' changed .*version 1\.0\.0 -> 2\.0\.0"):
        run(path, [], specs=changed)
    edited = [fake_bot("a", content_hash="0" * 64), fake_bot("b"), fake_bot("c")]
    with pytest.raises(ArenaError, match="its files changed"):
        run(path, [], specs=edited)


def test_harmless_changes_are_accepted(league_file) -> None:
    path = league_file()
    run(path, ["a", "b", "c"])
    path.write_text(path.read_text().replace('name = "test"', 'name = "renamed"')
                    + "concurrency = 1\n[rating]\nbootstrap = 10\n")
    code, _ = run(path, ["a", "b", "c"])
    assert code == 0
    assert open_store(load_league(path).results_dir).league_name == "renamed"


def test_failures_are_stored_with_their_reason(league_file) -> None:
    path = league_file()
    code, text = run(path, ["a", "b", "crashy"])
    assert code == 0
    results = open_store(load_league(path).results_dir).results()
    assert len(results) == 3
    for result in results:
        seat = result.bots.index("crashy")
        assert result.failures == {seat: "crash"} and result.placements[seat] == 3


def test_a_change_before_any_game_was_stored_is_free(league_file) -> None:
    path = league_file()
    config = load_league(path)
    from arena.league.plan import prepare
    from arena.league.store import create_store

    store = create_store(config.results_dir)  # a first run that stored nothing
    prepare(config, bots(["a", "b", "c"]), store)
    store.close()
    path.write_text(path.read_text() + "[time]\nper_decision = 2\n")
    assert run(path, ["a", "b", "c"])[0] == 0
    code, text = run(path, ["a", "b", "c"])  # and resuming it later is not refused
    assert code == 0 and "3 already played" in text


def test_dry_run_checks_everything_and_plays_nothing(league_file) -> None:
    path = league_file()
    config = load_league(path)
    code, text = run(path, ["a", "b", "c"], dry_run=True)
    assert code == 0 and "3 games, 0 already played, 3 to play" in text
    assert not config.results_dir.exists()  # nothing written
    run(path, ["a", "b", "c"])
    code, text = run(path, ["a", "b", "c", "d"], dry_run=True)
    assert code == 0 and "12 games, 3 already played, 9 to play" in text
    assert open_store(config.results_dir).count() == 3
    path.write_text(path.read_text() + "seed = 9\n")
    with pytest.raises(ArenaError, match="seed was 1, now 9"):
        run(path, ["a", "b", "c"], dry_run=True)


def test_the_sandbox_level_may_change_between_runs(league_file) -> None:
    """It contains bots and changes no rule or limit; a league stored under the old
    default ("none") resumes under the new one ("auto")."""
    path = league_file("[limits]", 'sandbox = "none"')
    run(path, ["a", "b", "c"])
    path.write_text(path.read_text().replace('sandbox = "none"', 'sandbox = "auto"'))
    play = FakePlay()
    code, text = run(path, ["a", "b", "c", "d"], play)
    assert code == 0 and len(play.started) == 4 * 3 - 3


def test_the_end_of_a_run_with_failures_says_where_the_stderr_logs_are(league_file) -> None:
    path = league_file('roster = ["a", "b", "crashy"]')
    code, text = run(path, ["a", "b", "crashy"])
    assert code == 0
    logs = str(load_league(path).results_dir / "logs")
    assert "3 bot failure(s) this run" in text and f"stderr is in {logs}/" in text
    clean = path.with_name("clean.toml")
    clean.write_text('name = "clean"\ngame = "ra"\nplayers = 3\nresults_dir = "clean"\n'
                     'roster = ["a", "b", "c"]\n')
    code, text = run(clean, ["a", "b", "c"])
    assert "failure(s) this run" not in text


def test_a_league_stored_under_other_rules_is_refused_before_a_game(league_file) -> None:
    # The fake records hold no options, as Ra's records did before it had editions:
    # new games would get the classic edition, and a resumed league would mix both.
    path = league_file('roster = ["a", "b", "c", "d"]')
    code, _ = run(path, ["a", "b", "c"])
    assert code == 0
    with pytest.raises(ArenaError, match='under other rules .*edition = "classic"'):
        run_league(load_league(path), bots=bots(["a", "b", "c", "d"]), quiet=True,
                   out=io.StringIO(), err=io.StringIO())
    store = open_store(load_league(path).results_dir)
    assert store.count() == 3  # nothing played, nothing changed
    store.close()
