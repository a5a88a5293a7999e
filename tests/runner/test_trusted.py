"""In-process players for sandbox "trusted": made by a bot's entry point with its program
arguments, handed out by the pool, the same record as the bot's process."""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.errors import ArenaError
from arena.games.ra import RaGame
from arena.records import GameRecord
from arena.runner.botspec import BotSpec
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game
from arena.runner.sandbox import choose_level
from arena.runner.trusted import program_args
from arena.settings import SANDBOX_LEVELS, TRUSTED, Limits

from .helpers import BOTS

# One module for both modes: bot.py serves it over the protocol, make() is its entry
# point.  The argument is a prefix for its comments; "crash-at N" raises at decision N.
MODULE = '''
from arena.runner.players import PythonPlayer

made = []  # how many times the entry point was called (in this process)


def strategy(args):
    state = {"decisions": 0}

    def choose(observation, legal):
        state["decisions"] += 1
        if args[:1] == ["crash-at"] and state["decisions"] == int(args[1]):
            raise RuntimeError("bad luck")
        return len(legal) - 1, f"{args[0]}{len(legal)}"

    def new_game(message):
        state["decisions"] = 0

    return choose, new_game


def make(args):
    made.append(list(args))
    if args[:1] == ["refuse"]:
        raise ValueError("no such option")
    choose, new_game = strategy(args)
    return PythonPlayer("ignored", choose, version="ignored", on_new_game=new_game,
                        observation=False)
'''
BOT = '''
import sys
from arena.sdk import run
from {module} import strategy

choose, new_game = strategy(sys.argv[1:])
run(choose, name="talker", version="2.0", on_new_game=new_game, observation=False)
'''


@pytest.fixture
def talker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest):
    """A bot spec factory: the talker bot with the given program arguments."""
    module = f"talker_{request.node.name.replace('[', '_').replace(']', '_').replace('-', '_')}"
    folder = tmp_path / "talker"
    folder.mkdir()
    (folder / f"{module}.py").write_text(textwrap.dedent(MODULE))
    (folder / "bot.py").write_text(BOT.format(module=module))
    monkeypatch.syspath_prepend(str(folder))  # importable here (its process runs in it)

    def spec(*args: str) -> BotSpec:
        return BotSpec(name="talker", version="2.0", command=("{python}", "bot.py", *args),
                       folder=folder, games={"ra": (2, 3)}, source="test",
                       entry_point=f"{module}:make")

    yield spec
    sys.modules.pop(module, None)


FIRST = BotSpec(name="first", version="1.0.0", command=("{python}", "bot.py"),
                folder=BOTS / "first", games={"ra": (2,)}, source="test",
                entry_point="arena.strategies.entry_points:first")


def _play(specs: list[BotSpec], sandbox: str, seeds: list[int]) -> list[GameRecord]:
    limits = Limits(sandbox=sandbox, move_seconds=5.0)

    async def main() -> list[GameRecord]:
        records = []
        async with open_bot_pool(limits) as pool:
            for seed in seeds:
                async with pool.players(specs) as players:
                    records.append(await play_game(RaGame(), players, seed, limits=limits))
        return records

    return trio.run(main)


def _without_timings(record: GameRecord) -> dict[str, Any]:
    fields = dataclasses.asdict(record)
    del fields["timings"]
    fields["players"] = [{k: v for k, v in p.items() if k != "kind"} for p in record.players]
    return fields


def test_the_entry_point_gets_the_program_arguments_and_comments_are_recorded(
    talker: Any
) -> None:
    specs = [talker("say-"), FIRST]
    process = _play(specs, "none", [3, 4])
    trusted = _play(specs, TRUSTED, [3, 4])
    for mine, theirs in zip(process, trusted, strict=True):
        assert not mine.failures and mine.comments
        assert mine.comments[0]["comment"].startswith("say-")
        assert _without_timings(mine) == _without_timings(theirs)
        assert [p["kind"] for p in theirs.players] == ["python", "python"]
        assert theirs.players[0]["version"] == "2.0"  # the manifest's, as a process's


def test_a_crash_forfeits_and_the_next_game_gets_a_fresh_bot(talker: Any) -> None:
    specs = [talker("crash-at", "3"), FIRST]
    process = _play(specs, "none", [5, 6])
    trusted = _play(specs, TRUSTED, [5, 6])
    for mine, theirs in zip(process, trusted, strict=True):
        assert mine.forfeits == theirs.forfeits == {0: "crash"}
        assert theirs.failures[0]["detail"] == "raised RuntimeError: bad luck"
        assert theirs.failures[0]["decision"] == mine.failures[0]["decision"]
        assert theirs.engine == mine.engine  # the fallback plays the seat out alike
    made = sys.modules[specs[0].entry_point.partition(":")[0]].made  # type: ignore[union-attr]
    # made afresh after each crash, like a restarted process (the last one for a third game)
    assert made == [["crash-at", "3"]] * 3


def test_an_entry_point_that_raises_is_a_crash_at_the_start(talker: Any) -> None:
    (record,) = _play([talker("refuse"), FIRST], TRUSTED, [1])
    assert record.forfeits == {0: "crash"}
    assert record.failures[0]["phase"] == "start"
    assert "ValueError: no such option" in record.failures[0]["detail"]


def test_the_pool_keeps_players_warm_one_game_at_a_time() -> None:
    limits = Limits(sandbox=TRUSTED)

    async def main() -> None:
        async with open_bot_pool(limits) as pool:
            async with pool.players([FIRST, FIRST]) as first_game:
                assert first_game[0] is not first_game[1]  # two seats, two players
                async with pool.players([FIRST]) as meanwhile:
                    assert meanwhile[0] not in first_game  # both are in a game
            async with pool.players([FIRST, FIRST]) as second_game:
                assert set(map(id, second_game)) == set(map(id, first_game))  # warm

    trio.run(main)


@pytest.mark.parametrize(("command", "args"), [
    (("{python}", "bot.py", "--iterations", "5"), ["--iterations", "5"]),
    (("{python}", "-m", "my.bot", "-x"), ["-x"]),
    (("./bot", "a"), ["a"]),
    (("{python}", "bot.py"), []),
    ((), []),
])
def test_program_args_are_what_the_program_finds_in_argv(command: tuple[str, ...],
                                                          args: list[str]) -> None:
    assert program_args(command) == args


def test_trusted_is_a_level_but_starts_no_process() -> None:
    assert TRUSTED in SANDBOX_LEVELS
    with pytest.raises(ArenaError, match="starts no bot process"):
        choose_level(TRUSTED)
