"""Disasters: automatic ones (funeral, drought), choices (unrest, earthquake), disasters
in a won lot, disasters taken by a god, several disasters at once."""

from __future__ import annotations

from typing import Any

from ra_helpers import act, boxed, held, legal_json

from arena.games.ra import RaState
from arena.games.ra.scenario import build_state


def win_lot(track: list[str], tiles: dict[str, int], **kwargs: Any) -> RaState:
    """Seat 0 invokes Ra on ``track`` and wins it with sun 2 (everybody else passes)."""
    state = build_state(4, track=track, tiles=[tiles], current=0, **kwargs)
    act(state, type="invoke_ra")
    for _ in range(3):
        act(state, type="pass")
    act(state, type="bid", sun=2)
    return state


def test_drought_takes_floods_first() -> None:
    state = win_lot(["drought"], {"flood": 3, "nile": 2})
    assert held(state, 0, "flood") == 1 and held(state, 0, "nile") == 2
    assert boxed(state, "drought") == 1 and boxed(state, "flood") == 2


def test_drought_with_one_flood_then_a_nile() -> None:
    state = win_lot(["drought"], {"flood": 1, "nile": 4})
    assert held(state, 0, "flood") == 0 and held(state, 0, "nile") == 3


def test_drought_without_floods_takes_niles() -> None:
    state = win_lot(["drought"], {"nile": 4})
    assert held(state, 0, "nile") == 2
    event = [e for e in state.record()["events"] if e["type"] == "disaster"][0]
    assert event == {"type": "disaster", "epoch": 1, "seat": 0, "disaster": "drought",
                     "lost": {"nile": 2}}


def test_funeral_takes_up_to_two_pharaohs() -> None:
    assert held(win_lot(["funeral"], {"pharaoh": 5}), 0, "pharaoh") == 3
    assert held(win_lot(["funeral"], {"pharaoh": 1}), 0, "pharaoh") == 0
    state = win_lot(["funeral"], {})
    assert state.current_player() == 1  # nothing to lose, no decision


def test_disasters_strike_after_the_lot_is_placed() -> None:
    # The pharaoh won in the same lot is lost to the funeral.
    state = win_lot(["pharaoh", "funeral", "gold"], {})
    assert held(state, 0, "pharaoh") == 0 and held(state, 0, "gold") == 1


def test_unrest_choice_one_tile_per_decision() -> None:
    state = win_lot(["unrest"], {"astronomy": 2, "art": 1, "writing": 1})
    assert state.current_player() == 0
    assert state.observation(1)["phase"] == "disaster"
    assert legal_json(state) == [
        {"type": "discard", "tile": "astronomy", "disaster": "unrest"},
        {"type": "discard", "tile": "writing", "disaster": "unrest"},
        {"type": "discard", "tile": "art", "disaster": "unrest"},
    ]
    act(state, type="discard", tile="art")
    assert state.observation(0)["disaster"]["to_lose"] == 1
    act(state, type="discard", tile="astronomy")
    assert held(state, 0, "astronomy") == 1 and held(state, 0, "writing") == 1
    assert held(state, 0, "art") == 0
    assert state.current_player() == 1  # back to the turn order


def test_unrest_without_a_real_choice_is_automatic() -> None:
    # one type only
    state = win_lot(["unrest"], {"astronomy": 3})
    assert held(state, 0, "astronomy") == 1 and state.current_player() == 1
    # two tiles, both must go
    state = win_lot(["unrest"], {"astronomy": 1, "art": 1})
    assert held(state, 0, "astronomy") == 0 and held(state, 0, "art") == 0
    # after one choice only one type is left: the second tile goes automatically
    state = win_lot(["unrest"], {"astronomy": 2, "art": 1})
    act(state, type="discard", tile="art")
    assert held(state, 0, "astronomy") == 1 and state.current_player() == 1


def test_earthquake_choice() -> None:
    state = win_lot(["earthquake"], {"pyramid": 3, "temple": 1})
    assert [c["tile"] for c in legal_json(state)] == ["pyramid", "temple"]
    act(state, type="discard", tile="pyramid")
    act(state, type="discard", tile="pyramid")
    assert held(state, 0, "pyramid") == 1 and held(state, 0, "temple") == 1
    assert boxed(state, "pyramid") == 2 and boxed(state, "earthquake") == 1


def test_several_disasters_in_one_lot() -> None:
    state = win_lot(
        ["unrest", "funeral", "unrest", "drought", "astronomy", "gold"],
        {"pharaoh": 3, "astronomy": 2, "nile": 1},
    )
    # No real choice anywhere: the funeral takes 2 pharaohs, the drought the only Nile,
    # the two unrests all 3 astronomies (the one just won included).
    assert held(state, 0, "pharaoh") == 1 and held(state, 0, "nile") == 0
    assert held(state, 0, "astronomy") == 0 and held(state, 0, "gold") == 1
    kinds = [e["disaster"] for e in state.record()["events"] if e["type"] == "disaster"]
    assert kinds == ["funeral", "drought", "unrest", "unrest"]
    assert state.current_player() == 1


def test_two_unrests_with_choices() -> None:
    state = win_lot(["unrest", "unrest"], {"astronomy": 3, "art": 2})
    decisions = 0
    while state.phase == 3:
        act(state, type="discard", tile="astronomy")
        decisions += 1
    # Astronomy, astronomy (first unrest), astronomy (second); then only art is left
    # and the second unrest's last tile goes without a decision.
    assert decisions == 3
    assert held(state, 0, "astronomy") == 0 and held(state, 0, "art") == 1


def test_disaster_taken_by_a_god_resolves_before_the_next_take_in_2023() -> None:
    # classic: after the turn's takes (test_ra_editions.py)
    state = build_state(
        4, tiles=[{"god": 2, "pharaoh": 2}], track=["funeral", "pharaoh", "gold"], current=0,
        edition="2023",
    )
    act(state, type="god", tile="funeral")
    assert held(state, 0, "pharaoh") == 0  # resolved at once
    assert state.phase == 1  # then the god follow-up
    act(state, type="god", tile="pharaoh")
    assert held(state, 0, "pharaoh") == 1 and held(state, 0, "god") == 0
    assert state.current_player() == 1


def test_god_taking_unrest_with_a_choice() -> None:
    state = build_state(
        4, tiles=[{"god": 1, "art": 1, "religion": 1, "writing": 1}], track=["unrest"], current=0
    )
    act(state, type="god", tile="unrest")
    act(state, type="discard", tile="religion")
    act(state, type="discard", tile="art")
    assert held(state, 0, "writing") == 1
    assert state.current_player() == 1
    assert sum(state.tiles_accounted()) == 180


def test_last_sun_used_then_disaster_then_epoch_end() -> None:
    # Seat 0's last sun wins a lot with unrest and a choice: the epoch ends only after.
    state = build_state(
        2, suns=[[9], []], used_suns=[[2, 5, 6], [3, 4, 7, 8]], current=0,
        tiles=[{"art": 1, "writing": 2}], track=["unrest"],
    )
    act(state, type="invoke_ra")
    act(state, type="bid", sun=9)
    assert state.phase == 3 and state.epoch == 1
    act(state, type="discard", tile="art")
    assert state.epoch == 2
