"""The TCP transport (``connect = "tcp://HOST:PORT"``), on loopback: a bot server plays
games and a league and passes ``arena validate``, and a bot that misbehaves over TCP gets
the same failure reason as the same bot as a local process."""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.cli import main
from arena.league.config import load_league
from arena.league.run import run_league
from arena.league.store import open_store
from arena.runner.botspec import BotSpec
from arena.runner.players import random_player
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game

from .helpers import BOTS, FAST, ZOO, the_failure, zoo_spec
from .toygame import NIM

TcpBot = Callable[[Path], str]


@pytest.fixture(scope="module")
def tcp_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TcpBot]:
    """Serve a bot script over TCP on loopback; returns its tcp:// address."""
    servers: dict[Path, tuple[subprocess.Popen[bytes], str]] = {}
    folder = tmp_path_factory.mktemp("tcp")

    def serve(script: Path) -> str:
        if script not in servers:
            port_file = folder / f"{script.stem}-{len(servers)}.port"
            process = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("tcp_bot_server.py")),
                 str(script), str(port_file)], start_new_session=True)
            deadline = time.monotonic() + 20
            while not port_file.exists():
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.02)
            servers[script] = (process, f"tcp://127.0.0.1:{port_file.read_text()}")
        return servers[script][1]

    try:
        yield serve
    finally:
        for process, _ in servers.values():
            os.killpg(process.pid, 9)
            process.wait()


def _tcp_spec(name: str, address: str) -> BotSpec:
    return BotSpec(name=name, version="1", command=(), folder=None,
                   games={"nim": (2, 3, 4)}, source="test", connect=address)


def _play(spec: BotSpec, seed: int = 0) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with open_bot_pool(FAST) as pool, pool.seated([spec]) as (bot,):
            record = await play_game(NIM, [bot, random_player()], seed=seed, limits=FAST)
        return record.playthrough_json()

    return trio.run(main)


def test_a_bot_server_plays_whole_games_over_tcp(tcp_bot: TcpBot) -> None:
    spec = _tcp_spec("first", tcp_bot(BOTS / "first" / "bot.py"))
    for seed in range(3):
        record = _play(spec, seed)
        assert record["failures"] == [] and record["incidents"] == []
        assert record["players"][0]["kind"] == "tcp"
        assert NIM.replay(record["engine"]).is_terminal()


# zoo bots whose failure shows in the conversation itself (a process's stderr and exit
# code do not cross a socket; close_stdout is left out because the server's bot has the
# socket as both stdin and stdout, so closing one of them does not close the connection)
SAME_REASON = ["never_answers", "garbage", "huge_line", "illegal", "wrong_id",
               "wrong_protocol", "bad_wants", "crash_at_start", "crash_midgame"]


@pytest.mark.parametrize("script", SAME_REASON)
def test_a_bad_bot_over_tcp_fails_for_the_same_reason_as_a_process(
    tcp_bot: TcpBot, script: str
) -> None:
    local = the_failure(_play(zoo_spec(script)))
    remote = the_failure(_play(_tcp_spec(script, tcp_bot(ZOO / f"{script}.py"))))
    assert (remote["reason"], remote["phase"]) == (local["reason"], local["phase"])
    assert remote["decision"] == local["decision"]


def test_a_server_that_is_not_there_is_a_crash_at_start(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    failure = the_failure(_play(_tcp_spec("gone", f"tcp://127.0.0.1:{port}")))
    assert (failure["reason"], failure["phase"]) == ("crash", "start")
    assert "cannot connect to tcp://127.0.0.1:" in failure["detail"]


def _folder(tmp_path: Path, name: str, address: str) -> Path:
    folder = tmp_path / "bots" / name
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1.0.0"\nconnect = "{address}"\n'
        "[games]\nra = [2, 3, 4, 5]\nra_dice = [2, 3, 4]\n")
    return folder


def test_a_tcp_bot_passes_validate_and_plays_a_league(tcp_bot: TcpBot, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    folder = _folder(tmp_path, "far-first", tcp_bot(BOTS / "first" / "bot.py"))
    assert main(["validate", str(folder), "--games", "2"]) == 0, capsys.readouterr().out
    league = tmp_path / "league.toml"
    league.write_text('name = "tcp"\ngame = "ra"\nplayers = [2, 3]\n'
                      'roster = ["far-first", "first", "random"]\nresults_dir = "out"\n'
                      f'bot_paths = ["{tmp_path / "bots"}"]\nconcurrency = 2\n')
    assert run_league(load_league(league), quiet=True, out=io.StringIO()) == 0
    store = open_store(tmp_path / "out")
    games = [r for r in store.games() if "far-first" in r.seats]
    assert len(games) == 2 * 2 + 3  # two 2-player tables and one 3-player table, rotated
    for record in games:
        assert record.failures == ()
        seat = record.seats.index("far-first")
        assert record.players[seat]["kind"] == "tcp"


@pytest.mark.parametrize(("connect", "message"), [
    ("tcp://127.0.0.1", "needs a host and a port"),
    ("127.0.0.1:9000", "is not an address like tcp://127.0.0.1:9000"),
    ("tcp://127.0.0.1:99999", "needs a host and a port"),
])
def test_a_bad_connect_address_is_a_manifest_problem(tmp_path: Path, connect: str,
                                                     message: str,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    folder = _folder(tmp_path, "far", connect)
    assert main(["validate", str(folder)]) != 0
    out = capsys.readouterr()
    assert "key 'connect'" in out.out + out.err and message in out.out + out.err


def test_a_scheme_no_transport_serves_fails_at_start_saying_so(tmp_path: Path) -> None:
    failure = the_failure(_play(_tcp_spec("ws", "ws://127.0.0.1:9000")))
    assert (failure["reason"], failure["phase"]) == ("crash", "start")
    assert "no installed transport serves ws:// addresses" in failure["detail"]


def test_command_and_connect_together_are_refused(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path, "both", "tcp://127.0.0.1:9000")
    text = (folder / "bot.toml").read_text().replace(
        "connect =", 'command = ["{python}", "bot.py"]\nconnect =')
    (folder / "bot.toml").write_text(text)
    assert main(["validate", str(folder)]) != 0
    out = capsys.readouterr()
    assert "give command or connect, not both" in out.out + out.err


def test_bot_spec_replace_keeps_connect() -> None:
    spec = _tcp_spec("x", "tcp://127.0.0.1:1")
    assert dataclasses.replace(spec, name="y").connect == "tcp://127.0.0.1:1"
