"""``arena play`` driven through a pseudo-terminal, as a person at a keyboard would."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.store import open_store
from tests.plugins.conftest import fake_distribution  # noqa: F401 - fixtures
from tests.plugins.test_plugin_game import nim_plugin  # noqa: F401 - fixtures

PROMPT = re.compile(rb"Your move \(1-(\d+); clock (\d+):(\d\d)\): ")


class Terminal:
    """``arena ARGS`` with its stdin and stdout on a pseudo-terminal."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.main, child = os.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", *args], stdin=child, stdout=child,
            stderr=subprocess.PIPE, cwd=cwd, start_new_session=True)
        os.close(child)
        self.seen = b""

    def read_until(self, pattern: re.Pattern[bytes], timeout: float = 60) -> re.Match[bytes]:
        deadline = time.monotonic() + timeout
        while True:
            found = pattern.search(self.seen)
            if found:
                self.seen = self.seen[found.end():]
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern.pattern!r} in {self.seen[-2000:]!r}")
            ready, _, _ = select.select([self.main], [], [], 0.5)
            if ready:
                try:
                    self.seen += os.read(self.main, 65536)
                except OSError:  # the child closed the terminal
                    if not pattern.search(self.seen):
                        raise AssertionError(f"ended before {pattern.pattern!r}: "
                                             f"{self.seen[-2000:]!r}") from None

    def type(self, line: str) -> None:
        os.write(self.main, line.encode() + b"\n")

    def finish(self) -> tuple[int, bytes]:
        try:
            while True:  # drain what is left so the child never blocks on a full terminal
                ready, _, _ = select.select([self.main], [], [], 0.2)
                if ready:
                    self.seen += os.read(self.main, 65536)
                elif self.process.poll() is not None:
                    break
        except OSError:
            pass
        os.close(self.main)
        code = self.process.wait(timeout=30)
        assert self.process.stderr is not None
        return code, self.process.stderr.read()


def answer_until_stored(term: Terminal, answer: Callable[[re.Match[bytes]], str]
                        ) -> tuple[int, str]:
    """Answers every prompt with ``answer(prompt)`` until the game is stored; returns how
    many answers that took and the stored game's id."""
    moves = 0
    while True:
        found = term.read_until(re.compile(PROMPT.pattern + rb"|Stored as game ([0-9a-f]{16})"))
        if found[4] is not None:
            return moves, found[4].decode()
        moves += 1
        term.type(answer(found))


def test_a_person_plays_a_whole_game_and_it_is_stored(tmp_path: Path) -> None:
    term = Terminal("play", "ra", "--bots", "random", "--name", "ada", "--seed", "5",
                    "--results", "games", cwd=tmp_path)
    first = term.read_until(PROMPT)
    assert int(first[2]) * 60 + int(first[3]) in (299, 300)  # the clock is shown
    # bad answers are explained and asked again; help and board work
    for bad in ("abc", "0", str(int(first[1]) + 1), "-1", ""):
        term.type(bad)
        term.read_until(re.compile(rb"is not a move: type a number from 1 to " + first[1]))
        term.read_until(PROMPT)
    term.type("help")
    term.read_until(re.compile(rb"Type the number of a move"))
    term.read_until(PROMPT)
    term.type("board")
    term.read_until(re.compile(rb"Ra track"))
    term.read_until(PROMPT)
    term.type("1")
    # then always the last legal move, whatever it is
    moves, game_id = answer_until_stored(term, lambda prompt: prompt[1].decode())
    code, err = term.finish()
    assert code == 0, err
    assert moves > 10
    store = open_store(tmp_path / "games")
    try:
        record = store.find_game(game_id)
    finally:
        store.close()
    assert record.seats == ("human:ada", "random")
    assert record.players[0]["kind"] == "human" and not record.failures
    assert record.seed == 5
    # the game replays in the engine and in the viewer like any other
    from arena.viewer.frames import positions
    assert len(positions(record)) == len(record.engine["actions"]) + 1


def test_quit_and_end_of_input_store_nothing(tmp_path: Path) -> None:
    term = Terminal("play", "ra_dice", "--bots", "random", "random", "--seat", "2",
                    "--results", "games", cwd=tmp_path)
    term.read_until(PROMPT)
    term.type("quit")
    term.read_until(re.compile(rb"Game abandoned \(you left the game\); nothing was stored"))
    code, _ = term.finish()
    assert code == 1
    assert not (tmp_path / "games").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["play", "chess", "--bots", "random"], "unknown game"),
    (["play", "ra", "--bots", "nosuchbot"], "unknown bot 'nosuchbot'"),
    (["play", "ra", "--bots"] + ["random"] * 5, "Ra is for 2-5 players"),
    (["play", "ra", "--bots", "random", "--seat", "2"], "--seat 2: the seats of a 2-player"),
    (["play", "ra", "--bots", "random", "--name", "a b"], "--name 'a b': use 1-32 letters"),
    (["play", "ra", "--bots", "random", "--seconds", "0"], "must be more than 0"),
    (["play", "ra_dice", "--bots", "greedy"], "does not play ra_dice"),
])
def test_bad_arguments_are_one_line_errors(args: list[str], message: str, tmp_path: Path,
                                           capsys) -> None:
    from arena.cli import main

    try:
        code = main(args)
    except SystemExit as exited:  # argparse's own checks (e.g. --seconds) exit with 2
        code = exited.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err


@pytest.mark.usefixtures("nim_plugin")
def test_a_person_plays_a_plugin_game_on_its_generic_board(tmp_path: Path) -> None:
    """Nim (tests/runner/toygame.py) supplies no board: the person is shown the seat's
    observation as JSON, and the stored game replays as a page like any other."""
    term = Terminal("play", "nim", "--bots", "one-stone", "--name", "ada", "--seed", "3",
                    "--results", "games", cwd=tmp_path)
    term.read_until(re.compile(rb'"visible_pile": \d+'))  # the board: the seat's JSON
    term.read_until(re.compile(rb"take stones 1"))  # the moves, in words
    term.type("1")
    moves, game_id = answer_until_stored(term, lambda prompt: "1")
    code, err = term.finish()
    assert code == 0, err
    assert moves >= 1
    page = tmp_path / "nim.html"
    assert main(["replay", game_id[:8], "--results", str(tmp_path / "games"), "--html",
                 "-o", str(page)]) == 0
    text = page.read_text()
    assert "window.arenaBoard" in text and '"game":"nim"' in text
