"""The search bots' choices pinned: mcts and dice-mcts, at fixed seeds and iteration
counts, make exactly the decisions (and gather exactly the statistics) that they made
before their search driver and the dice engine's legality checks were shared (issue
27).  A digest of the root's statistics pins every playout's reward, not only the
answer; a change of play must change these figures on purpose (and bump the bot's
version)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from arena.games.ra import GAME as RA
from arena.games.ra import RaState
from arena.games.ra_dice.state import OVER, RaDiceState
from arena.plugins import load_game
from arena.strategies import dice_mcts, mcts
from arena.strategies.greedy import greedy_action

DICE = load_game("ra_dice")

RA_SETTINGS: dict[str, mcts.MctsSettings] = {
    **mcts.STEPS,
    "prior": mcts.MctsSettings(prior_weight=1.0, prior_depth=2, rollout_decisions=6),
}
DICE_SETTINGS: dict[str, dice_mcts.DiceMctsSettings] = {
    **dice_mcts.STEPS,
    "horizon": dice_mcts.DiceMctsSettings(horizon_turns=1, rollout_noise=0.3),
    "pruned": dice_mcts.DiceMctsSettings(root_candidates=4, paired_root=True, prune_every=3,
                                         prune_z=0.5, deviate_z=0.5, turn_streams=True),
    "game-end": dice_mcts.DiceMctsSettings(root_candidates=3, paired_root=True,
                                           to_game_end=True),
}


def ra_positions() -> list[RaState]:
    """A few positions of greedy games with a real choice."""
    found = []
    for players, seed in ((3, 1), (4, 2), (5, 3)):
        state = RA.new_game(players, seed)
        for step in range(70):
            if state.is_terminal():
                break
            if step % 23 == 11 and len(state.legal_actions()) > 1:
                found.append(state.clone())
            state.apply_action(greedy_action(state))
    return found


def dice_positions() -> list[RaDiceState]:
    """A few positions of random games with a real choice (rolls, applications,
    disasters)."""
    found = []
    for players, seed in ((2, 4), (3, 9), (4, 14)):
        rng = random.Random(seed)
        state = DICE.new_game(players, seed)
        step = 0
        while state.phase != OVER and step < 80:
            if step % 13 == 6 and len(state.legal_actions()) > 1:
                found.append(state.clone())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            step += 1
    return found


def digest(statistics: Any) -> str:
    return hashlib.sha1(repr(statistics).encode()).hexdigest()[:12]


def ra_fingerprint(name: str) -> list[tuple[int, int, str]]:
    """Per position: the answer, the iterations made, a digest of the root's children."""
    result = []
    for number, state in enumerate(ra_positions()):
        action, tree = mcts.search(state, random.Random(number), iterations=90,
                                   settings=RA_SETTINGS[name])
        children = sorted((a, c.visits, c.avail, c.totals) for a, c in tree.children.items())
        result.append((action, tree.visits, digest(children)))
    return result


def dice_fingerprint(name: str) -> list[tuple[int, int, str]]:
    """Per position: the strategy's answer (candidates and all), the playouts made, a
    digest of the root's edges."""
    result = []
    for number, state in enumerate(dice_positions()):
        strategy = dice_mcts.DiceMctsStrategy(iterations=60, seed=number,
                                              settings=DICE_SETTINGS[name])
        strategy.new_game({"seed": number})
        seat = state.current_player()
        legal = [state.action_to_json(a) for a in state.legal_actions()]
        index = strategy.choose(state.observation(seat), legal)
        settings = DICE_SETTINGS[name]
        candidates = None if not settings.root_candidates else \
            state.legal_actions()[:settings.root_candidates]
        _, tree = dice_mcts.search(state, random.Random(number), iterations=60,
                                   settings=settings, candidates=candidates)
        edges = sorted((a, e.visits, e.avail, e.totals) for a, e in tree.edges.items())
        result.append((index, strategy.last_iterations, digest(edges)))
    return result


RA_PINNED: dict[str, list[tuple[int, int, str]]] = {
    "1.0": [
        (0, 64, "7d4855b6ba3e"), (1, 64, "f81b6c444262"), (1, 90, "d482f927f283"),
        (17, 90, "66f1e3ce362c"), (0, 90, "993590740a1d"), (3, 90, "87937655091c"),
        (14, 90, "f8ed26409a1b"), (0, 80, "f3171eaa040e"), (42, 80, "c21cf1b5eb06"),
    ],
    "1.1": [
        (0, 64, "6822bc604909"), (0, 90, "ea41699f17d8"), (0, 80, "815cff12ca32"),
        (22, 90, "73264b0230eb"), (0, 64, "4987454ce4b0"), (3, 90, "fb9a2d01a89a"),
        (27, 80, "1e8a64def23a"), (0, 80, "b860c93131fb"), (42, 80, "83abb5eee19c"),
    ],
    "1.2": [
        (0, 90, "3e4e0c5ec304"), (0, 90, "9969de796a65"), (1, 90, "37c82a6e49d6"),
        (13, 88, "fbcb953d6daf"), (0, 90, "59a4a246ab6f"), (3, 88, "aa244f814376"),
        (27, 88, "dd416e46f407"), (1, 90, "1e24fb882b8d"), (42, 90, "885ed1f60fb3"),
    ],
    "1.3": [
        (0, 90, "3e4e0c5ec304"), (0, 90, "9969de796a65"), (1, 90, "37c82a6e49d6"),
        (13, 88, "fbcb953d6daf"), (0, 90, "59a4a246ab6f"), (3, 88, "aa244f814376"),
        (27, 88, "dd416e46f407"), (1, 90, "1e24fb882b8d"), (42, 90, "885ed1f60fb3"),
    ],
    "prior": [
        (0, 80, "025d095d1435"), (0, 80, "fb332423917e"), (0, 90, "e6b1faacbdbe"),
        (22, 64, "d90fcbe34f99"), (0, 90, "b7ed23b0b5c6"), (0, 90, "2189a1f3cf19"),
        (27, 90, "bf82d358090f"), (0, 90, "d2f90ba223e0"), (42, 80, "45daa0c7a3b4"),
    ],
}
DICE_PINNED: dict[str, list[tuple[int, int, str]]] = {
    "1.0": [
        (2, 60, "1e91b8d6439f"), (10, 60, "820d702672f4"), (15, 60, "b3f6b10502f2"),
        (4, 60, "8bff29fb6ad0"), (0, 60, "9fbb835ad496"), (3, 60, "de14706051fb"),
        (3, 60, "44c9a0b53d60"), (0, 60, "0c0e062fdf23"), (8, 60, "c57693c74fcc"),
        (6, 60, "a0163d0c559c"), (3, 60, "c7d8ec6dac6c"), (2, 60, "697ce2ed4281"),
        (4, 60, "17edfd24140f"), (0, 60, "3fc43fc10ac0"), (2, 60, "45d4948e1c7e"),
        (3, 60, "da7478bc56bc"), (2, 60, "78ec47207098"), (1, 60, "74d2ab436a62"),
    ],
    "1.1": [
        (1, 60, "1e91b8d6439f"), (14, 60, "793600904c73"), (4, 60, "6ad4186d240c"),
        (9, 60, "4f3b9bafc127"), (22, 60, "150cc3b617e3"), (6, 60, "241814cd1376"),
        (3, 60, "5827618bceb5"), (1, 60, "0c0e062fdf23"), (5, 60, "077917b95d83"),
        (6, 60, "175a193eb8ca"), (1, 60, "76a595de2fa4"), (3, 60, "0f90066c9fbf"),
        (9, 60, "c579cbb26b29"), (20, 60, "0716b5a231ed"), (1, 60, "ef2f777d061a"),
        (6, 60, "62ce10007243"), (0, 60, "a31ddf7b0cb1"), (2, 60, "74d2ab436a62"),
    ],
    "1.2": [
        (2, 60, "35516012bf6e"), (14, 60, "34b8d74b1bb1"), (2, 60, "43db4404b33b"),
        (9, 60, "c781fbf24445"), (18, 60, "38e4bec50ffe"), (6, 60, "7aa4bdd882ea"),
        (2, 60, "31f7b935d549"), (1, 60, "ba23cc5b2906"), (2, 60, "74a252acf47f"),
        (4, 60, "3b6d80c54a20"), (3, 60, "eadc60862b15"), (2, 60, "2b57c0cbae70"),
        (7, 60, "91e685113277"), (20, 60, "7805405a8828"), (2, 60, "3987c25da8a7"),
        (6, 60, "4890b507a5df"), (0, 60, "72468e3cc10b"), (1, 60, "aa7e80cba17e"),
    ],
    "1.3": [
        (2, 60, "35516012bf6e"), (14, 60, "34b8d74b1bb1"), (2, 60, "43db4404b33b"),
        (9, 60, "c781fbf24445"), (18, 60, "38e4bec50ffe"), (6, 60, "7aa4bdd882ea"),
        (2, 60, "31f7b935d549"), (1, 60, "ba23cc5b2906"), (2, 60, "74a252acf47f"),
        (4, 60, "3b6d80c54a20"), (3, 60, "eadc60862b15"), (2, 60, "2b57c0cbae70"),
        (7, 60, "91e685113277"), (20, 60, "7805405a8828"), (2, 60, "3987c25da8a7"),
        (6, 60, "4890b507a5df"), (0, 60, "72468e3cc10b"), (1, 60, "aa7e80cba17e"),
    ],
    "1.4": [
        (2, 60, "d50cdc681226"), (14, 60, "3c695a12ff80"), (2, 60, "bd30d4dfffe3"),
        (1, 60, "4a20b1b1707d"), (18, 60, "1271852c5208"), (14, 60, "c0e3d9b2919d"),
        (2, 60, "a91e3139db1d"), (1, 60, "67e68d7008d3"), (2, 60, "c0629404dcea"),
        (4, 60, "d7e9b8a77bed"), (3, 60, "2d133f50a574"), (2, 60, "32aff824518a"),
        (7, 60, "f1ead89a2dcc"), (20, 60, "d7be771212dc"), (1, 60, "0828ad45f4ae"),
        (4, 60, "b8e8b97fa705"), (0, 60, "3d89a8fcff4e"), (1, 60, "1f4151bd6185"),
    ],
    "horizon": [
        (1, 60, "eb37f75ce7cd"), (14, 60, "0f3870d53365"), (12, 60, "faacfbb3050d"),
        (1, 60, "78ab28c2b795"), (1, 60, "bd037c9736aa"), (2, 60, "5d4da5c95586"),
        (2, 60, "4fce24273383"), (1, 60, "9cfd552839f3"), (0, 60, "577dd0ca1eef"),
        (1, 60, "18ef6057fbe2"), (3, 60, "834c5d2893ff"), (2, 60, "2bed87b68954"),
        (4, 60, "9a29b0eb545f"), (20, 60, "8354e27b0edc"), (4, 60, "7ccf27b059ab"),
        (8, 60, "023fa778169d"), (2, 60, "7fbf4a6413a6"), (1, 60, "80f66445e881"),
    ],
    "pruned": [
        (2, 39, "600959d6600f"), (14, 24, "fb28b4a9fda9"), (6, 12, "ffb4526d04e5"),
        (9, 18, "6112fc445d72"), (18, 12, "0ae121b86da7"), (6, 12, "b58aa1600319"),
        (3, 12, "e9d214392077"), (1, 6, "dc1cf10027e8"), (2, 12, "a0df2b4d8ac4"),
        (4, 12, "d145b8aec48a"), (3, 24, "852c131bfda7"), (4, 21, "988de095822a"),
        (7, 12, "8fda4c736fa2"), (20, 12, "47818f4831e1"), (5, 30, "10ffc8a11c76"),
        (4, 12, "00c17a24cbe5"), (0, 12, "e6c77bac3ed8"), (1, 59, "c7aa757cc4ed"),
    ],
    "game-end": [
        (2, 60, "ce23c3570c43"), (14, 60, "7026e56c1238"), (0, 60, "4a44f521282a"),
        (9, 60, "babc4346b643"), (18, 60, "eaf37043c51d"), (6, 60, "7aa4bdd882ea"),
        (3, 60, "d77ac13b269f"), (1, 60, "71a53f094a7b"), (2, 60, "4396ea461b23"),
        (7, 60, "63bf5663d4ef"), (1, 60, "9923bce674ef"), (2, 60, "c8bbd26e4464"),
        (6, 60, "e44addaa3d79"), (4, 60, "b473a486e3fc"), (1, 60, "362d86b24dfc"),
        (0, 60, "de43b66eb4ed"), (4, 60, "7285f3bc1eb1"), (1, 60, "d61b2de1b9cb"),
    ],
}


@pytest.mark.parametrize("name", list(RA_SETTINGS))
def test_mcts_makes_the_pinned_choices(name: str) -> None:
    assert ra_fingerprint(name) == RA_PINNED[name]


@pytest.mark.parametrize("name", list(DICE_SETTINGS))
def test_dice_mcts_makes_the_pinned_choices(name: str) -> None:
    assert dice_fingerprint(name) == DICE_PINNED[name]


if __name__ == "__main__":  # prints the figures to pin
    print("RA_PINNED = {")
    for key in RA_SETTINGS:
        print(f"    {key!r}: {ra_fingerprint(key)!r},")
    print("}\nDICE_PINNED = {")
    for key in DICE_SETTINGS:
        print(f"    {key!r}: {dice_fingerprint(key)!r},")
    print("}")
