"""The bundled games' views are exactly what they were before drawing and encoding moved
into the games (issue 27): the terminal board of every seat at every decision, and the
environment's observation vectors, of whole random games, hashed.  The digests were
taken from the code before the move; a change to Ra's or the dice game's board or
encoding must change them on purpose."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from arena.games.base import Game
from arena.plugins import load_game

# (game, options) -> {players: sha256 of every board and vector of two random games}
EXPECTED: dict[tuple[str, str], dict[int, str]] = {
    ("ra", "None"): {
        2: "ac05e0d36dde0db3cc2176eca4822915d30b8bc5963114b4a57cb1bec94327cb",
        3: "2168242fd8ee389607d13d17de70b8786a494276ac4978f430b9541bc2cbdbc1",
        4: "36ea6018dff78f4bcb9f1cb2c3da0ac64f2eec37e6e53de64070c121f6999d10",
        5: "d6c70b55842e6f2191863e7125d592681a10cb49bd6ae634790728b3dc4bcd74",
    },
    ("ra", "2023"): {
        2: "9b0d7d6192ea25a0ece129ea32560904188e5c40ee447c9032b98a0c1de83f51",
        3: "f4aa8407680aafd3ae5528a3f6fa3eaae76d3504ce54177a2a4626caaec00b06",
        4: "38928afad1fcdabe7d980f30f6cef00c4a1b676d449c8dc8bc821623cf15d535",
        5: "2fb12617544745a2f084b0e9b33ae7bd761a3912810d55aedcbc96eff2f49cf9",
    },
    ("ra_dice", "None"): {
        2: "70de30747e3f8f93de90c569accdf412663a4f8636d025d1499729cb56412f7e",
        3: "6e9ba1b3511f1f04db78814cfdcc2335436da877aadce0d8197a858f9fc8d8cf",
        4: "7f82a25141ad938d02890ac9f27ec6dc13d92835d76da74848e1a2b005a24eb6",
    },
}


def board(engine: Game, observation: Mapping[str, Any], names: list[str]) -> list[str]:
    return engine.board_text(observation, names)


def encoder(engine: Game, options: Mapping[str, Any] | None, players: int) -> Any:
    first = engine.new_game(players, 0, options).observation(0)  # as the environment does
    return engine.num_distinct_actions(), engine.observation_encoder(first)


def digest(game: str, options: Mapping[str, Any] | None, players: int) -> str:
    engine = load_game(game)
    names = [f"bot-{seat}" for seat in range(players)]
    count, encode = encoder(engine, options, players)
    out = hashlib.sha256(str(count).encode())
    for seed in (1, 2):
        state = engine.new_game(players, seed, options)
        rng = random.Random(seed)
        while True:
            for seat in range(players):
                view = state.observation(seat)
                out.update("\n".join(board(engine, view, names)).encode())
                out.update(np.asarray(encode(view), dtype=np.float32).tobytes())
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
    return out.hexdigest()


CASES = [("ra", None), ("ra", "2023"), ("ra_dice", None)]


@pytest.mark.parametrize(("game", "edition"), CASES)
def test_boards_and_encodings_are_unchanged(game: str, edition: str | None) -> None:
    engine = load_game(game)
    options = None if edition is None else {"edition": edition}
    found = {players: digest(game, options, players)
             for players in range(engine.min_players, engine.max_players + 1)}
    assert found == EXPECTED[(game, str(edition))]
