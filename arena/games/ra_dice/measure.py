"""Measure the Sun track: how far Ra moves per turn, and how long an epoch lasts.

The rulebook puts Ra on a start space "that shows the number of players" but the text does
not say where those spaces are.  The issue asks for an epoch of about five turns per player,
so this module plays epochs through the real engine for each distance Ra must travel and
picks, per player count, the distance whose average epoch is closest to 5 turns per player.

Only the rolling decisions move Ra, so a *rolling policy* is all that matters:

- ``random``: a uniformly random choice among the legal roll decisions, as the bundled
  random bot makes (each free die is rerolled with probability 1/2; stop = reroll nothing);
- ``reroll_all``: every die that is not a Sun is rerolled at both chances (most Suns);
- ``keep``: never reroll (fewest Suns);
- ``coin``: at each chance, reroll every free die or none, with even odds: a player
  between the two extremes, and the reference for the default board (it moves Ra about
  0.8 spaces a turn, as the issue estimates for an average roll).

After rolling the turn ends at once (no disaster, nothing applied): that cannot move Ra.
Run ``python -m arena.games.ra_dice.measure [--games N] [--policy P]``; the figures are in
``docs/rules-ra-dice.md``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from arena.games.ra_dice import actions as A
from arena.games.ra_dice.board import MAX_PLAYERS, MIN_PLAYERS
from arena.games.ra_dice.game import RaDiceGame
from arena.games.ra_dice.state import APPLY, DISASTER, ROLL

TURNS_PER_PLAYER = 5
Policy = Callable[[list[int], random.Random], int]

POLICIES: dict[str, Policy] = {
    "random": lambda legal, rng: legal[rng.randrange(len(legal))],
    "reroll_all": lambda legal, rng: legal[-1],  # the mask of every free die
    "keep": lambda legal, rng: A.STOP,
    "coin": lambda legal, rng: legal[-1] if rng.random() < 0.5 else A.STOP,
}


def epoch_lengths(
    num_players: int, distance: int, policy: str, games: int, seed: int = 1
) -> tuple[float, float]:
    """(mean turns per epoch, mean Ra advance per turn) over ``games`` three-epoch games
    in which Ra must travel ``distance`` spaces."""
    choose = POLICIES[policy]
    rng = random.Random(seed)
    start = {str(n): 0 for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
    options = {"board": {"sun_track": {"last_space": distance, "start": start}}}
    game = RaDiceGame()
    turns = epochs = advance = 0
    for number in range(games):
        state = game.new_game(num_players, seed + number, options)
        while not state.is_terminal():
            if state.phase == ROLL:
                state.apply_action(choose(state.legal_actions(), rng))
            elif state.phase == DISASTER:
                state.apply_action(A.DISASTER_NONE)
            elif state.phase == APPLY:
                state.apply_action(A.DONE)
        for event in state.events:
            if event[0] == "roll" and event[3] == 1:
                turns += 1
            elif event[0] == "sun" and event[2] <= 2:
                advance += event[2]
            elif event[0] == "epoch":
                epochs += 1
    return turns / epochs, advance / turns


def best_distance(num_players: int, policy: str, games: int, seed: int = 1) -> int:
    """The distance whose epochs last closest to five turns per player."""
    target = TURNS_PER_PLAYER * num_players
    _, per_turn = epoch_lengths(num_players, 4 * num_players, policy, games, seed)
    guess = round(target * per_turn)
    candidates = range(max(1, guess - 2), guess + 3)
    return min(
        candidates,
        key=lambda d: abs(epoch_lengths(num_players, d, policy, games, seed)[0] - target),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games per measurement")
    parser.add_argument("--policy", choices=sorted(POLICIES), default="coin")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name in POLICIES:
        _, per_turn = epoch_lengths(4, 16, name, args.games, args.seed)
        print(f"policy {name:<10}: Ra moves {per_turn:.3f} spaces per turn")
    print(f"with policy {args.policy!r}, for about {TURNS_PER_PLAYER} turns per player:")
    for num_players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        distance = best_distance(num_players, args.policy, args.games, args.seed)
        turns, _ = epoch_lengths(num_players, distance, args.policy, args.games, args.seed)
        print(f"  {num_players} players: Ra travels {distance:2d} spaces, "
              f"{turns:.1f} turns per epoch ({turns / num_players:.2f} per player)")


if __name__ == "__main__":
    main()
