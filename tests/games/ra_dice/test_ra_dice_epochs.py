"""Epoch end and scoring: Pharaoh, Nile, Civilization, Monuments, the score floor, game end."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ra_dice_helpers import done, make_state, play, put_civilization, put_monument, stop

from arena.games.base import GameError
from arena.games.ra_dice.scoring import civilization_points, monument_points, pharaoh_points
from arena.games.ra_dice.state import APPLY, OVER, ROLL, RaDiceState


def _ending_turn(players: int, setup: Callable[[RaDiceState], None] | None = None,
                 epoch: int = 1, before_editions: bool = False) -> RaDiceState:
    """Seat 0's turn in which one Sun takes Ra to the last space; he has not applied yet."""

    def arrange(state: RaDiceState) -> None:
        state.ra = state.board.ra_end - 1
        state.epoch = epoch
        if setup:
            setup(state)

    state = make_state(players, "SPPPA", setup=arrange, before_editions=before_editions)
    stop(state)
    return state


def test_start_scores_are_ten_eleven_twelve_thirteen_in_seat_order() -> None:
    assert make_state(4, "PPPPP").scores == [10, 11, 12, 13]
    assert make_state(2, "PPPPP").scores == [10, 11]


def test_the_current_player_finishes_the_turn_before_the_epoch_is_scored() -> None:
    state = _ending_turn(3)
    assert state.ra == state.board.ra_end
    assert state.phase == APPLY and state.current_player() == 0 and state.epoch == 1
    play(state, what="pharaoh", spaces=4)  # still his turn: the dice count
    assert state.epoch == 2
    assert state.pharaoh[0] == 4 - 2  # scored 5 as the best, then moved back 2
    assert state.ra == state.board.ra_start
    assert state.current_player() == 1  # the next player starts the new epoch
    assert state.phase == ROLL


def test_ra_passing_the_last_space_ends_the_epoch_too() -> None:
    def setup(state: RaDiceState) -> None:
        state.ra = state.board.ra_end - 1

    state = make_state(2, "SSPPP", setup=setup)
    stop(state)
    assert state.ra == state.board.ra_end + 1
    done(state)
    assert state.epoch == 2 and state.ra == state.board.ra_start


def test_pharaoh_scoring_and_the_follow_up_moves() -> None:
    def setup(state: RaDiceState) -> None:
        state.pharaoh[:] = [1, 5, 2, 1]

    state = _ending_turn(4, setup)
    play(state, what="pharaoh", spaces=4)  # seat 0 draws level with seat 1 on 5
    epoch = next(e for e in state.events if e[0] == "epoch")
    assert epoch[3] == [5, 5, 0, -2]  # both best score 5; seat 3 alone is last
    assert state.pharaoh == [3, 3, 2, 2]  # the best move back 2, the last up 1


def test_pharaoh_ties_share_and_a_full_tie_scores_nothing() -> None:
    assert pharaoh_points([4, 4, 1, 1]) == [5, 5, -2, -2]
    assert pharaoh_points([3, 3, 3]) == [0, 0, 0]
    assert pharaoh_points([0, 7]) == [-2, 5]


def test_nile_scoring_flooded_players_score_their_space_and_keep_one_marker() -> None:
    def setup(state: RaDiceState) -> None:
        state.nile[:] = [6, 8, 4, 0]
        state.floods[:] = [1, 0, 2, 0]

    state = _ending_turn(4, setup)
    done(state)
    epoch = next(e for e in state.events if e[0] == "epoch")
    assert epoch[4] == [6, 0, 4, 0]
    assert state.floods == [0, 0, 0, 0] and state.nile == [6, 8, 4, 0]


def test_civilization_scoring_table_and_all_markers_come_off() -> None:
    def setup(state: RaDiceState) -> None:
        put_civilization(state, 1, "red")
        for colour in ("red", "yellow", "green"):
            put_civilization(state, 2, colour)
        for colour in ("yellow", "green", "blue", "purple"):
            put_civilization(state, 3, colour)

    state = _ending_turn(4, setup)
    done(state)
    epoch = next(e for e in state.events if e[0] == "epoch")
    assert epoch[5] == [-5, 0, 5, 10]
    assert state.civilization == [0] * 5 and state.civilization_markers == [0] * 4


def test_civilization_table_up_to_five_markers() -> None:
    assert civilization_points([0, 1, 2, 3, 4, 5]) == [-5, 0, 0, 5, 10, 15]


def test_monuments_are_scored_only_after_the_third_epoch() -> None:
    state = _ending_turn(2, lambda s: put_monument(s, 1, 0, "red"), epoch=2)
    done(state)
    epoch = next(e for e in state.events if e[0] == "epoch")
    assert epoch[6] is None
    assert state.monument_markers[1] == 1  # Monument markers stay on the board


def test_monument_scoring_distinct_columns_and_column_bonuses() -> None:
    spaces = [-1] * 40
    for row in range(5):
        spaces[row] = 0  # seat 0 fills column 0
    for column in range(1, 7):
        spaces[5 * column] = 0  # and one marker in columns 1-6: seven columns
    for colour in range(3):
        spaces[35 + colour] = 1  # seat 1: three markers in column 7
    assert monument_points(spaces, 3) == [10 + 15, 1 + 5, 0]
    every_column = [0 if space % 5 == 0 else -1 for space in range(40)]
    assert monument_points(every_column, 2) == [15, 0]
    four = [1 if space < 4 else -1 for space in range(40)]
    assert monument_points(four, 2) == [0, 1 + 10]
    six = [0 if space % 5 == 0 and space < 30 else -1 for space in range(40)]
    assert monument_points(six, 1) == [6]


def test_third_epoch_ends_the_game_with_monuments_scored() -> None:
    def setup(state: RaDiceState) -> None:
        for colour in ("red", "yellow", "green"):
            put_monument(state, 1, 2, colour)

    state = _ending_turn(2, setup, epoch=3)
    with pytest.raises(GameError):
        state.returns()
    done(state)
    assert state.phase == OVER and state.is_terminal() and state.legal_actions() == []
    epoch = state.events[-1]
    assert epoch[0] == "epoch" and epoch[1] == 3
    assert epoch[6] == [0, 1 + 5]
    # Pharaoh: both on 0, no score; no floods; no Civilization markers: -5 each
    assert state.scores == [10 - 5, 11 - 5 + 6]
    assert state.returns() == [5.0, 12.0]
    assert state.placements() == [2, 1]


# 000 (line 157): "The player with the most points wins."  The book names no floor on the
# score track and no tie-break; records from before editions floored scores at 0 (category
# by category) and ranked the earlier seat first on equal points, and still replay so.


def _losing_two_categories(state: RaDiceState) -> None:
    state.scores[:] = [10, 1]
    state.pharaoh[:] = [3, 0]  # seat 1: -2
    state.nile[:] = [0, 6]
    state.floods[:] = [0, 1]  # seat 1: +6
    # no Civilization markers: -5


def test_scores_may_go_below_zero_as_the_book_sets_no_floor() -> None:
    def setup(state: RaDiceState) -> None:
        _losing_two_categories(state)
        state.floods[1] = 0

    state = _ending_turn(2, setup)
    done(state)
    # seat 1: 1 - 2 (fewest Pharaohs) + 0 (one Nile marker, no flood) - 5 = -6
    assert state.scores[1] == -6
    assert state.record()["epochs"][0]["scores"] == [10 + 5 - 5, -6]  # as recorded


def test_the_book_adds_every_category_without_a_floor() -> None:
    state = _ending_turn(2, _losing_two_categories)
    done(state)
    assert state.scores[1] == 1 - 2 + 6 - 5


def test_before_editions_scores_were_floored_category_by_category() -> None:
    state = _ending_turn(2, _losing_two_categories, before_editions=True)
    done(state)
    # 1 -2 -> 0 (floor), +6 -> 6, -5 -> 1; summing first would have given 0
    assert state.scores[1] == 1


def test_equal_scores_share_a_place() -> None:
    def setup(state: RaDiceState) -> None:
        state.scores[:] = [20, 20, 20]

    state = _ending_turn(3, setup, epoch=3)
    done(state)
    assert len(set(state.scores)) == 1
    assert state.placements() == [1, 1, 1]


def test_a_tie_below_the_winner_shares_the_place_too() -> None:
    def setup(state: RaDiceState) -> None:
        state.scores[:] = [20, 30, 20]

    state = _ending_turn(3, setup, epoch=3)
    done(state)
    assert state.placements() == [2, 1, 2]


def test_before_editions_equal_scores_ranked_the_earlier_seat_first() -> None:
    def setup(state: RaDiceState) -> None:
        state.scores[:] = [20, 20, 20]

    state = _ending_turn(3, setup, epoch=3, before_editions=True)
    done(state)
    assert len(set(state.scores)) == 1
    assert state.placements() == [1, 2, 3]
