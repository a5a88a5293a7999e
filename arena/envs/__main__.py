"""``python -m arena.envs``: random agents play one game of each through the environments
(trains nothing; shows the loop an RL library runs)."""

from __future__ import annotations

import sys

from arena.envs import ra_dice_env, ra_env


def play_random(make, num_players: int, seed: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    environment = make(num_players)
    environment.reset(seed=seed)
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _info = environment.last()
        totals[agent] += reward
        if termination or truncation:
            action = None
        else:  # a random legal move: sample only where the mask allows
            action = environment.action_space(agent).sample(observation["action_mask"])
        environment.step(action)
    environment.close()
    return totals


def main() -> int:
    for name, make in (("ra", ra_env), ("ra_dice", ra_dice_env)):
        totals = play_random(make, 3, seed=1)
        print(f"{name}: " + ", ".join(f"{a} {score:g}" for a, score in totals.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
