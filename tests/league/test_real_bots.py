"""Leagues of real bot processes through the runner (bundled bots + misbehaving ones)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from arena.cli import main
from arena.league.config import load_league
from arena.league.store import open_store

BAD_BOTS = Path(__file__).with_name("bots")
EXPECTED = {"crasher": "crash", "illegal": "illegal", "slowpoke": "timeout"}


def test_misbehaving_bots_forfeit_with_the_right_reason(tmp_path: Path, capsys) -> None:
    league = tmp_path / "league.toml"
    league.write_text(
        'name = "zoo"\ngame = "ra"\nplayers = 2\n'
        'roster = ["first", "crasher", "illegal", "slowpoke"]\n'
        f'bot_paths = ["{BAD_BOTS}"]\nresults_dir = "out"\nconcurrency = 2\n'
        "[time]\nper_decision = 0.3\n"
    )
    assert main(["run", str(league), "--quiet"]) == 0
    board = capsys.readouterr().out
    assert "first" in board and "timeout" in board  # the leaderboard, with failures
    store = open_store(load_league(league).results_dir)
    results = store.results()
    assert len(results) == 12  # C(4,2) tables x 2 seatings
    for result in results:
        want = {seat: EXPECTED[bot] for seat, bot in enumerate(result.bots) if bot in EXPECTED}
        assert dict(result.failures) == want, result
        stayed = [seat for seat in range(2) if seat not in want]
        for seat in want:  # forfeits are placed last (2nd of 2), after any seat that stayed
            assert result.placements[seat] == 2
            assert all(result.placements[other] == 1 for other in stayed)
    game = store.find_game(results[0].game_id)
    assert game.engine["actions"]  # the full record, replayable
    assert main(["replay", results[0].game_id[:8], "--results", str(league)]) == 0
    told = capsys.readouterr().out
    assert "Epoch 1" in told and "forfeit" in told


def _slow_league(tmp_path: Path) -> subprocess.Popen[bytes]:
    league = tmp_path / "league.toml"
    league.write_text(
        'name = "slow"\ngame = "ra"\nplayers = 3\nroster = ["random", "first", "slowpoke"]\n'
        f'bot_paths = ["{BAD_BOTS}"]\nrounds = 20\nresults_dir = "out"\nconcurrency = 2\n'
        "[time]\nper_decision = 20\n"  # slowpoke's 10 s pause holds games in flight
    )
    return subprocess.Popen([sys.executable, "-m", "arena", "run", str(league)],
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                            start_new_session=True)


def test_kill_9_leaves_no_bot_process(tmp_path: Path) -> None:
    process = _slow_league(tmp_path)
    try:
        deadline = time.monotonic() + 20
        while len(_bot_processes(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        descendants = _descendants(process.pid)
        assert len(_bot_processes(process.pid)) >= 3, "bot processes should be running"
    finally:
        process.kill()
        process.communicate()
    deadline = time.monotonic() + 10  # workers notice, stop their bots and exit
    while any(_alive(pid) for pid in descendants) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in descendants if _alive(pid)] == []


def test_ctrl_c_leaves_no_bot_process(tmp_path: Path) -> None:
    process = _slow_league(tmp_path)
    try:
        deadline = time.monotonic() + 20
        # the arena -> (worker processes ->) bot processes: wait for all three bots
        while len(_bot_processes(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        descendants = _descendants(process.pid)
        assert len(_bot_processes(process.pid)) >= 3, "bot processes should be running"
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err.decode()
    assert b"interrupted after" in err and b"Traceback" not in err
    assert [pid for pid in descendants if _alive(pid)] == []


def _descendants(root: int) -> list[int]:
    parents = {pid: _parent(pid) for pid in _all_pids()}
    found, frontier = [], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _bot_processes(root: int) -> list[int]:
    bots = []
    for pid in _descendants(root):
        try:
            if b"bot.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                bots.append(pid)
        except OSError:
            continue
    return bots


def _all_pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_dead_worker_stops_the_league_with_a_message(tmp_path: Path) -> None:
    process = _slow_league(tmp_path)
    try:
        deadline = time.monotonic() + 20
        while len(_bot_processes(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = [pid for pid in _descendants(process.pid) if _parent(pid) == process.pid]
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        _out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 2
    assert b"ended unexpectedly (killed by signal 9)" in err and b"Traceback" not in err


def test_play_one_game_is_a_plain_deterministic_function() -> None:
    from arena.league.play import GameSettings, play_one_game_sync
    from arena.plugins import discover

    registry = discover()
    seating = [registry.bot("random"), registry.bot("first"), registry.bot("random")]
    settings = GameSettings("ra")
    first = play_one_game_sync(settings, seating, 77)
    again = play_one_game_sync(settings, seating, 77)
    other = play_one_game_sync(settings, seating, 78)
    assert first.engine["actions"] == again.engine["actions"]
    assert first.scores == again.scores and first.failures == ()
    assert first.engine["actions"] != other.engine["actions"]


def test_same_league_file_same_results(tmp_path: Path) -> None:
    outcomes = []
    for folder, concurrency in (("one", 1), ("two", 3)):
        league = tmp_path / f"{folder}.toml"
        league.write_text(
            'name = "same"\ngame = "ra"\nplayers = 3\nroster = ["random", "first", "random-js"]\n'
            f'rounds = 2\nresults_dir = "{folder}"\nconcurrency = {concurrency}\n'
        )
        # one deal key for both: the same file and key give the same games
        assert main(["run", str(league), "--quiet", "--deal-key", str(tmp_path / "key")]) == 0
        store = open_store(load_league(league).results_dir)
        outcomes.append({r.game_id: (r.scores, r.placements) for r in store.results()})
        store.close()
    assert len(outcomes[0]) == 6 and outcomes[0] == outcomes[1]


def test_unsupported_and_bad_settings_stop_before_any_game(tmp_path: Path, capsys) -> None:
    base = 'name = "x"\ngame = "ra"\nroster = ["random", "first", "random-js"]\n'
    cases = {
        "players = 3\n[options]\nbogus = 1\n": "key 'options':",
        "players = 6\n": "key 'players': Ra is for 2-5 players, not 6",
        'players = 3\nbot_paths = ["nowhere"]\n': "key 'bot_paths':",
    }
    for index, (text, message) in enumerate(cases.items()):
        league = tmp_path / f"l{index}.toml"
        league.write_text(base + text)
        assert main(["run", str(league), "-q"]) == 2
        assert message in capsys.readouterr().err
