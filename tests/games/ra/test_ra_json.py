"""The JSON faces of the engine: actions, observations, records, saved states, errors,
narration and determinisation of special phases."""

from __future__ import annotations

import copy
import json
import random

import pytest
from ra_helpers import act, legal_json, play_randomly

from arena.games.base import GameError, GameOptionError, ReplayError
from arena.games.ra import GAME, RaState, determinize
from arena.games.ra.scenario import build_state


def finished_game(players: int = 4, seed: int = 5) -> RaState:
    state = GAME.new_game(players, seed)
    play_randomly(state, seed)
    return state


def test_action_json_is_self_explaining() -> None:
    state = build_state(4, tiles=[{"god": 1}], track=["gold", "unrest"], current=0)
    assert legal_json(state) == [
        {"type": "draw"},
        {"type": "invoke_ra"},
        {"type": "god", "slot": 0, "tile": "gold"},
        {"type": "god", "slot": 1, "tile": "unrest"},
    ]
    act(state, type="invoke_ra")
    assert legal_json(state) == [
        {"type": "bid", "sun": 3}, {"type": "bid", "sun": 7}, {"type": "bid", "sun": 12},
        {"type": "pass"},
    ]


def test_observation_has_all_public_information() -> None:
    state = build_state(4, tiles=[{"pharaoh": 2}], track=["gold"], current=0, ra_track=3)
    act(state, type="invoke_ra")
    act(state, type="bid", sun=7)
    obs = state.observation(2)
    assert obs["seat"] == 2 and obs["current_player"] == 2
    assert obs["phase"] == "auction" and obs["epoch"] == 1
    assert obs["ra_player"] == 0 and obs["ra_track"] == 3 and obs["ra_track_length"] == 9
    assert obs["auction_track"] == ["gold"] and obs["center_sun"] == 1
    assert obs["auction"] == {
        "kind": "invoked", "high_bid": 7, "high_bidder": 1,
        "bids": [{"seat": 1, "sun": 7}], "to_bid": [2, 3, 0], "ra_must_bid": False,
    }
    assert obs["players"][0] == {"seat": 0, "suns": [2, 6, 13], "used_suns": [],
                                 "score": 10, "tiles": {"pharaoh": 2}}
    assert obs["bag"]["ra"] == 27 and obs["bag"]["pharaoh"] == 23
    assert obs["bag_size"] == 180 - 3 - 2 - 1
    assert sum(obs["bag"].values()) == obs["bag_size"]
    json.dumps(obs)
    with pytest.raises(GameError):
        state.observation(4)


def test_record_contents() -> None:
    state = finished_game()
    record = state.record()
    assert record["seed"] == 5 and record["num_players"] == 4
    assert record["options"] == {"edition": "classic"}  # the default, always recorded
    assert len(record["actions"]) == len(state.history)
    first = record["actions"][0]
    assert set(first) == {"seat", "action", "json"}
    kinds = {event["type"] for event in record["events"]}
    assert {"draw", "auction", "epoch_end"} <= kinds
    auction = next(e for e in record["events"] if e["type"] == "auction")
    assert set(auction) >= {"ra_player", "kind", "bids", "winner", "sun_paid", "sun_won", "lot"}
    assert [e["epoch"] for e in record["epochs"]] == [1, 2, 3]
    for epoch in record["epochs"]:
        assert len(epoch["points"]) == 4
        assert set(epoch["points"][0]) == {"gods", "pharaohs", "nile", "gold",
                                           "civilizations", "monuments", "suns"}
    assert record["final"]["placements"] == state.placements()
    json.dumps(record)


def test_replay_rejects_a_tampered_record() -> None:
    record = finished_game().record()
    wrong_seat = copy.deepcopy(record)
    wrong_seat["actions"][3]["seat"] = (wrong_seat["actions"][3]["seat"] + 1) % 4
    with pytest.raises(ReplayError, match="action 3"):
        GAME.replay(wrong_seat)
    wrong_action = copy.deepcopy(record)
    wrong_action["actions"][0]["action"] = 99
    wrong_action["actions"][0].pop("json")
    with pytest.raises(ReplayError, match="action 0"):
        GAME.replay(wrong_action)
    wrong_events = copy.deepcopy(record)
    auction = next(e for e in wrong_events["events"] if e["type"] == "auction")
    auction["sun_won"] = 99
    with pytest.raises(ReplayError, match="events"):
        GAME.replay(wrong_events)
    with pytest.raises(ReplayError):
        GAME.replay({"num_players": 9, "seed": 1, "actions": []})
    with pytest.raises(ReplayError):
        GAME.replay({"seed": 1})


def test_a_partial_record_replays_to_the_same_position() -> None:
    state = GAME.new_game(3, 11)
    rng = random.Random(3)
    for _ in range(40):
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    assert GAME.replay(state.record()).to_json() == state.to_json()


def test_a_record_without_its_seed_replays_from_its_recorded_draws() -> None:
    # a secret deal's record keeps no seed (arena/deals.py): the replay deals the suns
    # and draws the record says, in order, and refuses what its actions do not reproduce
    for players in (2, 3, 4, 5):
        for edition in ("classic", "2023"):
            state = GAME.new_game(players, 100 + players, {"edition": edition})
            rng = random.Random(players)
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            record = state.record()
            record.pop("seed")
            replayed = GAME.replay(record)
            assert replayed.record()["events"] == record["events"]
            assert replayed.returns() == state.returns()
            assert replayed.placements() == state.placements()
    draws = [i for i, e in enumerate(record["events"]) if e["type"] == "draw"]
    other = copy.deepcopy(record)
    other["events"][draws[0]]["tile"] = "ra" if other["events"][draws[0]]["tile"] != "ra" \
        else "gold"
    with pytest.raises(ReplayError):
        GAME.replay(other)
    cut = copy.deepcopy(record)
    del cut["events"][draws[5]:]  # the actions need draws it lacks
    with pytest.raises(ReplayError, match="draw more tiles than it recorded"):
        GAME.replay(cut)
    too_many = copy.deepcopy(record)
    too_many["events"][:0] = [{"type": "draw", "tile": "ra"}] * 40
    with pytest.raises(ReplayError, match="more ra tiles than the bag holds"):
        GAME.replay(too_many)


def test_new_game_validates_its_arguments() -> None:
    for bad in (1, 6, "4", 4.0):
        with pytest.raises(GameOptionError, match="2-5 players"):
            GAME.new_game(bad, 1)  # type: ignore[arg-type]
    with pytest.raises(GameOptionError, match="seed"):
        GAME.new_game(4, "x")  # type: ignore[arg-type]
    with pytest.raises(GameOptionError, match="no option epochs; its only option is edition"):
        GAME.new_game(4, 1, {"epochs": 2})
    with pytest.raises(GameOptionError, match="'classic' or '2023', not '2024'"):
        GAME.new_game(4, 1, {"edition": "2024"})
    with pytest.raises(GameOptionError, match="must be a table"):
        GAME.new_game(4, 1, ["edition"])  # type: ignore[arg-type]
    assert GAME.new_game(4, 1, {}).options == {"edition": "classic"}
    assert GAME.new_game(4, 1).options == {"edition": "classic"}
    assert GAME.new_game(4, 1, {"edition": "2023"}).options == {"edition": "2023"}


def test_same_seed_same_game() -> None:
    assert finished_game(5, 9).record() == finished_game(5, 9).record()
    assert finished_game(5, 9).record() != finished_game(5, 10).record()


def test_state_from_json_rejects_damage() -> None:
    data = GAME.new_game(4, 1).to_json()
    with pytest.raises(GameError, match="not a saved Ra state"):
        GAME.state_from_json({"game": "ra_dice"})
    broken = dict(data)
    del broken["holdings"]
    with pytest.raises(GameError, match="damaged"):
        GAME.state_from_json(broken)
    with pytest.raises(GameError, match="format"):
        GAME.state_from_json({**data, "format": 99})
    with pytest.raises(GameError, match="180"):
        GAME.state_from_json({**data, "bag": data["bag"][1:]})


def test_narration_tells_the_game() -> None:
    record = finished_game(4, 2).record()
    lines = GAME.narrate(record)
    text = "\n".join(lines)
    for needle in ("Epoch 1: the Old Kingdom", "Epoch 3: the New Kingdom", "Final ranking",
                   "wins with", "ends:"):
        assert needle in text
    winner = record["final"]["placements"].index(1)
    assert f"1. Seat {winner}: {record['final']['scores'][winner]} points" in text
    named = GAME.narrate({**record, "players": ["ann", "bob", "cy", "dee"]})
    assert any("ann" in line for line in named)


@pytest.mark.parametrize("phase", ["disaster", "god"])
def test_determinize_in_special_phases(phase: str) -> None:
    if phase == "disaster":
        state = build_state(4, tiles=[{"art": 2, "writing": 1}], track=["unrest", "unrest"],
                            current=0)
        act(state, type="invoke_ra")
        for _ in range(3):
            act(state, type="pass")
        act(state, type="bid", sun=2)
    else:
        state = build_state(4, tiles=[{"god": 2}], track=["gold", "nile"], current=0)
        act(state, type="god", tile="gold")
    obs = state.observation(1)
    assert obs["phase"] == phase
    sample = determinize(obs, 1, seed=3)
    assert sample.observation(1) == obs
    assert sample.tiles_accounted() == state.tiles_accounted()
    assert sample.legal_actions() == state.legal_actions()
    action = state.legal_actions()[0]
    state.apply_action(action)
    sample.apply_action(action)
    assert sample.observation(1) == state.observation(1)


def test_reseed_changes_only_the_hidden_future() -> None:
    state = GAME.new_game(4, 1)
    futures = []
    for seed in (5, 5, 6):
        sample = state.clone()
        sample.reseed(seed)
        assert sample.observation(0) == state.observation(0)
        for _ in range(10):
            sample.apply_action(0 if 0 in sample.legal_actions() else 27)
        futures.append([e for e in sample.record()["events"] if e["type"] == "draw"])
    assert futures[0] == futures[1]
    assert futures[0] != futures[2]


def test_determinize_rejects_a_foreign_observation() -> None:
    obs = GAME.new_game(3, 1).observation(0)
    with pytest.raises(GameError):
        determinize(obs, 1, seed=0)
    with pytest.raises(GameError):
        determinize({"game": "ra", "seat": 0}, 0, seed=0)
