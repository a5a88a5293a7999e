"""Golden playthroughs: complete games of each game, edition and player count, stored as
readable text under tests/golden/ (the story of every tile, bid, die and score, then every
decision with the options it was chosen from), so that any change to the rules shows up as
a reviewed diff of these files.

Regenerate them (and review the diff) with:

    ARENA_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/games/test_golden_playthroughs.py

The decisions are drawn by a seeded random policy from the legal list, so the games depend
on nothing but the engine.  Ra's are played on both of its engines, the pure-Python one
and the compiled core (arena/games/ra/engines.py): the same text from each.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from arena.games.base import Game
from arena.games.ra import RaGame
from arena.games.ra_dice.game import RaDiceGame

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
SEEDS = (1, 2)  # a few complete games per file
RA_DICE = RaDiceGame()

# (file stem, game (Ra: its engine's name), options, players)
CASES: list[tuple[str, Game | str, dict[str, str], int]] = [
    (f"ra-{edition}-{n}p", engine, {"edition": edition}, n)
    for edition in ("classic", "2023")
    for n in range(2, 6)
    for engine in ("python", "compiled")
] + [(f"ra_dice-2009-{n}p", RA_DICE, {"edition": "2009"}, n) for n in range(2, 5)]


def playthrough(game: Game, options: dict[str, str], players: int, seed: int) -> list[str]:
    """One complete game as text: header, story, decisions, result."""
    state = game.new_game(players, seed, options)
    policy = random.Random(seed * 100 + players)
    decisions: list[str] = []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = policy.choice(legal)
        seat = state.current_player()
        chosen = json.dumps(state.action_to_json(action), sort_keys=True)
        decisions.append(f"  {len(decisions) + 1}. seat {seat} ({len(legal)} legal): {chosen}")
        state.apply_action(action)
    record = json.loads(json.dumps(state.record()))
    game.replay(record)  # a golden game is a valid record, by construction
    return [
        f"== {game.title}, {players} players, options {json.dumps(options, sort_keys=True)},"
        f" seed {seed} ==",
        "",
        *game.narrate(record),
        "",
        f"Decisions ({len(decisions)}):",
        *decisions,
        "",
        f"Scores: {state.returns()}",
        f"Placements: {state.placements()}",
        "",
    ]


def golden_text(game: Game, options: dict[str, str], players: int) -> str:
    lines: list[str] = []
    for seed in SEEDS:
        lines += playthrough(game, options, players, seed)
    return "\n".join(line.rstrip() for line in lines)


@pytest.mark.parametrize(("stem", "game", "options", "players"), CASES,
                         ids=[case[0] + (f"-{case[1]}" if isinstance(case[1], str) else "")
                              for case in CASES])
def test_golden_playthrough(stem: str, game: Game | str, options: dict[str, str],
                            players: int, request: pytest.FixtureRequest) -> None:
    if isinstance(game, str):  # a Ra engine
        if game == "compiled":
            request.getfixturevalue("compiled_ra")  # skipped where not built, CI fails
        game = RaGame(game)
    path = GOLDEN / f"{stem}.txt"
    text = golden_text(game, options, players)
    if os.environ.get("ARENA_REGENERATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: regenerate (see this module's docstring)"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (
        f"{path.name} differs from what the engine plays now: if the rules changed on "
        "purpose, regenerate (see this module's docstring) and review the diff"
    )


def test_every_golden_file_is_a_case() -> None:
    """No stale golden file lingers after a case is removed."""
    stems = {case[0] for case in CASES}
    assert {path.stem for path in GOLDEN.glob("*.txt")} == stems
