"""PettingZoo AEC environments for Ra, Ra: The Dice Game and any plugin game that says how
many actions it has (``pip install 'ra-arena[rl]'``).

    from arena.envs import ra_env
    env = ra_env(num_players=3)
    env.reset(seed=7)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"]
        action = None if termination or truncation else env.action_space(agent).sample(mask)
        env.step(action)

Agents are ``player_0`` ... (seat order).  An action is the engine's own action number,
so it means the same thing in every position; ``action_mask`` marks the legal ones.  The
observation vector encodes what the seat's bot would be sent, as the game encodes it
(``Game.observation_encoder``; Ra's is in arena/games/ra/views.py).
The reward comes at the end: each seat's final score (the game's points).  See
docs/envs.md; ``python -m arena.envs`` plays random agents through both games.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as missing:  # pragma: no cover - depends on the install
    raise ImportError(
        "arena.envs needs PettingZoo: pip install 'ra-arena[rl]'") from missing

from arena.errors import ArenaError
from arena.games.base import GameState

JSON = Any
LIMIT = 1e6  # bound of every observed number (scores, counts: far below it)


class ArenaEnv(AECEnv):  # type: ignore[misc]
    """One game engine as an AEC environment; see the module docstring."""

    RENDER_MODES = ("ansi", "human")
    metadata = {"render_modes": list(RENDER_MODES), "name": "ra_arena_v0",
                "is_parallelizable": False}

    def __init__(self, game: str = "ra", num_players: int = 3,
                 options: Mapping[str, JSON] | None = None,
                 render_mode: str | None = None) -> None:
        from arena.plugins import load_game

        super().__init__()
        if render_mode is not None and render_mode not in self.RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: use one of {self.RENDER_MODES}")
        self.game = load_game(game)
        self.num_players = num_players
        self.options = dict(options or {})
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(num_players)]
        self.agents = list(self.possible_agents)
        sample = self.game.new_game(num_players, 0, self.options)  # bad options fail here
        self._encode = self.game.observation_encoder(sample.observation(0))
        size = len(self._encode(sample.observation(0)))
        actions = self.game.num_distinct_actions()
        if actions is None:
            raise ArenaError(f"{self.game.title} does not say how many actions it has "
                             "(Game.num_distinct_actions), so it has no environment")
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-LIMIT, LIMIT, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }) for a in self.possible_agents
        }
        self._seeds = np.random.default_rng()
        self.state: GameState = sample

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, JSON] | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        game_seed = int(self._seeds.integers(0, 2**62))
        self.state = self.game.new_game(self.num_players, game_seed, self.options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, JSON]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.action_spaces[agent].n, dtype=np.int8)
        if not self.state.is_terminal() and self.state.current_player() == seat:
            legal = self.state.legal_actions()
            if max(legal) >= len(mask):
                raise ValueError(f"the engine's action {max(legal)} is beyond the "
                                 f"{len(mask)} actions this environment knows")
            mask[legal] = 1
        vector = np.asarray(self._encode(self.state.observation(seat)), dtype=np.float32)
        return {"observation": vector, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self.state.legal_actions()
        if action is None or int(action) not in legal:
            raise ValueError(f"{agent}: action {action!r} is not legal now; legal: {legal}")
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(int(action))
        if self.state.is_terminal():
            for seat, score in enumerate(self.state.returns()):
                self.rewards[self.possible_agents[seat]] = float(score)
                self.terminations[self.possible_agents[seat]] = True
        else:
            self.rewards = {a: 0.0 for a in self.agents}
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        seat = max(self.state.current_player(), 0)
        text = "\n".join(self.game.board_text(self.state.observation(seat),
                                               self.possible_agents))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(game: str = "ra", num_players: int = 3, **kwargs: Any) -> ArenaEnv:
    return ArenaEnv(game, num_players, **kwargs)


def env(game: str = "ra", num_players: int = 3, **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's usual checks: an illegal move is penalised and
    ends the game, and calls out of order are refused."""
    wrapped: AECEnv = wrappers.TerminateIllegalWrapper(raw_env(game, num_players, **kwargs),
                                                       illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def ra_env(num_players: int = 3, **kwargs: Any) -> AECEnv:
    return env("ra", num_players, **kwargs)


def ra_dice_env(num_players: int = 3, **kwargs: Any) -> AECEnv:
    return env("ra_dice", num_players, **kwargs)
