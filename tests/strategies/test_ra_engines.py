"""greedy and mcts on either Ra engine: the same decisions on the compiled core as on the
pure-Python engine (fixed iterations), the engine chosen by ``--engine`` (a bot process
does not see ARENA_RA_ENGINE), ``/engine=`` in the gauntlet, and said where it runs."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import trio

import arena
from arena.errors import ArenaError
from arena.games.ra import GAME, RaGame, engines
from arena.records import GameRecord
from arena.runner.botspec import BotSpec
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game
from arena.settings import Limits
from arena.strategies.entry_points import describe_ra_engines, ra_engine_of
from arena.strategies.gauntlet import make_player
from arena.strategies.greedy import GreedyStrategy
from arena.strategies.mcts import STEPS, MctsStrategy, bundled_settings
from arena.strategies.players import greedy_player, mcts_player

BOTS = Path(arena.__file__).parent / "bots"  # the installed package's (CI: the wheel's)


def bundled(name: str, *args: str) -> BotSpec:
    manifest = tomllib.loads((BOTS / name / "bot.toml").read_text())
    return BotSpec(name=name, version=manifest["version"],
                   command=(*manifest["command"], *args), folder=BOTS / name,
                   games={"ra": (2, 3, 4, 5)}, source=f"folder {BOTS / name}",
                   entry_point=manifest["entry_point"])


def test_greedy_and_mcts_decide_alike_on_both_engines(compiled_ra: type) -> None:
    pure = RaGame("python")
    for players in (2, 3, 4, 5):
        state = pure.new_game(players, players)
        policy = random.Random(players)
        step = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) > 1 and step % 9 == 0:
                observation = state.observation(state.current_player())
                shown = [state.action_to_json(a) for a in legal]
                assert (GreedyStrategy(engine="compiled").choose(observation, shown)
                        == GreedyStrategy(engine="python").choose(observation, shown))
                for version in ("1.3", "1.5"):  # a step plays alike on either engine
                    searches = [MctsStrategy(iterations=40, seed=step, engine=engine,
                                             settings=STEPS[version])
                                for engine in ("compiled", "python")]
                    assert len({search.choose(observation, shown)
                                for search in searches}) == 1
            state.apply_action(policy.choice(legal))
            step += 1


def test_the_bundled_search_depends_on_the_engine(compiled_ra: type) -> None:
    """1.5's playouts to the game's end on the core; 1.3's on the pure engine, where
    they would be 25 times fewer (arena/bots/README.md)."""
    assert MctsStrategy(engine="compiled").settings == STEPS["1.5"] == bundled_settings(
        engines.COMPILED)
    assert MctsStrategy(engine="python").settings == STEPS["1.3"] == bundled_settings(
        engines.PYTHON)
    assert STEPS["1.5"].to_game_end and not STEPS["1.3"].to_game_end
    pinned = MctsStrategy(engine="python", settings=STEPS["1.5"])
    assert pinned.settings == STEPS["1.5"]
    assert mcts_player(engine="python").name == "mcts"


def test_an_mcts_process_on_the_pure_engine_plays_as_mcts_on_the_core(compiled_ra: type
                                                                        ) -> None:
    """A process given a step (--step) plays its decisions on either engine."""
    limits = dataclasses.replace(Limits(), move_seconds=5.0)
    for version in ("1.3", "1.5"):
        spec = bundled("mcts", "--iterations", "20", "--engine", "python", "--step", version)
        assert ra_engine_of(spec, in_process=False) == engines.PYTHON

        async def as_process(spec: BotSpec = spec) -> GameRecord:
            async with open_bot_pool(limits) as pool, pool.seated([spec]) as (player,):
                return await play_game(GAME, [player, greedy_player(), greedy_player()], 21,
                                       limits=limits)

        async def in_process(version: str = version) -> GameRecord:
            return await play_game(GAME, [mcts_player(iterations=20, engine="compiled",
                                                      settings=STEPS[version]),
                                          greedy_player(engine="compiled"),
                                          greedy_player(engine="python")], 21, limits=limits)

        process_record, local_record = trio.run(as_process), trio.run(in_process)
        assert process_record.forfeits == {}
        assert process_record.engine["actions"] == local_record.engine["actions"]


def test_an_unknown_step_is_refused_in_one_line() -> None:
    refused = subprocess.run([sys.executable, "bot.py", "--step", "0.9"], cwd=BOTS / "mcts",
                             input="", capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "invalid choice: '0.9'" in refused.stderr


@pytest.mark.parametrize("bot", ["greedy", "mcts"])
def test_a_bot_process_says_its_engine_in_its_log(bot: str) -> None:
    hello = json.dumps({"type": "hello", "protocol": "ra-arena/1", "arena": "test",
                        "limits": {}})
    for args, engine in ((["--engine", "python"], "the pure-Python Ra engine"),
                         ([], engines.describe(engines.AUTO))):
        done = subprocess.run([sys.executable, "bot.py", *args], cwd=BOTS / bot,
                              input=hello + "\n" + '{"type": "quit"}\n', capture_output=True,
                              text=True, timeout=60, check=True)
        assert f"{bot} " in done.stderr and f" on {engine}" in done.stderr
        if bot == "mcts":  # and the search it plays there
            step = "1.3" if "pure" in engine else "1.5"
            assert f", searching as mcts {step}" in done.stderr
    refused = subprocess.run([sys.executable, "bot.py", "--engine", "fast"], cwd=BOTS / bot,
                             input="", capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "invalid choice: 'fast'" in refused.stderr


def test_which_engine_a_bot_runs_on(compiled_ra: type, monkeypatch: pytest.MonkeyPatch
                                    ) -> None:
    mcts, pure_mcts, greedy = bundled("mcts"), bundled("mcts", "--engine=python"), \
        bundled("greedy")
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "python")
    # a process does not see the variable; in-process (sandbox "trusted"), it counts
    assert ra_engine_of(mcts, in_process=False) == engines.COMPILED
    assert ra_engine_of(mcts, in_process=True) == engines.PYTHON
    assert ra_engine_of(pure_mcts, in_process=False) == engines.PYTHON
    assert ra_engine_of(bundled("random"), in_process=False) is None
    line = describe_ra_engines([mcts, pure_mcts, greedy, bundled("first")], in_process=False)
    assert line == ("greedy, mcts on the compiled Ra core; mcts on the pure-Python Ra "
                    "engine (ARENA_RA_ENGINE does not reach bot processes: give a bot "
                    "--engine in its command)")
    monkeypatch.delenv(engines.ENGINE_VARIABLE)
    assert describe_ra_engines([greedy], in_process=True) == "greedy on the compiled Ra core"
    assert describe_ra_engines([bundled("random")], in_process=True) is None


def test_the_gauntlet_takes_the_engine_of_greedy_and_mcts(compiled_ra: type) -> None:
    assert make_player("mcts/engine=python/iterations=5").name == \
        "mcts/engine=python/iterations=5"
    make_player("greedy/engine=compiled")
    with pytest.raises(ArenaError, match="only greedy and mcts take /engine="):
        make_player("random/engine=python")
    with pytest.raises(ArenaError, match="'fast' is not a Ra engine"):
        make_player("mcts/engine=fast")
