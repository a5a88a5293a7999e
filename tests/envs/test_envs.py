"""The PettingZoo environments: PettingZoo's own API test, and whole games checked
against the engine; a game only a plugin knows (nim, tests/runner/toygame.py) gets one by
the same door, with the generic encoding and board.  PettingZoo is in the test extra;
without it these tests skip, except under CI=true, where they fail (CI installs it)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

try:
    from pettingzoo.test import api_test
except ImportError:  # pragma: no cover - depends on the install
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("pettingzoo is not installed (pip install 'ra-arena[rl]')",
                allow_module_level=True)

from arena.envs import env, ra_dice_env, ra_env, raw_env
from arena.errors import ArenaError
from arena.plugins import load_game
from tests.plugins.conftest import fake_distribution  # noqa: F401 - fixtures
from tests.plugins.test_plugin_game import nim_plugin  # noqa: F401 - fixtures
from tests.runner.toygame import NIM


# api_test suggests a plain Box observation; the dict with "action_mask" is PettingZoo's
# own convention for board games (its classic environments get the same two notes)
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(("make", "players"), [(ra_env, 2), (ra_env, 5), (ra_dice_env, 3)])
def test_pettingzoos_own_api_test(make, players: int) -> None:
    api_test(make(players), num_cycles=200)


@pytest.mark.parametrize(("game", "players"), [("ra", 3), ("ra_dice", 4)])
def test_a_random_game_through_the_env_is_the_engines_game(game: str, players: int) -> None:
    env = raw_env(game, players)
    env.reset(seed=3)
    engine = load_game(game)
    mirror = engine.new_game(players, env.state.record()["seed"], None)
    rng = np.random.default_rng(0)
    size = None
    steps = 0
    while not mirror.is_terminal():
        agent = env.agent_selection
        assert agent == f"player_{mirror.current_player()}"
        observation = env.observe(agent)
        assert env.observation_space(agent).contains(observation)
        size = size or observation["observation"].shape
        assert observation["observation"].shape == size
        legal = mirror.legal_actions()
        assert sorted(np.flatnonzero(observation["action_mask"]).tolist()) == sorted(legal)
        action = int(rng.choice(legal))
        env.step(action)
        mirror.apply_action(action)
        steps += 1
    assert steps > 20
    assert all(env.terminations.values())
    assert [env.rewards[f"player_{s}"] for s in range(players)] == mirror.returns()
    # other seats' views carry no action: only the seat to move has a mask
    assert env.observe("player_0")["action_mask"].sum() == 0


def test_reset_with_a_seed_repeats_the_game() -> None:
    env = raw_env("ra", 3)
    env.reset(seed=11)
    first = env.state.to_json()
    env.reset(seed=12)
    assert env.state.to_json() != first
    env.reset(seed=11)
    assert env.state.to_json() == first


def test_an_illegal_action_is_refused_or_penalised(caplog) -> None:
    env = raw_env("ra", 2)
    env.reset(seed=1)
    illegal = next(a for a in range(env.action_space(env.agent_selection).n)
                   if a not in env.state.legal_actions())
    with pytest.raises(ValueError, match="is not legal now"):
        env.step(illegal)
    wrapped = ra_env(2)
    wrapped.reset(seed=1)
    wrapped.step(illegal)
    assert "Illegal move made" in caplog.text
    assert all(wrapped.terminations.values())
    assert -1 in wrapped.rewards.values()


def test_bad_construction_says_why() -> None:
    from arena.errors import ArenaError
    from arena.games.base import GameOptionError

    with pytest.raises((ArenaError, GameOptionError)):
        raw_env("ra", 9)
    with pytest.raises(ArenaError):
        raw_env("chess", 2)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env("ra", 2, render_mode="pixels")


def test_render_and_the_random_agents_example() -> None:
    env = raw_env("ra_dice", 2, render_mode="ansi")
    env.reset(seed=2)
    assert "Dice" in env.render()
    done = subprocess.run([sys.executable, "-m", "arena.envs"], capture_output=True,
                          text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["ra", "ra_dice"]
    assert all("player_2" in line for line in lines)


# ---------------------------------------------------------------- a plugin game
@pytest.mark.usefixtures("nim_plugin")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("players", [2, 4])
def test_a_plugin_game_passes_pettingzoos_own_api_test(players: int) -> None:
    api_test(env("nim", players), num_cycles=200)


@pytest.mark.usefixtures("nim_plugin")
def test_a_plugin_game_gets_the_generic_encoding_and_board() -> None:
    game = raw_env("nim", 3, render_mode="ansi")
    game.reset(seed=4)
    agent = game.agent_selection
    view = game.state.observation(int(agent.split("_")[1]))
    # every number of the seat's observation, in its order
    assert game.observe(agent)["observation"].tolist() == [
        view["seat"], view["visible_pile"], view["turn"]]
    assert game.observe(agent)["action_mask"].tolist() == [0, 1, 1, 1]
    assert f'"visible_pile": {view["visible_pile"]}' in game.render()  # the JSON board


@pytest.mark.usefixtures("nim_plugin")
def test_a_game_that_does_not_count_its_actions_has_no_environment(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(NIM, "num_distinct_actions", lambda: None)
    with pytest.raises(ArenaError, match="Nim does not say how many actions it has"):
        raw_env("nim", 2)
