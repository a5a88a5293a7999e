"""Epoch ends (Ra track full, suns used), what stays and goes, the next start player,
the end of the game and its tie-break."""

from __future__ import annotations

import pytest
from ra_helpers import act, boxed, held

from arena.games.base import IllegalActionError
from arena.games.ra import GAME, RaState
from arena.games.ra.scenario import build_state
from arena.games.ra.tiles import RA_TRACK_LENGTH


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_last_ra_tile_ends_the_epoch_at_once(players: int) -> None:
    length = RA_TRACK_LENGTH[players]
    assert length == {2: 6, 3: 8, 4: 9, 5: 10}[players]
    state = build_state(players, ra_track=length - 2, draws=["gold", "ra", "ra"],
                        track=["nile", "pharaoh"], current=0)
    act(state, type="draw")  # gold to the track
    act(state, type="draw")  # Ra tile: not the last one, an auction
    assert state.phase == 2 and state.ra_count == length - 1
    while state.phase == 2:
        act(state, type="pass")
    seat = state.current_player()
    act(state, type="draw")  # the last Ra tile: no auction, the epoch ends
    assert state.epoch == 2 and state.phase == 0
    assert state.ra_count == 0 and state.track == []
    assert boxed(state, "ra") == length
    assert boxed(state, "gold") == 1 and boxed(state, "nile") == 1
    events = state.record()["events"]
    assert events[-2] == {"type": "draw", "epoch": 1, "seat": seat, "tile": "ra",
                          "ra_track": length}
    assert events[-1]["type"] == "epoch_end" and events[-1]["reason"] == "ra_track_full"
    assert events[-1]["track_discarded"] == ["nile", "pharaoh", "gold"]


def test_epoch_end_keeps_pharaohs_niles_monuments_and_turns_suns_up() -> None:
    keep = {"pharaoh": 2, "nile": 3, "temple": 2}
    go = {"god": 1, "gold": 1, "flood": 1, "art": 1, "astronomy": 2}
    state = build_state(
        3, suns=[[5, 8], [3], [10]], used_suns=[[2, 13], [6, 9, 12], [4, 7, 11]],
        tiles=[{**keep, **go}], ra_track=7, draws=["ra"], current=0, center_sun=1,
    )
    act(state, type="draw")
    for name, count in keep.items():
        assert held(state, 0, name) == count
    for name in go:
        assert held(state, 0, name) == 0
    assert state.up == [[2, 5, 8, 13], [3, 6, 9, 12], [4, 7, 10, 11]]
    assert state.down == [[], [], []]
    assert state.center == 1
    # the holder of the highest sun (13, seat 0) starts the next epoch
    assert state.current_player() == 0
    points = state.record()["epochs"][0]["points"][0]
    assert points == {"gods": 2, "pharaohs": 5, "nile": 4, "gold": 3, "civilizations": 0,
                      "monuments": 0, "suns": 0}


def test_next_epoch_starts_with_the_highest_sun_even_if_face_down() -> None:
    state = build_state(  # 16 is not a 2-player sun: it makes the winner the next epoch's start
        2, suns=[[9], [2]], used_suns=[[5, 6], [3, 4, 7, 8]], current=0, center_sun=16,
    )
    act(state, type="invoke_ra")
    act(state, type="pass")  # seat 1 passes
    act(state, type="bid", sun=9)  # seat 0 must bid; wins the 16 face down
    assert state.down[0] == [5, 6, 16]
    assert state.current_player() == 1
    act(state, type="invoke_ra")
    act(state, type="bid", sun=2)  # seat 0 has no face-up sun: seat 1 alone, must bid
    assert state.epoch == 2
    assert state.current_player() == 0  # 16 is now face up with seat 0


def test_epoch_ends_when_the_last_face_up_sun_is_used() -> None:
    state = build_state(
        2, suns=[[9], [2]], used_suns=[[5, 6], [3, 4, 7, 8]], current=1,
        track=["gold"],
    )
    act(state, type="invoke_ra")  # seat 1
    act(state, type="bid", sun=9)  # seat 0 outbids
    assert state.epoch == 1 and state.current_player() == 1  # seat 1 still has the 2
    act(state, type="invoke_ra")
    act(state, type="bid", sun=2)
    assert state.epoch == 2
    assert sorted(state.up[0] + state.up[1]) == [1, 3, 4, 5, 6, 7, 8, 9]  # 2 is the centre
    assert state.center == 2
    assert state.record()["epochs"][0]["reason"] == "suns_used"


def finish_epoch_three(scores: list[int], suns: list[list[int]]) -> RaState:
    state = build_state(2, suns=suns, used_suns=[[], []], scores=scores, epoch=3,
                        ra_track=5, draws=["ra"], current=0,
                        tiles=[{"pharaoh": 1, "art": 1}, {"pharaoh": 1, "art": 1}])
    act(state, type="draw")
    return state


def test_final_tie_break_is_the_highest_sun() -> None:
    # Equal sun sums and holdings: equal scores; seat 1 holds the 9 and wins.
    state = finish_epoch_three([20, 20], [[4, 5, 6, 7], [2, 3, 8, 9]])
    assert state.is_terminal()
    assert state.returns() == [20.0, 20.0]
    assert state.placements() == [2, 1]
    assert state.record()["final"]["placements"] == [2, 1]


def test_final_scoring_counts_monuments_and_suns_once() -> None:
    state = finish_epoch_three([20, 20], [[2, 5, 6, 9], [3, 4, 7, 8]])
    # sums 22 vs 22: nobody scores for suns; scores unchanged, 9 wins the tie
    assert state.returns() == [20.0, 20.0] and state.placements() == [1, 2]
    state = finish_epoch_three([20, 20], [[2, 5, 8, 9], [3, 4, 6, 7]])
    assert state.returns() == [25.0, 15.0]


def test_monuments_score_only_after_the_third_epoch() -> None:
    tiles = [{"pyramid": 3, "art": 1, "writing": 1, "astronomy": 1}, {"art": 1}]
    first = build_state(2, tiles=tiles, ra_track=5, draws=["ra"], current=0)
    act(first, type="draw")
    assert first.record()["epochs"][0]["points"][0]["monuments"] == 0
    assert held(first, 0, "pyramid") == 3
    third = build_state(2, tiles=tiles, ra_track=5, draws=["ra"], current=0, epoch=3)
    act(third, type="draw")
    assert third.record()["epochs"][0]["points"][0]["monuments"] == 1 + 5


def test_results_only_when_over() -> None:
    state = GAME.new_game(3, seed=1)
    with pytest.raises(IllegalActionError):
        state.returns()
    with pytest.raises(IllegalActionError):
        state.placements()
