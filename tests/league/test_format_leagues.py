"""Swiss and knockout leagues through the engine: each stage waits for the one before,
a league stopped anywhere (cancelled, or killed with kill -9 in every round) resumes to
exactly the games of the league played in one go, and changes that would alter the rounds
already played are refused."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.engine import League, LeagueListener, StoredGame, play_league
from arena.league.formats import Stage
from arena.league.run import run_league
from arena.league.store import DB_NAME, open_store
from tests.league.fakes import FakePlay, bots

SCRIPT = Path(__file__).with_name("league_script.py")
ROSTER = [f"b{i}" for i in range(9)]
SWISS = ['format = "swiss"', "rounds = 4"]
KNOCKOUT = ['format = { name = "knockout", games = 2 }']


def write(tmp_path: Path, name: str, players: int, *lines: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join([
        f'name = "{name}"', 'game = "ra"', f"players = {players}",
        f'results_dir = "{name}-out"', f"roster = {ROSTER!r}".replace("'", '"'),
        "concurrency = 3", *lines]) + "\n")
    return path


def stored_games(results: Path) -> dict[str, tuple[object, ...]]:
    """game id -> what was stored of it (seats, seed, round, table, placements)."""
    connection = sqlite3.connect(results / DB_NAME)
    try:
        rows = connection.execute(
            "SELECT game_id, seats, seed, round, table_id, placements FROM games").fetchall()
    finally:
        connection.close()
    return {row[0]: row[1:] for row in rows}


class Stages(LeagueListener):
    def __init__(self) -> None:
        self.labels: list[str] = []
        self.in_flight_at_start: list[int] = []
        self.play: FakePlay | None = None

    def stage_started(self, league: League, stage: Stage) -> None:
        self.labels.append(stage.label)
        assert self.play is not None
        self.in_flight_at_start.append(self.play.in_flight)


def run(path: Path, listeners: list[LeagueListener] = (), stop_after: int | None = None,
        play: FakePlay | None = None) -> int:
    """Play the league in this process; cancel it once ``stop_after`` games are stored."""
    config = load_league(path)
    play = play or FakePlay()
    played = {"n": 0}

    class Stopper(LeagueListener):
        def __init__(self, scope: trio.CancelScope) -> None:
            self.scope = scope

        def game_stored(self, league: League, game: StoredGame) -> None:
            played["n"] += 1
            if played["n"] == stop_after:
                self.scope.cancel()

    async def main() -> None:
        with trio.CancelScope() as scope:
            await play_league(config, backend=FunctionBackend(play), bots=bots(ROSTER),
                              listeners=[Stopper(scope), *listeners])

    trio.run(main)
    return played["n"]


LADDER = ['format = "ladder"', "max_games = 60"]


@pytest.mark.parametrize(("players", "lines"), [(2, SWISS), (3, SWISS), (2, KNOCKOUT),
                                                (3, KNOCKOUT), (3, LADDER)])
def test_stages_follow_one_another_and_stopping_anywhere_resumes_the_same_league(
    tmp_path: Path, players: int, lines: list[str]
) -> None:
    whole = write(tmp_path, "whole", players, *lines)
    recorder = Stages()
    recorder.play = FakePlay(sleep=0.002)
    total = run(whole, [recorder], play=recorder.play)
    expected = stored_games(load_league(whole).results_dir)
    assert total == len(expected) > 0
    # a stage starts only once every game of the one before is stored
    assert recorder.in_flight_at_start == [0] * len(recorder.labels)
    assert len(recorder.labels) >= (4 if lines is SWISS else 2)
    if lines is LADDER:  # whole tables of 3 rotations, within max_games
        assert 58 <= total <= 60
    # stopped every few games (games in flight abandoned), each time resumed: the same
    # games in the end
    parts = write(tmp_path, "parts", players, *lines)
    results = load_league(parts).results_dir
    step = max(1, total // 12)
    for stop in range(step, total, step):
        run(parts, stop_after=step)
        assert len(stored_games(results)) == stop
    run(parts)
    assert stored_games(results) == expected


def test_a_changed_format_or_field_is_refused_once_games_are_stored(tmp_path: Path) -> None:
    path = write(tmp_path, "swiss", 2, *SWISS)
    run(path, stop_after=10)  # round 1 (4 tables of 2 games) and 2 games of round 2
    text = path.read_text()
    # 4 games a table: round 1 lacks its second deals, so round 2 is not paired yet
    path.write_text(text.replace('format = "swiss"',
                                 'format = { name = "swiss", games = 4 }'))
    with pytest.raises(ArenaError, match="are not games this swiss league plays"):
        run(path)
    path.write_text(text.replace('"b8"]', '"b8", "b9"]'))
    config = load_league(path)
    with pytest.raises(ArenaError, match=r"the field changed .*added b9"):
        trio.run(lambda: play_league(config, backend=FunctionBackend(FakePlay()),
                                     bots=bots([*ROSTER, "b9"])))
    path.write_text(text)  # put back: it plays on
    run(path)
    store = open_store(load_league(path).results_dir)
    try:
        assert store.config_snapshot is not None
        assert store.config_snapshot["field"] == ROSTER
        assert store.config_snapshot["format"] == "swiss"
    finally:
        store.close()


def test_feed_formats_refuse_what_needs_a_schedule(tmp_path: Path) -> None:
    swiss = write(tmp_path, "many", 3, 'format = "swiss"').read_text()
    cases = [
        (swiss.replace("players = 3", "players = [2, 3]"), "tables of one size"),
        (swiss + "max_games = 10\n", "sets its own length"),
        (swiss + 'format_x = 1\n', "unknown key"),
        (swiss.replace('format = "swiss"', 'format = { name = "swiss", games = 0 }'),
         "format.games': must be between 1 and 1000"),
        (swiss.replace('format = "swiss"', 'format = { name = "swiss", turns = 2 }'),
         "format.turns': unknown key; allowed here: games, ratings, seeding"),
        (swiss.replace('format = "swiss"', 'format = { name = "knockout", seeding = "rating" }'),
         'seeding = "rating" needs ratings'),
        (swiss.replace('format = "swiss"', 'format = "knockout"') + "rounds = 3\n",
         "a knockout's rounds follow from its bracket"),
        (swiss.replace('format = "swiss"', 'format = "swis"'),
         "unknown format 'swis' \\(did you mean 'swiss'\\?\\); known formats: round-robin"),
        (swiss.replace('format = "swiss"', 'format = "ladder"'), "plays until max_games"),
    ]
    for text, message in cases:
        path = tmp_path / "bad.toml"
        path.write_text(text)
        with pytest.raises(ArenaError, match=message):
            run_league(load_league(path), quiet=True, backend=FunctionBackend(FakePlay()),
                       bots=bots(ROSTER))
    path.write_text(swiss)
    config = load_league(path)
    from arena.league.plan import Shard

    with pytest.raises(ArenaError, match="cannot be split into shards"):
        run_league(config, quiet=True, backend=FunctionBackend(FakePlay()),
                   bots=bots(ROSTER), shard=Shard(1, 2))


# ------------------------------------------------------------------ kill -9 in every round


def count(results: Path) -> int:
    if not (results / DB_NAME).exists():
        return 0
    connection = sqlite3.connect(results / DB_NAME, timeout=10)
    try:
        return int(connection.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        connection.close()


def rounds_stored(results: Path) -> dict[int, int]:
    connection = sqlite3.connect(results / DB_NAME, timeout=10)
    try:
        return dict(connection.execute(
            "SELECT round, COUNT(*) FROM games GROUP BY round").fetchall())
    finally:
        connection.close()


@pytest.mark.parametrize(("players", "lines"), [
    (3, SWISS), (2, ['format = { name = "knockout", games = 4 }'])], ids=["swiss", "knockout"])
def test_kill_9_in_every_round_then_resume_gives_the_uninterrupted_league(
    tmp_path: Path, players: int, lines: list[str]
) -> None:
    whole = write(tmp_path, "whole", players, *lines)
    run(whole)
    expected = stored_games(load_league(whole).results_dir)
    per_round = rounds_stored(load_league(whole).results_dir)
    path = write(tmp_path, "killed", players, *lines)
    results = load_league(path).results_dir
    argv = [sys.executable, str(SCRIPT), str(path), ",".join(ROSTER), "0.3"]
    killed_in = []
    for number in sorted(per_round):
        before = sum(n for r, n in per_round.items() if r < number)
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        # kill it once a game of this round is stored and before the round is complete
        while count(results) <= before and time.monotonic() < deadline:
            time.sleep(0.005)
        process.kill()
        _out, err = process.communicate()
        assert process.returncode == -9, err.decode()
        stored = stored_games(results)
        assert set(stored) <= set(expected)  # nothing another league would play
        assert all(stored[i] == expected[i] for i in stored)
        killed_in.append(rounds_stored(results).get(number, 0))
    print("games of the round stored when killed:", killed_in, "of", per_round)
    assert all(n > 0 for n in killed_in)  # each kill fell in its round
    # and most before the round was over (a kill is as late as its first game stored)
    assert sum(n < per_round[r] for n, r in zip(killed_in, sorted(per_round), strict=True)) \
        >= len(per_round) - 1
    process = subprocess.Popen([*argv[:-1], "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode()
    assert stored_games(results) == expected


def test_the_standings_are_shown_by_run_leaderboard_and_report(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    import io
    import json

    from arena.cli import main

    swiss = write(tmp_path, "swiss", 3, *SWISS)
    out, err = io.StringIO(), io.StringIO()
    run_league(load_league(swiss), backend=FunctionBackend(FakePlay()), bots=bots(ROSTER),
               out=out, err=err)
    printed = out.getvalue()
    assert "Swiss standings (4 rounds, tables of 3)" in printed
    assert "Buchholz" in printed and "Sonneborn-Berger" in printed
    assert "swiss: ra, Swiss: 9 bots, 4 rounds of 3 tables of 3" in err.getvalue()
    assert "swiss: round 4 of 4: 9 games" in err.getvalue()
    results = str(load_league(swiss).results_dir)
    assert main(["leaderboard", results]) == 0
    board = capsys.readouterr().out
    standings = board[board.index("Swiss standings"):]
    header = standings.splitlines()[1].split()
    assert header[:4] == ["rank", "bot", "score", "Buchholz"] and "Elo" in header
    assert main(["leaderboard", results, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["standings"]
    assert [row["rank"] for row in data["rows"]] == list(range(1, 10))
    assert all(isinstance(row["Elo"], int) for row in data["rows"])
    assert main(["report", results, "-o", str(tmp_path / "swiss.html"), "--no-replays"]) == 0
    page = (tmp_path / "swiss.html").read_text()
    assert '<section id="standings">' in page and "Swiss standings" in page
    # a knockout: its bracket too
    knockout = write(tmp_path, "ko", 2, *KNOCKOUT)
    run_league(load_league(knockout), quiet=True, backend=FunctionBackend(FakePlay()),
               bots=bots(ROSTER), out=io.StringIO(), err=io.StringIO())
    results = str(load_league(knockout).results_dir)
    assert main(["leaderboard", results]) == 0
    board = capsys.readouterr().out
    assert "Knockout standings: 9 bots, tables of 2" in board and "winner" in board
    bracket = board[board.index("\nBracket\n"):].splitlines()
    assert bracket[2] == "round 1 of 4 (byes: b0, b1, b2, b3, b4, b5, b6)"
    assert {"b7", "b8"} <= set(bracket[3].split()) and " v " in bracket[3]
    assert "quarter-final" in bracket and "semi-final" in bracket and "final" in bracket
    assert bracket[-1].split("-> ")[1].split()[0] in {"b7", "b8", *ROSTER[:7]}
    assert main(["report", results, "-o", str(tmp_path / "ko.html"), "--no-replays"]) == 0
    page = (tmp_path / "ko.html").read_text()
    assert 'aria-label="knockout bracket"' in page


def test_a_dry_run_says_where_a_feed_format_league_stands(tmp_path: Path) -> None:
    import io

    path = write(tmp_path, "swiss", 3, *SWISS)
    err = io.StringIO()
    config = load_league(path)
    assert run_league(config, dry_run=True, backend=FunctionBackend(FakePlay()),
                      bots=bots(ROSTER), err=err) == 0
    assert "0 games stored, next: round 1 of 4" in err.getvalue()
    assert not (config.results_dir / DB_NAME).exists()  # nothing made
    run(path, stop_after=10)
    err = io.StringIO()
    run_league(config, dry_run=True, backend=FunctionBackend(FakePlay()), bots=bots(ROSTER),
               err=err)
    assert "10 games stored, next: round 2 of 4" in err.getvalue()


def test_seeding_by_rating_is_drawn_once_and_kept(tmp_path: Path) -> None:
    from arena.rating import rate

    rated = write(tmp_path, "rated", 2)  # a round robin of the same bots
    run(rated)
    rated_dir = load_league(rated).results_dir
    store = open_store(rated_dir)
    try:
        ratings = rate(store.results(), bootstrap=0)
    finally:
        store.close()
    by_elo = [ratings.bots[i] for i in sorted(range(len(ratings.bots)),
                                               key=lambda i: -ratings.elo[i])]
    path = write(tmp_path, "seeded", 2, "[format]", 'name = "knockout"',
                 'seeding = "rating"', f'ratings = "{rated_dir}"')
    run(path, stop_after=2)
    results = load_league(path).results_dir

    def field() -> list[str]:
        stored = open_store(results)
        try:
            snapshot = stored.config_snapshot
            assert snapshot is not None
            return list(snapshot["field"])
        finally:
            stored.close()

    assert field() == by_elo
    (rated_dir / DB_NAME).unlink()  # the ratings are gone: the league keeps its seeds
    run(path)
    assert field() == by_elo
    fresh = write(tmp_path, "fresh", 2, "[format]", 'name = "knockout"',
                  'seeding = "rating"', f'ratings = "{rated_dir}"')
    with pytest.raises(ArenaError, match=r"fresh.toml: seeding the field: no league results"):
        run(fresh)
    # a seeded shuffle: the same for the same league seed
    shuffled = write(tmp_path, "shuffled", 2, 'format = { name = "knockout", '
                     'seeding = "random" }')
    run(shuffled, stop_after=1)
    store = open_store(load_league(shuffled).results_dir)
    try:
        snapshot = store.config_snapshot
        assert snapshot is not None
        order = snapshot["field"]
    finally:
        store.close()
    assert sorted(order) == sorted(ROSTER) and order != ROSTER
