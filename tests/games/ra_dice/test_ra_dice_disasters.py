"""Disasters: four or five Suns, the declarer's choice, and each victim's own choices."""

from __future__ import annotations

from ra_dice_helpers import (
    make_state,
    matching,
    moves,
    play,
    put_civilization,
    put_monument,
    stop,
)

from arena.games.ra_dice.state import APPLY, DISASTER, VICTIM, RaDiceState


def test_pharaoh_disaster_moves_every_other_player_back_two_not_below_zero() -> None:
    def setup(state: RaDiceState) -> None:
        state.pharaoh[:] = [5, 3, 1, 0]

    state = make_state(4, "SSSSP", setup=setup)
    stop(state)  # the fifth die could still be rerolled
    play(state, type="disaster", what="pharaoh")
    assert state.pharaoh == [5, 1, 0, 0]
    assert state.phase == APPLY and state.current_player() == 0


def test_nile_disaster_takes_a_flood_marker_or_else_two_spaces() -> None:
    def setup(state: RaDiceState) -> None:
        state.nile[:] = [4, 6, 5, 1]
        state.floods[:] = [1, 2, 0, 0]

    state = make_state(4, "SSSSP", setup=setup)
    stop(state)  # the fifth die could still be rerolled
    play(state, type="disaster", what="nile")
    assert state.floods == [1, 1, 0, 0]
    assert state.nile == [4, 6, 3, 0]


def test_no_disaster_changes_nothing() -> None:
    state = make_state(4, "SSSSP", setup=lambda s: s.pharaoh.__setitem__(1, 4))
    stop(state)  # the fifth die could still be rerolled
    play(state, type="disaster", what="none")
    assert state.pharaoh[1] == 4 and state.phase == APPLY


def test_civilization_disaster_victims_choose_their_own_markers_in_turn_order() -> None:
    def setup(state: RaDiceState) -> None:
        for colour in ("red", "yellow", "green"):
            put_civilization(state, 1, colour)  # three: seat 1 chooses two
        put_civilization(state, 2, "blue")  # one: it simply goes
        for colour in ("red", "blue", "purple"):
            put_civilization(state, 3, colour)  # three: seat 3 chooses two
        put_civilization(state, 0, "red")  # the declarer keeps his

    state = make_state(4, "SSSSP", setup=setup)
    stop(state)  # the fifth die could still be rerolled
    play(state, type="disaster", what="civilization")
    assert state.civilization_markers[2] == 0  # no choice to make: taken at once
    assert state.phase == VICTIM and state.current_player() == 1
    assert moves(state) == [{"type": "lose", "what": "civilization", "colour": colour}
                            for colour in ("red", "yellow", "green")]
    obs = state.observation(1)
    assert obs["disaster_victim"] == {"seat": 1, "what": "civilization", "markers_to_lose": 2}
    play(state, colour="yellow")
    assert state.current_player() == 1  # the second marker: his choice again
    play(state, colour="red")
    assert state.civilization_markers[1] == 1 and state.civilization[2] & 0b10
    assert state.current_player() == 3
    play(state, colour="purple")
    play(state, colour="red")
    assert state.civilization_markers == [1, 1, 0, 1]
    assert state.phase == APPLY and state.current_player() == 0


def test_a_victim_with_two_markers_loses_both_without_being_asked() -> None:
    def setup(state: RaDiceState) -> None:
        put_monument(state, 1, 0, "red")
        put_monument(state, 1, 4, "blue")

    state = make_state(2, "SSSSP", setup=setup)
    stop(state)  # the fifth die could still be rerolled
    play(state, type="disaster", what="monument")
    assert state.monument_markers[1] == 0 and state.monument_columns[1] == 0
    assert state.current_player() == 0


def test_monument_disaster_frees_spaces_the_declarer_may_then_take() -> None:
    def setup(state: RaDiceState) -> None:
        for column in range(8):
            put_monument(state, 1, column, "purple")  # every purple space is seat 1's

    state = make_state(3, "SSSSM", setup=setup)
    stop(state)  # the fifth die could still be rerolled
    play(state, type="disaster", what="monument")
    assert state.current_player() == 1
    assert len(moves(state)) == 8
    play(state, type="lose", column=3)
    play(state, type="lose", column=6)
    assert state.monument_markers[1] == 6
    assert not state.monument_columns[1] >> 3 & 1
    assert state.current_player() == 0
    assert sorted(m["column"] for m in moves(state) if m.get("what") == "monument") == [3, 6]


def test_four_suns_the_fifth_die_may_still_be_rerolled() -> None:
    state = make_state(4, "SSSSP", "S")
    play(state, type="reroll", dice=["purple"])
    assert state.phase == DISASTER and state.faces == [0] * 5


def test_five_suns_disaster_then_the_turn_ends() -> None:
    state = make_state(3, "SSSSS", setup=lambda s: s.pharaoh.__setitem__(2, 2))
    assert state.phase == DISASTER
    play(state, type="disaster", what="pharaoh")
    assert state.pharaoh[2] == 0
    assert state.current_player() == 1  # no dice to apply: the next player's turn
    assert not matching(state, type="disaster")


def test_victims_are_asked_clockwise_from_the_declarer() -> None:
    def setup(state: RaDiceState) -> None:
        state.player = 2  # seat 2 rolls the Suns
        for seat in (0, 1, 3):
            for colour in ("red", "yellow", "green"):
                put_civilization(state, seat, colour)

    state = make_state(4, "SSSSS", setup=setup)
    play(state, type="disaster", what="civilization")
    asked = []
    while state.phase == VICTIM:
        asked.append(state.current_player())
        state.apply_action(state.legal_actions()[0])
    assert asked == [3, 3, 0, 0, 1, 1]
    assert state.civilization_markers == [1, 1, 0, 1]
    assert state.current_player() == 3  # five Suns: nothing to apply, the turn passed on
