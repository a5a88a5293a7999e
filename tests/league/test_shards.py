"""``arena run --shard I/N`` and ``arena merge``: slices of one league played apart and
joined give the league played whole."""

from __future__ import annotations

import dataclasses
import io
import sqlite3
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.league.backends import FunctionBackend
from arena.league.config import load_league
from arena.league.merge import merge_stores
from arena.league.plan import Shard, league_schedule
from arena.league.run import leaderboard_text, run_league
from arena.league.store import DB_NAME, open_store
from tests.league.fakes import FakePlay, bots

NAMES = ["a", "b", "c", "d", "e"]


def play(path: Path, shard: Shard | None = None) -> Path:
    config = load_league(path)
    if shard is not None:
        config = dataclasses.replace(config, results_dir=shard.folder(config.results_dir))
    code = run_league(config, backend=FunctionBackend(FakePlay()), bots=bots(NAMES),
                      out=io.StringIO(), err=io.StringIO(), shard=shard)
    assert code == 0
    return config.results_dir


def test_shards_split_the_league_and_merge_into_the_whole(league_file, tmp_path: Path) -> None:
    path = league_file(f"roster = {NAMES}", "rounds = 2", players="[2, 3]")
    config = load_league(path)
    schedule, _ = league_schedule(config, bots(NAMES))
    folders = [play(path, Shard(i, 3)) for i in (1, 2, 3)]
    assert [f.name for f in folders] == [f"out.shard-{i}-of-3" for i in (1, 2, 3)]

    # every game is in exactly one shard, and a table's rotations stay together
    ids = [open_store(f).played_ids() for f in folders]
    assert sum(len(s) for s in ids) == len(schedule) == len(set().union(*ids))
    assert all(ids), "each of three shards got some tables"
    for shard_ids in ids:
        tables = {(g.table, g.round) for g in schedule if g.game_id in shard_ids}
        assert shard_ids == {g.game_id for g in schedule if (g.table, g.round) in tables}

    whole = play(path)
    merged = tmp_path / "merged"
    summary = merge_stores([open_store(f) for f in folders], merged)
    assert summary.added == len(schedule) and summary.already_there == 0
    assert not summary.conflicting
    # the same games and the same leaderboard as the league played in one run
    one, joined = open_store(whole), open_store(merged)
    assert sorted(one.played_ids()) == sorted(joined.played_ids())
    by_id = {r.game_id: r for r in one.games()}
    for record in joined.games():
        expected = by_id[record.game_id]
        assert (record.seats, record.scores, record.placements, record.engine) == (
            expected.seats, expected.scores, expected.placements, expected.engine)
    assert leaderboard_text(joined.results(), config) == leaderboard_text(one.results(), config)

    # merging again adds nothing; the finishing times were kept
    again = merge_stores([open_store(f) for f in folders], merged)
    assert again.added == 0 and again.already_there == len(schedule)
    shard_times = {r.game_id: r.finished_at for f in folders for r in open_store(f).games()}
    assert {r.game_id: r.finished_at for r in open_store(merged).games()} == shard_times


def test_stores_of_different_leagues_are_not_merged(league_file, tmp_path: Path) -> None:
    path = league_file(f"roster = {NAMES}", players="[3]")
    first = play(path)
    other = league_file(f"roster = {NAMES}", "seed = 9", players="[3]", name="other")
    other.rename(tmp_path / "other.toml")
    (tmp_path / "other.toml").write_text(
        (tmp_path / "other.toml").read_text().replace('"out"', '"out-other"'))
    second = play(tmp_path / "other.toml")
    with pytest.raises(ArenaError, match=r"not the same league .*seed: 1 in .*, 9 in"):
        merge_stores([open_store(first), open_store(second)], tmp_path / "merged")
    assert not (tmp_path / "merged" / DB_NAME).exists() or \
        sqlite3.connect(tmp_path / "merged" / DB_NAME).execute(
            "SELECT COUNT(*) FROM games").fetchone()[0] == 0


def test_a_bot_that_changed_between_shards_is_refused(league_file, tmp_path: Path) -> None:
    path = league_file(f"roster = {NAMES}", players="[3]")
    one, two = play(path, Shard(1, 2)), play(path, Shard(2, 2))
    connection = sqlite3.connect(two / DB_NAME)
    with connection:
        connection.execute("UPDATE bots SET version = '2.0.0' WHERE name = 'c'")
    connection.close()
    changed = r"bot 'c' differs between .*\(version 1.0.0\) and .*\(version 2.0.0\)"
    with pytest.raises(ArenaError, match=changed):
        merge_stores([open_store(one), open_store(two)], tmp_path / "merged")


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0", "-1/2", "1/2/3"])
def test_a_bad_shard_is_a_one_line_error(league_file, text: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = league_file(f"roster = {NAMES}", players="[3]")
    assert main(["run", str(path), f"--shard={text}"]) == 2
    err = capsys.readouterr().err
    assert "--shard wants I/N" in err and err.count("\n") == 1


def test_merge_from_the_command_line(league_file, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = league_file(f"roster = {NAMES}", players="[3]")
    shards = [play(path, Shard(i, 2)) for i in (1, 2)]
    out = tmp_path / "all"
    assert main(["merge", *map(str, shards), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "merged 2 store(s)" in err and "30 in all" in err and "arena leaderboard" in err
    assert main(["merge", str(shards[0]), "-o", str(shards[0])]) == 2
    assert "is the output itself" in capsys.readouterr().err


REAL = ['roster = ["random", "first", "greedy"]', "rounds = 2", "[limits]", 'sandbox = "none"']


def test_a_shard_without_a_deal_key_is_refused_in_one_line(
        league_file, capsys: pytest.CaptureFixture[str]) -> None:
    path = league_file(*REAL, players="[2]")
    assert main(["run", str(path), "--shard", "1/2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--deal-key FILE" in err and err.count("\n") == 1
    assert not (path.parent / "out.shard-1-of-2").exists()  # refused before anything


def test_shards_sharing_a_deal_key_merge_into_the_league_dealt_from_it(
        league_file, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the real bots deal from a secret key: shards that share it (--deal-key) give the
    # league played whole from that key, game for game
    path = league_file(*REAL, players="[2, 3]")
    key = tmp_path / "spring.key"
    for shard in ("1/2", "2/2"):
        assert main(["run", str(path), "--shard", shard, "--quiet",
                     "--deal-key", str(key)]) == 0
    assert oct(key.stat().st_mode & 0o777) == "0o600"  # made on first use, private
    whole = dataclasses.replace(load_league(path), results_dir=tmp_path / "whole")
    assert run_league(whole, quiet=True, out=io.StringIO(), err=io.StringIO(),
                      deal_key=key.read_text().strip()) == 0
    merged = tmp_path / "merged"
    assert main(["merge", str(tmp_path / "out.shard-1-of-2"),
                 str(tmp_path / "out.shard-2-of-2"), "-o", str(merged)]) == 0
    one, joined = open_store(whole.results_dir), open_store(merged)
    assert one.count() == joined.count() == 2 * (3 * 2 + 3)
    by_id = {r.game_id: r for r in one.games()}
    for record in joined.games():
        assert record.engine == by_id[record.game_id].engine
    assert joined.stored_deal_key() == key.read_text().strip()  # resumes from it

    # stores dealt from different keys are not one league's: refused
    other = dataclasses.replace(load_league(path), results_dir=tmp_path / "other")
    assert run_league(other, quiet=True, out=io.StringIO(), err=io.StringIO()) == 0
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "other"), str(tmp_path / "out.shard-1-of-2"),
                 "-o", str(tmp_path / "mixed")]) == 2
    assert "different deal keys" in capsys.readouterr().err
    # and a shard store given another key refuses to go on
    assert main(["run", str(path), "--shard", "1/2", "--quiet",
                 "--deal-key", str(tmp_path / "another.key")]) == 2
    assert "another deal key" in capsys.readouterr().err


def test_a_bad_deal_key_file_is_a_one_line_error(
        league_file, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = league_file(*REAL, players="[2]")
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n")
    assert main(["run", str(path), "--deal-key", str(bad), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "is not a deal key file" in err and err.count("\n") == 1
