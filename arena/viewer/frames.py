"""A stored game as a list of positions, one per decision, for the replay page.

The engine is the only thing that knows the board, so the game is replayed through its
public API (``start_from_record``: the recorded draws, then ``apply_action`` step by
step) and each position is the acting seat's ``observation`` - what the bot saw when it
decided.  Positions share most of their content, so every position after the first is
stored as the few paths that changed (:func:`diff`); the page rebuilds them in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.errors import ArenaError
from arena.games.base import TERMINAL, Game, GameError, GameState
from arena.records import GameRecord

JSON = Any
Patch = list[list[JSON]]  # [path, value] to set, or [path] to delete


def describe_action(move: Mapping[str, JSON]) -> str:
    """An action's JSON as a short phrase: ``{"type": "bid", "sun": 9}`` -> "bid sun 9".

    Engines describe actions with self-explaining keys (docs/ra-json.md); this reads any
    of them, so plugin games get readable moves too."""
    words = [str(move.get("type", "move")).replace("_", " ")]
    for key, value in move.items():
        if key == "type":
            continue
        if isinstance(value, list):
            value = ", ".join(str(v).replace("_", " ") for v in value) or "none"
        elif value is None:
            value = "none"
        words.append(f"{key.replace('_', ' ')} {str(value).replace('_', ' ')}")
    return " ".join(words)


def start_state(record: GameRecord, game: Game | None = None) -> GameState:
    """The record's game at its first decision, from the engine's own record (``game``:
    the record's engine, when the caller has it already; discovery finds it otherwise)."""
    if game is None:
        from arena.plugins import load_game

        game = load_game(record.game)
    # what the engine's own record leaves out, the game record says (except the seed: a
    # secret deal's is in neither, and the game starts from the recorded draws)
    engine = {"num_players": record.num_players, "options": record.options,
              **record.engine}
    try:
        return game.start_from_record(engine)
    except (GameError, TypeError, ValueError) as problem:
        raise ArenaError(f"the {record.game} engine cannot set up this game: {problem}") from None


def positions(record: GameRecord, game: Game | None = None) -> list[dict[str, JSON]]:
    """One entry per decision, then one for the end: ``decision`` (1-based, as in the
    record's failures and comments), ``seat``, ``move`` (words), ``view`` (the acting
    seat's observation before it moved; at the end, seat 0's view of the final board)."""
    state = start_state(record, game)
    steps = record.engine.get("actions")
    if not isinstance(steps, list):
        raise ArenaError(f"game {record.game_id or '?'} has no list of actions to replay")
    entries: list[dict[str, JSON]] = []
    for number, step in enumerate(steps, start=1):
        seat = state.current_player()
        try:
            action = int(step["action"])
            if seat == TERMINAL or int(step["seat"]) != seat:
                raise ValueError(f"the record has seat {step['seat']} move, the engine {seat}")
            view = state.observation(seat)
            move = state.action_to_json(action)
            state.apply_action(action)
        except (GameError, KeyError, TypeError, ValueError) as problem:
            raise ArenaError(
                f"game {record.game_id or '?'} does not replay at decision {number}: {problem}"
            ) from None
        entries.append({"decision": number, "seat": seat, "move": describe_action(move),
                        "view": view})
    entries.append({"decision": len(steps) + 1, "seat": None, "move": None,
                    "view": state.observation(0)})
    return entries


def diff(old: JSON, new: JSON, path: list[JSON] | None = None) -> Patch:
    """The smallest list of [path, value] / [path] edits that turns ``old`` into ``new``
    (dicts by key, lists of equal length by index, anything else whole)."""
    path = path or []
    if isinstance(old, dict) and isinstance(new, dict):
        patch: Patch = []
        for key, value in new.items():
            if key not in old:
                patch.append([[*path, key], value])
            else:
                patch += diff(old[key], value, [*path, key])
        patch += [[[*path, key]] for key in old if key not in new]
        return patch
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        patch = []
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            patch += diff(before, after, [*path, index])
        return patch
    return [] if old == new and type(old) is type(new) else [[path, new]]


def apply_patch(value: JSON, patch: Patch) -> JSON:
    """``diff``'s inverse, as the page does it (kept here so the tests can prove it)."""
    import copy

    value = copy.deepcopy(value)
    for edit in patch:
        path = edit[0]
        if not path:
            value = copy.deepcopy(edit[1])
            continue
        target = value
        for key in path[:-1]:
            target = target[key]
        if len(edit) == 1:
            del target[path[-1]]
        else:
            target[path[-1]] = copy.deepcopy(edit[1])
    return value


def page_data(record: GameRecord, game: Game | None = None) -> dict[str, JSON]:
    """Everything the replay page shows, as compact JSON (docs/viewer.md)."""
    entries = positions(record, game)
    frames = []
    previous: JSON = None
    for entry in entries:
        view = entry.pop("view")
        entry["patch"] = diff(previous, view) if previous is not None else [[[], view]]
        previous = view
        frames.append(entry)
    return {
        "game": record.game,
        "game_id": record.game_id,
        "seed": record.seed,
        "round": record.round,
        "players": [dict(player) for player in record.players],
        "scores": [float(s) for s in record.scores],
        "placements": list(record.placements),
        "failures": [dict(failure) for failure in record.failures],
        "incidents": [dict(incident) for incident in record.incidents],
        "comments": [dict(comment) for comment in record.comments],
        "epochs": record.engine.get("epochs", []),
        "frames": frames,
    }
