"""A turn of Ra: The Dice Game: rolling, the Sun dice and every way of applying dice."""

from __future__ import annotations

import pytest
from ra_dice_helpers import (
    done,
    make_state,
    matching,
    moves,
    play,
    put_civilization,
    put_monument,
    stop,
)

from arena.games.base import IllegalActionError
from arena.games.ra_dice import actions as A
from arena.games.ra_dice.state import APPLY, DISASTER, ROLL, RaDiceState

# ------------------------------------------------------------------------- rolling


def test_suns_are_locked_and_only_free_dice_can_be_rerolled() -> None:
    state = make_state(4, "SPNSA")
    assert state.phase == ROLL and state.current_player() == 0
    rerollable = {tuple(m["dice"]) for m in moves(state) if m["type"] == "reroll"}
    # yellow, green, purple are free: 7 non-empty subsets; red and blue show Suns
    assert len(rerollable) == 7
    assert all("red" not in dice and "blue" not in dice for dice in rerollable)
    assert moves(state)[0] == {"type": "stop"}


def test_at_most_two_rerolls_then_the_dice_are_applied() -> None:
    state = make_state(4, "PPPPP", "N", "C")
    play(state, type="reroll", dice=["red"])
    assert state.phase == ROLL
    play(state, type="reroll", dice=["red"])
    assert state.phase == APPLY  # no third reroll
    assert state.faces == [3, 1, 1, 1, 1]  # red shows civilization, the rest pharaoh


def test_a_sun_rolled_on_a_reroll_is_locked_too() -> None:
    state = make_state(4, "PPPPP", "SN")
    play(state, type="reroll", dice=["red", "yellow"])
    rerollable = [m["dice"] for m in moves(state) if m["type"] == "reroll"]
    assert all("red" not in dice for dice in rerollable)
    assert ["yellow"] in rerollable


def test_five_suns_end_the_rolling_at_once() -> None:
    state = make_state(4, "SSSSS")
    assert state.phase == DISASTER


def test_illegal_action_is_refused_and_changes_nothing() -> None:
    state = make_state(4, "SPNSA")
    before = state.to_json()
    for bad in (1, 9, A.DONE, -1, 1.0, True, "0"):  # red is a locked Sun; not now; not ints
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)  # type: ignore[arg-type]
    assert state.to_json() == before


# ------------------------------------------------------------------------ the Suns


def _after_rolling(rolls: str, *more: str, players: int = 4) -> RaDiceState:
    state = make_state(players, rolls, *more)
    if state.phase == ROLL:
        stop(state)
    return state


@pytest.mark.parametrize("suns, dice", [(1, "SPPPP"), (2, "SSPPP")])
def test_one_or_two_suns_advance_ra(suns: int, dice: str) -> None:
    state = _after_rolling(dice)
    assert state.ra == state.board.ra_start + suns
    assert state.scores[0] == 10


def test_three_suns_score_three_and_leave_ra() -> None:
    state = _after_rolling("SSSPP")
    assert state.ra == state.board.ra_start
    assert state.scores[0] == 13


@pytest.mark.parametrize("dice", ["SSSSP", "SSSSS"])
def test_four_or_five_suns_offer_a_disaster_and_leave_ra(dice: str) -> None:
    state = _after_rolling(dice)
    assert state.ra == state.board.ra_start and state.scores[0] == 10
    assert state.phase == DISASTER and state.current_player() == 0
    assert [m["what"] for m in moves(state)] == [
        "none", "pharaoh", "nile", "civilization", "monument"]


def test_no_sun_leaves_ra() -> None:
    state = _after_rolling("PPPPP")
    assert state.ra == state.board.ra_start


# ------------------------------------------------------------- Pharaoh and the Nile


# 000_7d410431a88d4e17.txt, Play: the crib-sheet examples.  Their pictures are missing, so
# the dice in these tests are ours; the captions are the book's.


def test_book_example_pharaoh_advance_the_marker_3_spaces() -> None:
    """Play, Pharaoh (l. 51-56; German l. 239-243): "For every die showing a Pharaoh, the
    player advances his marker ... If he uses at least one die showing a Pharaoh, any die
    showing an Ankh may also be used"; caption: "Advance the marker 3 spaces"."""
    state = _after_rolling("PAACM")  # one Pharaoh and two Ankhs
    play(state, what="pharaoh", spaces=3)
    assert state.pharaoh[0] == 3


def test_book_example_nile_advance_the_marker_2_spaces() -> None:
    """Play, Nile (l. 60-65; German l. 247-252): caption "Advance the marker 2 spaces"."""
    state = _after_rolling("NNCMP")
    play(state, what="nile", spaces=2)
    assert state.nile[0] == 2


def test_book_example_flood_the_nile_and_advance_1_space() -> None:
    """Play, Nile (l. 69-74; German l. 256-262): three dice showing the Nile (Ankhs may
    stand in) flood the Nile; caption "Flood the Nile and advance 1 space"."""
    state = _after_rolling("NNANC")
    play(state, what="flood", dice=["red", "yellow", "green"])
    play(state, what="nile", spaces=1)
    assert state.floods[0] == 1 and state.nile[0] == 1


def test_book_example_advance_the_ra_figure_2_spaces() -> None:
    """Play, Ra (l. 102-106; German l. 307-311): "If a player has one or two dice showing
    Suns on the orange Sun track, he advances the Ra figure accordingly"; caption "Advance
    the Ra figure 2 spaces"."""
    state = make_state(3, "SSPPP")
    start = state.ra
    stop(state)
    assert state.ra == start + 2


def test_pharaoh_dice_advance_and_ankhs_may_join() -> None:
    state = _after_rolling("PPAAN")
    pharaoh = [m for m in moves(state) if m.get("what") == "pharaoh"]
    assert [m["spaces"] for m in pharaoh] == [2, 3, 4]
    play(state, what="pharaoh", spaces=3)
    assert state.pharaoh[0] == 3 and state.current_player() == 0
    # one Ankh is left: it cannot join a second Pharaoh application without a Pharaoh die
    assert not matching(state, what="pharaoh")
    assert [m["dice"] for m in moves(state) if m.get("what") == "nile"] == [
        ["purple"], ["blue", "purple"]]


def test_ankhs_alone_never_advance_a_track() -> None:
    state = _after_rolling("AAACM")
    assert not matching(state, what="pharaoh") and not matching(state, what="nile")


def test_nile_dice_advance_and_ankhs_may_join() -> None:
    state = _after_rolling("NAPPP")
    assert [m["spaces"] for m in moves(state) if m.get("what") == "nile"] == [1, 2]
    play(state, what="nile", spaces=2)
    assert state.nile[0] == 2
    assert state.used == 0b00011


def test_tracks_stop_at_twelve_and_ankhs_are_not_wasted_on_a_full_track() -> None:
    def setup(state: RaDiceState) -> None:
        state.pharaoh[0] = 10
        state.nile[0] = 12

    state = make_state(4, "PPPNA", setup=setup)
    stop(state)
    assert [m["spaces"] for m in moves(state) if m.get("what") == "pharaoh"] == [3]
    assert not matching(state, what="nile")  # already on 12
    play(state, what="pharaoh")
    assert state.pharaoh[0] == 12


def test_flood_with_three_nile_dice_then_advance_moves_the_flood_marker() -> None:
    state = _after_rolling("NNNNP")
    floods = [m["dice"] for m in moves(state) if m.get("what") == "flood"]
    assert floods == [["red", "yellow", "green"]]
    play(state, what="flood")
    assert state.floods[0] == 1 and state.nile[0] == 0
    play(state, what="nile", spaces=1)  # the fourth Nile die
    assert state.nile[0] == 1  # the flood marker stands on the Nile marker's space


def test_a_flood_may_use_one_or_two_ankhs_but_not_three() -> None:
    state = _after_rolling("NAAAP")
    floods = [m["dice"] for m in moves(state) if m.get("what") == "flood"]
    assert floods == [["red", "yellow", "green"]]  # one Nile + two Ankhs
    state = _after_rolling("NNAAP")
    floods = [m["dice"] for m in moves(state) if m.get("what") == "flood"]
    assert floods == [["red", "yellow", "green"], ["red", "green", "blue"]]


def test_dice_used_for_a_flood_cannot_also_advance_the_marker() -> None:
    state = _after_rolling("NNNAP")
    play(state, what="flood", dice=["red", "yellow", "green"])
    assert not matching(state, what="nile")  # the Ankh cannot advance without a Nile die
    assert state.nile[0] == 0


def test_several_floods_in_one_game() -> None:
    state = _after_rolling("NNNPP", "NNNPP")
    play(state, what="flood")
    assert state.floods[0] == 1
    play(state, what="pharaoh")  # ends the turn: nothing left to apply
    assert state.current_player() == 1


# ------------------------------------------------------------------- Civilization


def test_book_example_five_civilizations_with_a_full_and_a_taken_space() -> None:
    """000_7d410431a88d4e17.txt, Play, Civilization, the example (l. 82): "This can
    represent 5 Civilization dice - but the red player can only place one marker on the
    yellow space. The blue space is filled; the purple space already contains a red
    marker; the colors of the Ankhs cannot be used. The player applies only the 3
    Civilization dice here and saves the two Ankhs." """

    def setup(state: RaDiceState) -> None:
        put_civilization(state, 1, "blue")
        put_civilization(state, 2, "blue")  # 3 players: a space holds 2 markers
        put_civilization(state, 0, "purple")

    state = make_state(3, "ACACC", "PPPPP", setup=setup)  # red, green: Ankhs
    stop(state)
    civilization = [m for m in moves(state) if m.get("what") == "civilization"]
    assert civilization == [{"type": "apply", "what": "civilization", "colours": ["yellow"],
                             "dice": ["yellow", "blue", "purple"]}]
    play(state, what="civilization")
    assert state.civilization_markers[0] == 2
    assert state.current_player() == 1  # only the Ankhs were left: the turn ended
    assert state.scores[0] == 12  # and the saved Ankhs scored as a pair


def test_civilization_needs_three_dice_and_a_real_die_per_colour() -> None:
    state = _after_rolling("CCPPP")
    assert not matching(state, what="civilization")
    state = _after_rolling("CAAPP")
    assert [m["colours"] for m in moves(state) if m.get("what") == "civilization"] == [["red"]]
    state = _after_rolling("AAAPP")
    assert not matching(state, what="civilization")


def test_four_and_five_civilization_dice_place_two_and_three_markers() -> None:
    state = _after_rolling("CCCCP")
    sizes = sorted(len(m["colours"]) for m in moves(state) if m.get("what") == "civilization")
    assert sizes == [1] * 4 + [2] * 6
    state = _after_rolling("CCCCC")
    play(state, what="civilization", colours=["red", "green", "purple"])
    assert state.civilization_markers[0] == 3
    assert state.civilization[0] == state.civilization[2] == state.civilization[4] == 1


def test_two_players_civilization_space_holds_one_marker() -> None:
    state = make_state(2, "CCCPP", setup=lambda s: put_civilization(s, 1, "red"))
    stop(state)
    assert {tuple(m["colours"]) for m in moves(state) if m.get("what") == "civilization"} == {
        ("yellow",), ("green",)}


# ----------------------------------------------------------------------- Monuments


def test_book_example_three_monument_markers() -> None:
    """000_7d410431a88d4e17.txt, Play, Monuments, the example (l. 90): "The red player
    places a marker on the yellow space in the first column where he has 2 markers. Then
    he places a marker on the purple space in the third column and a marker on the green
    space in the fourth column where he has no markers." """

    def setup(state: RaDiceState) -> None:
        board = state.board
        for colour in ("red", "green"):
            put_monument(state, 0, 0, colour)
        assert board.options["monument_columns"][0][1] == "yellow"

    state = make_state(4, "AMMAM", "PPPPP", setup=setup)  # yellow, green, purple: Monuments
    stop(state)
    play(state, what="monument", column=0, colour="yellow", dice=["yellow"])
    second = [m for m in moves(state) if m.get("what") == "monument"]
    assert all(m["column"] != 0 for m in second)  # a column with red's markers: not allowed
    assert all(m["colour"] in ("green", "purple") for m in second)  # real Monument dice only
    play(state, what="monument", column=2, colour="purple", dice=["red", "purple"])
    play(state, what="monument", column=3, colour="green", dice=["green", "blue"])
    assert state.monument_markers[0] == 5
    assert state.monuments[0:5].count(0) == 3
    assert state.current_player() == 1  # nothing left: the turn ended by itself


def test_first_monument_marker_goes_on_any_empty_space_of_its_colour() -> None:
    state = make_state(4, "MPPPP", setup=lambda s: put_monument(s, 1, 5, "red"))
    stop(state)
    columns = [m["column"] for m in moves(state) if m.get("what") == "monument"]
    assert columns == [0, 1, 2, 3, 4, 6, 7]  # every red space but the occupied one


def test_a_further_monument_marker_needs_two_more_dice() -> None:
    state = _after_rolling("MMPPP")
    play(state, what="monument", column=0, colour="red")
    # yellow + one partner: none left (two Pharaohs are no Monument or Ankh)
    assert not matching(state, what="monument")


def test_two_ankhs_cannot_pay_for_a_further_monument_marker() -> None:
    state = _after_rolling("MAAPP")
    play(state, what="monument", column=0, colour="red")
    assert not matching(state, what="monument")


def test_monument_partner_may_be_an_ankh_or_another_monument_die() -> None:
    state = _after_rolling("MMMAP")
    play(state, what="monument", column=0, colour="red")
    in_column_one = sorted((m["colour"], m["dice"]) for m in moves(state)
                           if m.get("what") == "monument" and m["column"] == 1)
    assert in_column_one == [
        ("green", ["green", "blue"]),  # the blue Ankh as the partner
        ("green", ["yellow", "green"]),  # yellow's Monument die as the partner
        ("yellow", ["yellow", "blue"]),
        ("yellow", ["yellow", "green"]),
    ]


# ----------------------------------------------------------------------- Ankh pairs


@pytest.mark.parametrize("dice, points", [("AAPPP", 2), ("AAAPP", 2), ("AAAAP", 4),
                                          ("APPPP", 0)])
def test_unused_ankh_pairs_score_two_each(dice: str, points: int) -> None:
    state = _after_rolling(dice, "PPPPP")
    done(state)
    assert state.scores[0] == 10 + points


def test_an_ankh_used_elsewhere_is_not_part_of_a_pair() -> None:
    state = _after_rolling("AAPPP", "PPPPP")
    play(state, what="pharaoh", spaces=4)
    assert state.scores[0] == 10  # the turn ended (nothing left) without a pair


def test_turn_passes_clockwise() -> None:
    state = _after_rolling("PPPPP")  # later rolls: Pharaohs too
    for seat in (1, 2, 3, 0):
        done(state)
        assert state.current_player() == seat
        stop(state)


def test_dice_for_full_tracks_cannot_be_applied_and_the_turn_ends() -> None:
    def setup(state: RaDiceState) -> None:
        state.pharaoh[0] = state.nile[0] = 12

    state = make_state(3, "PPNAC", setup=setup)  # no flood: one Nile, one Ankh
    stop(state)
    assert state.current_player() == 1 and state.pharaoh[0] == state.nile[0] == 12
