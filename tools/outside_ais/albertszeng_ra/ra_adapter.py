"""Our observation -> the game state of albertszeng/ra, and its moves -> our legal actions.

albertszeng/ra (https://github.com/albertszeng/ra, no license file: we never copy its code,
we import it from a checkout kept outside this repository) is a Python implementation of
Reiner Knizia's Ra with two AIs that choose moves from its own ``game.state.GameState``:

- ``oracle``: ``game.decision_functions.oracle.oracle_search``, the AI its web server plays
  as "HARD": a max-n search (each player maximises its lead over the best other player) to
  the end of the second auction from now (``max(2, 4 - players)``), leaves judged by its
  hand-written evaluation; it reads the bag's draw order, so here it searches one bag order
  sampled from the observation (one determinization, seeded by the arena's seed);
- ``search``: ``game.decision_functions.search.search``, an older expectimax over every tile
  a draw can bring, until one auction is over.

Neither AI ever plays a god tile (both skip those actions), and the rules differ from ours in
two places that matter here: a god take ends the turn there (ours: the classic god
follow-up, where our bot always answers ``end_turn``), and the 2023 edition is not theirs
(leagues here play the classic edition).  Everything this module cannot map is counted by
the caller as a fall-back.

The outside modules are loaded at run time from a checkout's path (:func:`load`) and passed
around as ``Outside``, so this file has no static dependency on the checkout and
type-checks on its own.
"""

from __future__ import annotations

import importlib
import random
import sys
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JSON = Any

# our tile names in the order of albertszeng/ra's tile indices (game/info.py, TILE_INFO);
# their "Disaster -- War" is our unrest
THEIR_TILE_ORDER = (
    "god", "gold", "pharaoh", "nile", "flood",
    "astronomy", "agriculture", "writing", "religion", "art",
    "fortress", "obelisk", "palace", "pyramid", "temple", "statue", "step_pyramid", "sphinx",
    "funeral", "drought", "unrest", "earthquake", "ra",
)
TILE_INDEX = {name: index for index, name in enumerate(THEIR_TILE_ORDER)}
NUM_COLLECTIBLES = 18  # god .. sphinx: what a player can hold there

# their action integers (game/info.py)
DRAW, AUCTION = 0, 1
GOD_FIRST, GOD_LAST = 2, 9
BID_FIRST, BID_LAST = 10, 13
BID_NOTHING = 14
DISCARD_FIRST, DISCARD_LAST = 15, 27  # 15..19 civilizations, 20..27 monuments
DISCARD_FIRST_TILE = TILE_INDEX["astronomy"]  # DISCARD_FIRST + k discards tile index 5 + k


@dataclass(frozen=True)
class Outside:
    """The outside checkout's modules: ``game.info``, ``game.state``, ``game.ra``."""

    info: Any
    state: Any
    ra: Any


def load(root: Path) -> tuple[Outside, Any, Any]:
    """The checkout at ``root``: its game modules, and its ``oracle`` and ``search`` AI
    modules (SystemExit with one line if ``root`` is not a checkout of albertszeng/ra)."""
    if not (root / "game" / "ra.py").is_file():
        sys.exit(f"no albertszeng/ra checkout at {root} (expected game/ra.py there)")
    try:
        import typing_extensions  # noqa: F401  (their oracle imports ParamSpec from it)
    except ImportError:  # Python 3.11 has it in typing
        shim = types.ModuleType("typing_extensions")
        shim.ParamSpec = typing.ParamSpec  # type: ignore[attr-defined]
        sys.modules["typing_extensions"] = shim
    sys.path.insert(0, str(root))
    outside = Outside(
        info=importlib.import_module("game.info"),
        state=importlib.import_module("game.state"),
        ra=importlib.import_module("game.ra"),
    )
    oracle = importlib.import_module("game.decision_functions.oracle")
    search = importlib.import_module("game.decision_functions.search")
    return outside, oracle, search


class Unmappable(Exception):
    """The observation or a move has no counterpart on the other side."""


def build_state(outside: Outside, obs: dict[str, JSON], rng: random.Random) -> Any:
    """Their ``GameState`` equal to our observation, the bag's order drawn with ``rng``."""
    gi, gs = outside.info, outside.state
    if obs.get("edition") not in (None, "classic"):
        raise Unmappable(f"edition {obs.get('edition')!r}: albertszeng/ra plays the classic rules")
    n = int(obs["num_players"])
    phase = obs["phase"]
    if phase == "over":
        raise Unmappable("the game is over")
    state = gs.GameState.shallow()
    state.total_rounds = gi.NUM_ROUNDS
    state.num_ras_per_round = int(obs["ra_track_length"])
    state.num_players = n
    state.max_auction_tiles = gi.MAX_AUCTION_TILES

    order = [TILE_INDEX[name] for name, count in obs["bag"].items() for _ in range(int(count))]
    rng.shuffle(order)
    state.tile_bag = gs.TileBag(order)

    state.current_round = int(obs["epoch"])
    state.num_ras_this_round = int(obs["ra_track"])
    state.center_sun = int(obs["center_sun"])
    state.auction_tiles = [TILE_INDEX[name] for name in obs["auction_track"]]
    state.current_player = int(obs["current_player"])
    ra_player = obs.get("ra_player")
    state.auction_start_player = None if ra_player is None else int(ra_player)

    state.auction_suns = [None] * n
    state.auction_started = False
    state.auction_forced = False
    if phase == "auction":
        auction = obs["auction"]
        state.auction_started = True
        state.auction_forced = auction["kind"] != "invoked"
        for bid in auction["bids"]:
            if bid.get("sun") is not None:
                state.auction_suns[int(bid["seat"])] = int(bid["sun"])

    state.num_civs_to_discard = 0
    state.num_mons_to_discard = 0
    state.auction_winning_player = None
    if phase == "disaster":
        disaster = obs["disaster"]
        if disaster.get("after") != "auction":
            raise Unmappable(f"a disaster after {disaster.get('after')!r}, not after an auction")
        to_come = [disaster["disaster"]] * int(disaster["to_lose"])
        for name in disaster.get("then") or []:
            to_come += [name] * gi.NUM_DISCARDS_PER_DISASTER
        state.num_civs_to_discard = to_come.count("unrest")
        state.num_mons_to_discard = to_come.count("earthquake")
        if disaster["disaster"] == "earthquake" and state.num_civs_to_discard:
            raise Unmappable("an earthquake before unrest: they resolve unrest first")
        state.auction_winning_player = int(disaster["seat"])
    elif phase not in ("turn", "god", "auction"):
        raise Unmappable(f"phase {phase!r}")

    state.player_states = []
    for idx, player in enumerate(obs["players"]):
        names = f"seat{idx}"
        ps = gs.PlayerState(names, idx, [int(s) for s in player["suns"]], int(player["score"]))
        ps.unusable_sun = sorted(int(s) for s in player["used_suns"])
        for name, count in player["tiles"].items():
            index = TILE_INDEX[name]
            if index >= NUM_COLLECTIBLES:
                raise Unmappable(f"a held tile {name!r}")
            ps.collection[index] = int(count)
        state.player_states.append(ps)
    state.player_names = [ps.player_name for ps in state.player_states]
    state.active_players = [bool(player["suns"]) for player in obs["players"]]
    state.game_ended = False
    return state


def to_our_json(outside: Outside, state: Any, action: int) -> dict[str, JSON]:
    """Their action ``action`` in ``state`` (the state before it) as our action's JSON."""
    if action == DRAW:
        return {"type": "draw"}
    if action == AUCTION:
        return {"type": "invoke_ra"}
    if GOD_FIRST <= action <= GOD_LAST:
        tile = state.auction_tiles[action - GOD_FIRST]
        return {"type": "god", "tile": THEIR_TILE_ORDER[tile]}
    if BID_FIRST <= action <= BID_LAST:
        suns = state.player_states[state.current_player].usable_sun
        return {"type": "bid", "sun": int(sorted(suns)[action - BID_FIRST])}
    if action == BID_NOTHING:
        return {"type": "pass"}
    if DISCARD_FIRST <= action <= DISCARD_LAST:
        tile = DISCARD_FIRST_TILE + action - DISCARD_FIRST
        return {"type": "discard", "tile": THEIR_TILE_ORDER[tile]}
    raise Unmappable(f"their action {action}")


def find(legal: list[dict[str, JSON]], wanted: dict[str, JSON]) -> int | None:
    """The index of the legal action that agrees with every key of ``wanted``."""
    for index, action in enumerate(legal):
        if all(action.get(key) == value for key, value in wanted.items()):
            return index
    return None


def their_legal_as_ours(outside: Outside, state: Any) -> list[dict[str, JSON]]:
    """Their legal actions in ``state``, as our JSON (for checking the rebuilt state)."""
    return [to_our_json(outside, state, a) for a in outside.ra.get_possible_actions(state) or []]
