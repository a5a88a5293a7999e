"""Turns and auctions: each auction kind, bidding order, sun exchange, skipped players."""

from __future__ import annotations

import pytest
from ra_helpers import act, boxed, held, legal_json

from arena.games.base import IllegalActionError
from arena.games.ra import GAME
from arena.games.ra.scenario import build_state

# Default 4-player suns by seat: 0: 2 6 13, 1: 3 7 12, 2: 4 8 11, 3: 5 9 10.


def test_new_game_setup() -> None:
    for n, groups in {2: 2, 3: 3, 4: 4, 5: 5}.items():
        state = GAME.new_game(n, seed=7)
        assert len(state.up) == groups
        assert state.scores == [10] * n
        assert state.center == 1
        assert len(state.bag) == 180
        highest = max(max(s) for s in state.up)
        assert max(state.up[state.current_player()]) == highest
    two = GAME.new_game(2, seed=3)
    assert sorted(sum(two.up, [])) == [2, 3, 4, 5, 6, 7, 8, 9]
    five = GAME.new_game(5, seed=3)
    assert sorted(sum(five.up, [])) == list(range(2, 17))


def test_turn_choices_without_gods() -> None:
    state = build_state(4)
    assert state.current_player() == 0
    assert legal_json(state) == [{"type": "draw"}, {"type": "invoke_ra"}]


def test_drawing_a_tile_places_it_and_passes_the_turn() -> None:
    state = build_state(4, draws=["gold"])
    act(state, type="draw")
    assert state.track == [2]
    assert state.current_player() == 1


def test_ra_drawn_all_pass_tiles_stay() -> None:
    state = build_state(4, track=["gold", "pharaoh"], draws=["ra"], current=1)
    act(state, type="draw")
    assert state.ra_count == 1
    assert state.observation(0)["auction"]["kind"] == "ra_drawn"
    for seat in (2, 3, 0, 1):  # left of the Ra player, ending with him
        assert state.current_player() == seat
        assert {"type": "pass"} in legal_json(state)
        act(state, type="pass")
    assert state.observation(0)["auction_track"] == ["gold", "pharaoh"]  # the tiles stay
    assert state.center == 1
    assert state.current_player() == 2  # left of the Ra player


def test_invoked_ra_player_must_bid_if_all_others_pass() -> None:
    state = build_state(4, track=["gold"], current=1)
    act(state, type="invoke_ra")
    for _ in range(3):
        act(state, type="pass")
    assert state.current_player() == 1
    choices = legal_json(state)
    assert {"type": "pass"} not in choices
    assert choices == [{"type": "bid", "sun": s} for s in (3, 7, 12)]
    with pytest.raises(IllegalActionError):
        state.apply_action(27)  # PASS
    act(state, type="bid", sun=3)
    assert held(state, 1, "gold") == 1
    assert state.down[1] == [1]
    assert state.center == 3
    assert state.up[1] == [7, 12]


def test_invoked_ra_player_may_pass_after_another_bid() -> None:
    state = build_state(4, track=["gold"], current=1)
    act(state, type="invoke_ra")
    act(state, type="bid", sun=4)  # seat 2
    act(state, type="pass")  # seat 3
    act(state, type="pass")  # seat 0
    assert {"type": "pass"} in legal_json(state)
    act(state, type="pass")  # seat 1, the Ra player
    assert held(state, 2, "gold") == 1
    assert state.up[2] == [8, 11] and state.down[2] == [1] and state.center == 4
    assert state.current_player() == 2


def test_invoke_ra_on_empty_track_wins_the_sun_alone() -> None:
    state = build_state(4, current=0)
    act(state, type="invoke_ra")
    for _ in range(3):
        act(state, type="pass")
    act(state, type="bid", sun=2)
    assert state.down[0] == [1] and state.center == 2 and state.up[0] == [6, 13]
    assert all(count == 0 for count in state.hold[0])
    assert state.record()["events"][-1]["lot"] == []


def test_bids_must_rise_and_low_suns_pass_automatically() -> None:
    state = build_state(4, current=0)
    act(state, type="invoke_ra")
    assert state.current_player() == 1
    act(state, type="bid", sun=12)
    # Seat 2 (max 11) and seat 3 (max 10) cannot outbid: the Ra player decides next.
    assert state.current_player() == 0
    act(state, type="bid", sun=13)
    event = state.record()["events"][-1]
    assert event["type"] == "auction"
    assert [b["sun"] for b in event["bids"]] == [12, None, None, 13]
    assert [b.get("could_bid") for b in event["bids"]] == [None, False, False, None]
    assert event["winner"] == 0 and event["lot"] == [] and event["sun_won"] == 1
    assert state.center == 13 and state.down[0] == [1]
    assert state.current_player() == 1


def test_full_track_invoked_all_pass_discards_the_tiles() -> None:
    track = ["gold", "nile", "nile", "pharaoh", "art", "sphinx", "flood", "god"]
    state = build_state(4, track=track, current=2)
    assert legal_json(state) == [{"type": "invoke_ra"}]  # no drawing on a full track
    act(state, type="invoke_ra")
    assert state.observation(2)["auction"]["kind"] == "invoked_full"
    for _ in range(4):
        assert {"type": "pass"} in legal_json(state)
        act(state, type="pass")
    assert state.track == []
    assert boxed(state, "nile") == 2 and boxed(state, "god") == 1
    assert state.center == 1
    assert sum(state.tiles_accounted()) == 180


def test_full_track_invoked_can_still_be_won() -> None:
    track = ["gold"] * 5 + ["nile"] * 3
    state = build_state(4, track=track, current=2)
    act(state, type="invoke_ra")
    act(state, type="bid", sun=5)  # seat 3
    act(state, type="pass")
    act(state, type="pass")
    act(state, type="pass")
    assert held(state, 3, "gold") == 5 and held(state, 3, "nile") == 3


def test_players_without_suns_take_no_turns_and_do_not_bid() -> None:
    state = build_state(
        4, suns=[[13], [], [11], []], used_suns=[[2, 6], [3, 7, 12], [4, 8], [5, 9, 10]],
        current=0, draws=["gold"],
    )
    act(state, type="draw")
    assert state.current_player() == 2  # seat 1 has no face-up sun
    act(state, type="invoke_ra")
    assert state.queue == [0, 2]  # seat 3 and seat 1 are not asked
    act(state, type="bid", sun=13)
    # seat 2 cannot outbid 13: passes automatically; the auction is over
    assert held(state, 0, "gold") == 1
    assert state.current_player() == 2


def test_lone_player_keeps_taking_turns() -> None:
    state = build_state(
        3, suns=[[], [9, 10], []], used_suns=[[2, 5, 8, 13], [3, 6, 12], [4, 7, 11]],
        current=1, draws=["gold", "nile", "ra"],
    )
    act(state, type="draw")
    assert state.current_player() == 1
    act(state, type="draw")
    assert state.current_player() == 1
    act(state, type="draw")  # a Ra tile: he may pass his own auction
    assert legal_json(state) == [{"type": "bid", "sun": 9}, {"type": "bid", "sun": 10},
                                 {"type": "pass"}]
    act(state, type="pass")
    assert state.current_player() == 1
    act(state, type="invoke_ra")
    assert {"type": "pass"} not in legal_json(state)  # invoked: he must bid
    act(state, type="bid", sun=10)
    assert held(state, 1, "gold") == 1 and held(state, 1, "nile") == 1
    assert state.current_player() == 1 and state.up[1] == [9]


def test_turn_after_auction_skips_sunless_players_left_of_ra_player() -> None:
    state = build_state(
        4, suns=[[13], [], [11], [10]], used_suns=[[2, 6], [3, 7, 12], [4, 8], [5, 9]],
        current=0,
    )
    act(state, type="invoke_ra")
    act(state, type="pass")  # seat 2
    act(state, type="pass")  # seat 3
    act(state, type="bid", sun=13)  # seat 0 must bid
    assert state.current_player() == 2


def test_god_takes_any_non_god_tile_and_may_take_more() -> None:
    state = build_state(
        4, tiles=[{"god": 2}], track=["gold", "god", "gold", "pharaoh"], current=0
    )
    choices = legal_json(state)
    # one choice per distinct non-god tile type (its first slot)
    assert {"type": "god", "slot": 0, "tile": "gold"} in choices
    assert {"type": "god", "slot": 3, "tile": "pharaoh"} in choices
    assert all(c.get("tile") != "god" for c in choices)
    assert not any(c.get("slot") == 2 for c in choices)
    act(state, type="god", tile="gold")
    assert state.phase == 1  # god follow-up: another god or end the turn
    assert legal_json(state) == [
        {"type": "god", "slot": 1, "tile": "gold"},
        {"type": "god", "slot": 2, "tile": "pharaoh"},
        {"type": "end_turn"},
    ]
    act(state, type="god", tile="pharaoh")
    assert held(state, 0, "gold") == 1 and held(state, 0, "pharaoh") == 1
    assert held(state, 0, "god") == 0 and boxed(state, "god") == 2
    assert state.current_player() == 1  # no god left: the turn ended by itself


def test_end_turn_after_one_god() -> None:
    state = build_state(4, tiles=[{"god": 2}], track=["gold", "nile"], current=0)
    act(state, type="god", tile="nile")
    act(state, type="end_turn")
    assert held(state, 0, "god") == 1 and state.track == [2]
    assert state.current_player() == 1


def test_changing_the_returned_legal_list_changes_nothing() -> None:
    state = build_state(4, current=0)
    legal = state.legal_actions()
    legal.clear()
    legal.append(27)
    assert state.legal_actions() == [0, 1]
    with pytest.raises(IllegalActionError):
        state.apply_action(27)


def test_illegal_action_leaves_the_state_unchanged() -> None:
    state = build_state(4, current=0)
    before = state.to_json()
    for bad in (27, 5, 99, -1, "0", 1.0):
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)  # type: ignore[arg-type]
    assert state.to_json() == before
