"""Sandbox "trusted": the bundled bots played in-process store the same records as their
bot processes for the same league and seeds, on every backend; a bot without an
in-process entry point is refused before anything is stored."""

from __future__ import annotations

import dataclasses
import io
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.deals import new_deal_key
from arena.league.cluster import ClusterSettings
from arena.league.config import load_league
from arena.league.run import run_league
from arena.league.store import open_store
from arena.records import GameRecord
from tests.league.test_cluster import dask_cluster  # noqa: F401  (a fixture)

BOTS = Path(__file__).resolve().parents[2] / "arena" / "bots"
# per game: its roster, and the search bot to play with a fixed iteration count (the
# same decisions whatever the machine's load; a few, to keep the test quick)
ROSTERS = {
    "ra": (["random", "first", "greedy"], "mcts"),
    "ra_dice": (["random", "dice-greedy"], "dice-mcts"),  # (dice-greedy takes its time)
}
GAMES = {"ra": 24, "ra_dice": 9}  # 2 and 3 players, every seating
ITERATIONS = {"mcts": 6, "dice-mcts": 2}


def _fixed_search_bot(folder: Path, bot: str) -> str:
    """A bot folder playing the bundled ``bot`` with ``--iterations``: the same program
    in process mode, the same entry point (given the same arguments) in trusted mode."""
    name = f"{bot}-fixed"
    manifest = (BOTS / bot / "bot.toml").read_text()
    script = BOTS / bot / "bot.py"
    manifest = manifest.replace(f'name = "{bot}"', f'name = "{name}"').replace(
        'command = ["{python}", "bot.py"]',
        f'command = ["{{python}}", "{script}", "--iterations", "{ITERATIONS[bot]}"]')
    (folder / name).mkdir(parents=True)
    (folder / name / "bot.toml").write_text(manifest)
    return name


def _league(tmp_path: Path, game: str, name: str, sandbox: str, workers: int) -> Path:
    roster, search = ROSTERS[game]
    extra = tmp_path / "bots"
    fixed = f"{search}-fixed"
    if not (extra / fixed).exists():
        _fixed_search_bot(extra, search)
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ngame = "{game}"\nplayers = [2, 3]\n'
        f'roster = {[*roster, fixed]!r}\n'.replace("'", '"')
        + f'rounds = 1\nseed = 4242\nresults_dir = "{tmp_path / name}"\n'
        f'bot_paths = ["{BOTS}", "{extra}"]\nconcurrency = 2\nworkers = {workers}\n'
        f'[time]\nper_decision = 5.0\n[limits]\nsandbox = "{sandbox}"\n'
    )
    return path


def _records(results: Path) -> dict[str, GameRecord]:
    store = open_store(results)
    try:
        return {record.game_id: record for record in store.games()}
    finally:
        store.close()


# where and when a game was played, and how long it took: not what was played
NOT_COMPARED = ("timings", "sequence", "finished_at", "worker")


def _comparable(record: GameRecord) -> dict[str, Any]:
    fields = dataclasses.asdict(record)
    for name in NOT_COMPARED:
        del fields[name]
    fields["players"] = [{k: v for k, v in p.items() if k != "kind"} for p in record.players]
    return fields


def _assert_same_records(process: dict[str, GameRecord],
                         trusted: dict[str, GameRecord]) -> None:
    assert process and sorted(process) == sorted(trusted)
    for game_id, record in process.items():
        other = trusted[game_id]
        assert not record.failures, record.failures  # a real comparison: no forfeit
        assert {p["kind"] for p in record.players} == {"process"}
        assert {p["kind"] for p in other.players} == {"python"}  # the one field that differs
        mine, theirs = _comparable(record), _comparable(other)
        for field in mine:  # field by field, for a readable failure
            assert mine[field] == theirs[field], f"{game_id}: {field} differs"


@pytest.mark.parametrize("game", ["ra", "ra_dice"])
def test_trusted_records_equal_process_records_locally_and_in_workers(
    tmp_path: Path, game: str
) -> None:
    runs = {"process": ("none", 2), "trusted-local": ("trusted", 1),
            "trusted-workers": ("trusted", 2)}
    stored = {}
    key = new_deal_key()  # one key for every run: the same games
    for name, (sandbox, workers) in runs.items():
        league = _league(tmp_path, game, name, sandbox, workers)
        assert run_league(load_league(league), quiet=True, out=io.StringIO(),
                          err=io.StringIO(), deal_key=key) == 0
        stored[name] = _records(tmp_path / name)
    assert len(stored["process"]) == GAMES[game]
    _assert_same_records(stored["process"], stored["trusted-local"])
    _assert_same_records(stored["process"], stored["trusted-workers"])
    versions = {p["name"]: p["version"] for r in stored["trusted-local"].values()
                for p in r.players}
    search = ROSTERS[game][1]
    manifest = tomllib.loads((BOTS / search / "bot.toml").read_text())
    assert versions[f"{search}-fixed"] == manifest["version"]  # the manifest's


def test_trusted_records_equal_process_records_on_dask(
    tmp_path: Path, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]  # noqa: F811
) -> None:
    address, _processes = dask_cluster
    key = new_deal_key()
    process = _league(tmp_path, "ra", "process", "none", 1)
    assert run_league(load_league(process), quiet=True, out=io.StringIO(),
                      err=io.StringIO(), deal_key=key) == 0
    remote = _league(tmp_path, "ra", "remote", "trusted", 1)
    err = io.StringIO()
    assert run_league(load_league(remote), quiet=True, out=io.StringIO(), err=err,
                      cluster=ClusterSettings(address), deal_key=key) == 0
    assert "WARNING: sandbox trusted" in err.getvalue()
    remote_records = _records(tmp_path / "remote")
    assert all(r.worker for r in remote_records.values())  # played on the cluster
    _assert_same_records(_records(tmp_path / "process"), remote_records)


def test_the_run_warns_loudly_even_when_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = tmp_path / "league.toml"
    league.write_text(f'name = "t"\ngame = "ra"\nplayers = 2\nroster = ["first", "random"]\n'
                      f'rounds = 1\nresults_dir = "{tmp_path / "out"}"\n')
    assert main(["run", str(league), "--quiet", "--sandbox", "trusted"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("t: WARNING: sandbox trusted: the bots run INSIDE the arena's own "
                          "processes, with no containment")
    assert "only for your own trusted code" in err


def test_a_bot_without_an_entry_point_is_refused_before_anything_is_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("plain", "plain-too"):  # the first bot, without its entry point
        folder = tmp_path / "bots" / name
        folder.mkdir(parents=True)
        (folder / "bot.toml").write_text(
            (BOTS / "first" / "bot.toml").read_text().replace('name = "first"', f'name = "{name}"')
            .replace('entry_point = "arena.strategies.entry_points:first"', "")
            .replace('command = ["{python}", "bot.py"]',
                     f'command = ["{{python}}", "{BOTS / "first" / "bot.py"}"]'))
    league = tmp_path / "league.toml"
    results = tmp_path / "out"
    league.write_text(f'name = "t"\ngame = "ra"\nplayers = 2\n'
                      f'roster = ["first", "plain", "plain-too"]\nrounds = 1\n'
                      f'results_dir = "{results}"\nbot_paths = ["{tmp_path / "bots"}"]\n'
                      '[limits]\nsandbox = "trusted"\n')
    assert main(["run", str(league)]) == 2
    err = capsys.readouterr().err
    assert err == ("arena: error: sandbox 'trusted' plays only bots that name an in-process "
                   "entry point (key 'entry_point' in bot.toml); without one: plain, "
                   "plain-too\n")
    assert not results.exists()  # nothing stored, not even an empty store
    assert main(["run", str(league), "--dry-run"]) == 2  # the dry run checks it too
    assert main(["run", str(league), "--sandbox", "none", "--dry-run"]) == 0


def test_an_entry_point_that_does_not_load_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "bots" / "broken"
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        (BOTS / "first" / "bot.toml").read_text().replace('name = "first"', 'name = "broken"')
        .replace("arena.strategies.entry_points:first", "arena.strategies.no_such:first"))
    league = tmp_path / "league.toml"
    league.write_text(f'name = "t"\ngame = "ra"\nplayers = 2\nroster = ["first", "broken"]\n'
                      f'rounds = 1\nresults_dir = "{tmp_path / "out"}"\n'
                      f'bot_paths = ["{tmp_path / "bots"}"]\n')
    assert main(["run", str(league), "--sandbox", "trusted"]) == 2
    err = capsys.readouterr().err
    assert "bot broken: entry point 'arena.strategies.no_such:first' cannot be loaded: " \
           "ModuleNotFoundError" in err
    assert not (tmp_path / "out").exists()
