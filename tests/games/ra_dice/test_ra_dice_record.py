"""Options, observations, saved states, records, replays and the story of a game."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from ra_dice_helpers import make_state, matching, moves, play, stop

from arena.games.base import GameError, GameOptionError, ReplayError
from arena.games.ra_dice import GAME
from arena.games.ra_dice.board import DEFAULT_BOARD
from arena.games.ra_dice.state import RaDiceState
from arena.plugins import load_game


def random_game(players: int, seed: int, steps: int | None = None) -> RaDiceState:
    """Random legal choices from ``seed`` (all of them, or the first ``steps``)."""
    state = GAME.new_game(players, seed)
    rng = random.Random(seed)
    taken = 0
    while not state.is_terminal() and (steps is None or taken < steps):
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        taken += 1
    return state


# ----------------------------------------------------------------------- options


def test_the_game_is_registered_and_describes_its_options() -> None:
    assert load_game("ra_dice") is GAME
    described = GAME.describe()
    assert described["name"] == "ra_dice" and described["title"] == "Ra: The Dice Game"
    assert (described["min_players"], described["max_players"]) == (2, 4)
    assert described["options"] == {"edition": "2009", "board": DEFAULT_BOARD}
    json.dumps(described)


@pytest.mark.parametrize("players", [1, 5, 0, "4", None, 2.0])
def test_bad_player_counts_are_refused(players: Any) -> None:
    with pytest.raises(GameOptionError, match="2-4 players"):
        GAME.new_game(players, 1)


@pytest.mark.parametrize("seed", ["1", 1.5, None, True])
def test_bad_seeds_are_refused(seed: Any) -> None:
    with pytest.raises(GameOptionError, match="seed"):
        GAME.new_game(3, seed)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"colour": "red"}, "keys must be 'edition' and 'board'"),
        ({"board": {"rows": 5}}, "unknown keys"),
        ({"board": []}, "'board' must be an object"),
        ({"board": {"track_top": 0}}, "track_top must be a whole number from 1"),
        ({"board": {"track_top": True}}, "track_top"),
        ({"board": {"civilization_capacity": 0}}, "civilization_capacity"),
        ({"board": {"monument_columns": [["red"]] * 8}}, r"monument_columns\[0\]"),
        ({"board": {"monument_columns": [DEFAULT_BOARD["monument_columns"][0]] * 8}},
         "different order"),
        ({"board": {"monument_columns": DEFAULT_BOARD["monument_columns"][:7]}}, "8 columns"),
        ({"board": {"sun_track": {"last_space": 10}}}, "sun_track must be"),
        ({"board": {"sun_track": {"last_space": 10, "start": {"2": 1, "3": 1}}}}, '"4"'),
        ({"board": {"sun_track": {"last_space": 10, "start": {"2": 1, "3": 1, "4": 10}}}},
         "start.4 must be a whole number from 0 to 9"),
    ],
)
def test_bad_board_options_are_refused_with_a_clear_message(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(GameOptionError, match=message):
        GAME.new_game(4, 1, options)


def test_board_options_change_the_game() -> None:
    options = {"board": {"civilization_capacity": 1, "track_top": 8,
                         "sun_track": {"last_space": 5, "start": {"2": 1, "3": 2, "4": 3}}}}
    state = make_state(4, "CCCPP", options=options,
                       setup=lambda s: s.civilization.__setitem__(0, 0b10))
    assert state.ra == 3 and state.board.ra_end == 5
    stop(state)
    assert [m["colours"] for m in moves(state) if m.get("what") == "civilization"] == [
        ["yellow"], ["green"]]  # red is full with one marker
    state.pharaoh[0] = 6
    assert [m["spaces"] for m in moves(state) if m.get("what") == "pharaoh"] == [2]
    obs = state.observation(0)
    assert obs["civilization_capacity"] == 1 and obs["board"]["track_top"] == 8
    assert GAME.new_game(4, 1, options).record()["options"]["board"]["track_top"] == 8


# ------------------------------------------------------------------ observation


def test_observation_shows_every_public_fact_and_no_future_dice() -> None:
    state = make_state(3, "SPNCM")
    obs = state.observation(2)
    text = json.dumps(obs)
    assert obs["seat"] == 2 and obs["current_player"] == 0 and obs["phase"] == "roll"
    assert obs["rerolls_left"] == 2 and obs["epoch"] == 1
    assert [d["face"] for d in obs["dice"]] == ["sun", "pharaoh", "nile", "civilization",
                                                 "monument"]
    assert obs["scores"] == [10, 11, 12]
    assert obs["ra"] == {"position": 4, "start": 4, "last_space": 16}
    assert len(obs["monuments"]) == 8 and all(len(column) == 5 for column in obs["monuments"])
    assert set(obs["civilization"]) == {"red", "yellow", "green", "blue", "purple"}
    assert "seed" not in text and "counter" not in text
    play(state, type="reroll", dice=["yellow"])
    assert state.observation(0)["rerolls_left"] == 1


def test_observation_marks_used_dice_and_owned_spaces() -> None:
    state = make_state(2, "MPPPP")
    stop(state)
    play(state, what="monument", column=1)
    obs = state.observation(1)
    assert [d["used"] for d in obs["dice"]] == [True, False, False, False, False]
    row = GAME.default_options()["board"]["monument_columns"][1].index("red")
    assert obs["monuments"][1][row] == 0
    assert obs["monuments_placed_this_turn"] == 1


@pytest.mark.parametrize("seat", [-1, 3, "0", None])
def test_observation_of_a_seat_that_does_not_exist(seat: Any) -> None:
    with pytest.raises(GameError, match="no seat"):
        make_state(3, "PPPPP").observation(seat)


# --------------------------------------------------------------- states, records


def test_same_seed_same_game_and_different_seeds_differ() -> None:
    assert random_game(3, 7).record() == random_game(3, 7).record()
    assert random_game(3, 7).record()["events"] != random_game(3, 8).record()["events"]


def test_saved_state_continues_identically() -> None:
    middle = random_game(4, 11, steps=120)
    saved = json.loads(json.dumps(middle.to_json()))
    restored = GAME.state_from_json(saved)
    assert restored.to_json() == middle.to_json()
    rng_a, rng_b = random.Random(5), random.Random(5)
    for state, rng in ((middle, rng_a), (restored, rng_b)):
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    assert restored.record() == middle.record()


def test_broken_saved_states_are_refused() -> None:
    saved = random_game(2, 3, steps=10).to_json()
    for key in ("faces", "seed", "phase"):
        broken = copy.deepcopy(saved)
        del broken[key]
        with pytest.raises(GameError, match="not a valid ra_dice state"):
            GAME.state_from_json(broken)
    with pytest.raises(GameError):
        GAME.state_from_json({**saved, "game": "ra"})


def test_clone_is_independent() -> None:
    state = random_game(3, 4, steps=30)
    twin = state.clone()
    before = state.to_json()
    while not twin.is_terminal():
        twin.apply_action(twin.legal_actions()[-1])
    assert state.to_json() == before
    assert twin.is_terminal() and not state.is_terminal()


def test_reseed_changes_only_the_future_rolls() -> None:
    state = random_game(3, 4, steps=30)
    futures = []
    for seed in (5, 5, 6):
        sample = state.clone()
        sample.reseed(seed)
        assert sample.observation(0) == state.observation(0)
        for _ in range(40):
            sample.apply_action(sample.legal_actions()[0])
        futures.append([e for e in sample.record()["events"] if e["type"] == "roll"])
    assert futures[0] == futures[1]
    assert futures[0] != futures[2]


def test_record_holds_seed_actions_rolls_epoch_scores_and_result() -> None:
    state = random_game(4, 21)
    record = json.loads(json.dumps(state.record()))
    assert record["game"] == "ra_dice" and record["seed"] == 21 and record["num_players"] == 4
    assert record["options"] == {"edition": "2009", "board": DEFAULT_BOARD}
    assert all({"seat", "action", "move"} <= set(step) for step in record["actions"])
    rolls = [e for e in record["events"] if e["type"] == "roll"]
    assert rolls and all(len(e["dice"]) == 5 for e in rolls)
    assert [e["epoch"] for e in record["epochs"]] == [1, 2, 3]
    assert set(record["epochs"][0]["points"]) == {"pharaoh", "nile", "civilization"}
    assert set(record["epochs"][2]["points"]) == {"pharaoh", "nile", "civilization",
                                                  "monuments"}
    assert record["final_scores"] == record["epochs"][2]["scores"]
    assert sorted(record["placements"]) == [1, 2, 3, 4]


def test_replay_rebuilds_the_game_exactly() -> None:
    state = random_game(3, 5)
    replayed = GAME.replay(json.loads(json.dumps(state.record())))
    assert replayed.to_json() == state.to_json()
    partial = random_game(3, 5, steps=77)
    assert GAME.replay(partial.record()).to_json() == partial.to_json()


def _tampered(record: dict[str, Any], change: Any) -> dict[str, Any]:
    broken = copy.deepcopy(record)
    change(broken)
    return broken


def test_replay_refuses_records_the_engine_does_not_reproduce() -> None:
    record = random_game(3, 5).record()
    first_move = next(i for i, e in enumerate(record["events"]) if e["type"] == "roll")

    def other_roll(r: dict[str, Any]) -> None:
        dice = r["events"][first_move]["dice"]
        dice["red"] = "ankh" if dice["red"] != "ankh" else "sun"

    cases = [
        (lambda r: r["actions"][0].update(seat=1), "recorded for seat 1"),
        (lambda r: r["actions"][0].update(action=999), "not legal"),
        (lambda r: r["actions"].append(r["actions"][-1]), "already over"),
        (other_roll, r"events\[\d+\]"),
        (lambda r: r.update(seed=6), "engine gives|not legal"),
        (lambda r: r.update(final_scores=[0, 0, 0]), "final_scores"),
        (lambda r: r.update(game="ra"), "not a ra_dice game"),
        (lambda r: r.pop("actions"), "not a ra_dice record"),
        (lambda r: r.update(num_players=7), "cannot be set up"),
        (lambda r: r["actions"].__setitem__(0, 3), "is not {seat, action}"),
    ]
    for change, message in cases:
        with pytest.raises(ReplayError, match=message):
            GAME.replay(_tampered(record, change))


def test_narration_tells_the_game() -> None:
    record = random_game(2, 9).record()
    lines = GAME.narrate(record)
    text = "\n".join(lines)
    assert lines[0].startswith("Ra: The Dice Game, 2 players, seed 9")
    for epoch in (1, 2, 3):
        assert f"Epoch {epoch} ends" in text
    assert "Seat 0's turn" in text and "rolls:" in text and "monuments" in text
    assert lines[-1].startswith("Final: ")


def test_every_legal_action_has_a_distinct_self_explaining_description() -> None:
    state = make_state(4, "MMANC")
    stop(state)
    described = [json.dumps(m, sort_keys=True) for m in moves(state)]
    assert len(set(described)) == len(described)
    assert matching(state, type="done")
    assert all("type" in m for m in moves(state))


def test_replay_accepts_a_bare_record_of_seats_and_actions() -> None:
    state = random_game(4, 13)
    record = state.record()
    bare = {"game": "ra_dice", "seed": 13, "num_players": 4,
            "actions": [{"seat": s["seat"], "action": s["action"]} for s in record["actions"]]}
    assert GAME.replay(bare).record() == record
    wrong = copy.deepcopy(record)
    wrong["actions"][3]["move"] = {"type": "stop"} if wrong["actions"][3]["move"] != {
        "type": "stop"} else {"type": "done"}
    with pytest.raises(ReplayError, match=r"actions\[3\]\.move"):
        GAME.replay(wrong)


def test_changing_an_observation_or_a_saved_state_cannot_change_the_game() -> None:
    state = random_game(2, 2, steps=5)
    before = state.to_json()
    obs = state.observation(0)
    obs["board"]["monument_columns"].reverse()
    obs["scores"].append(99)
    saved = state.to_json()
    saved["options"]["board"]["sun_track"]["last_space"] = 2
    saved["scores"][0] = 99
    assert state.to_json() == before
    assert GAME.new_game(2, 2).observation(0)["board"] == GAME.default_options()["board"]


def test_full_options_fill_every_default_for_records_and_bots() -> None:
    """A league file may set any board parameter alone; the record and the bots get the
    whole board and the edition."""
    full = GAME.full_options({"board": {"track_top": 10}})
    assert full["edition"] == "2009"
    assert full["board"] == {**DEFAULT_BOARD, "track_top": 10}
    assert GAME.full_options(None) == GAME.default_options()
    with pytest.raises(GameOptionError, match="edition must be '2009', not '1999'"):
        GAME.full_options({"edition": "1999"})
    state = GAME.new_game(3, 4, {"board": {"track_top": 10}})
    assert state.record()["options"] == full
    assert state.observation(0)["edition"] == "2009"


def test_a_record_without_its_seed_replays_from_its_recorded_rolls() -> None:
    # a secret deal's record keeps no seed (arena/deals.py): the replay rolls what the
    # record says was rolled, and still refuses a record its actions do not reproduce
    for players, seed in ((2, 1), (3, 5), (4, 9)):
        state = random_game(players, seed)
        record = state.record()
        record.pop("seed")
        replayed = GAME.replay(record)
        assert replayed.record()["events"] == state.record()["events"]
        assert replayed.returns() == state.returns()
    record = random_game(3, 5).record()
    record.pop("seed")
    rolls = [i for i, e in enumerate(record["events"]) if e["type"] == "roll"]
    dice = record["events"][rolls[3]]["dice"]
    dice["red"] = "ankh" if dice["red"] != "ankh" else "sun"
    with pytest.raises(ReplayError, match=r"events\[\d+\]|not legal"):
        GAME.replay(record)
    cut = random_game(3, 5).record()
    cut.pop("seed")
    del cut["events"][rolls[1]:]  # the actions need rolls it lacks
    with pytest.raises(ReplayError, match="roll the dice more often than it recorded"):
        GAME.replay(cut)
