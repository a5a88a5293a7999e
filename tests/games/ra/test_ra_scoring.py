"""Scoring: the books' worked examples and every category, through the pure functions
and through a real epoch end.

Each worked example names the rulebooks (files in ../shared/seeds/) and the section it is
printed in: 001_a38a4439240b4da9.txt (classic English), 003_efe7da74b2b8cca7.txt (classic
German), 004_1134238977287e70.txt (Rio Grande 2008), 002_1a3289f03d108d06.txt (2023)."""

from __future__ import annotations

from ra_helpers import act, held

from arena.games.ra.scenario import build_state
from arena.games.ra.scoring import (
    civilization_points,
    epoch_points,
    majority_points,
    monument_points,
    nile_points,
)
from arena.games.ra.tiles import NUM_TILE_TYPES, TILE_BY_NAME


def holding(**counts: int) -> list[int]:
    h = [0] * NUM_TILE_TYPES
    for name, count in counts.items():
        h[TILE_BY_NAME[name]] = count
    return h


def test_pharaoh_example_3_2_2_3() -> None:
    """Scoring, Pharaohs: 001 l. 62, 003 l. 284, 004 l. 323: "Anna, Bob, Cathy, and Don
    have 3, 2, 2 and 3 Pharaohs. Anna and Don earn 5 fame points each; Bob and Cathy each
    lose 2 points." """
    assert majority_points([3, 2, 2, 3], 5, -2) == [5, -2, -2, 5]


def test_pharaohs_all_equal_score_nothing() -> None:
    assert majority_points([2, 2, 2], 5, -2) == [0, 0, 0]
    assert majority_points([0, 0], 5, -2) == [0, 0]


def test_pharaohs_middle_player_scores_nothing() -> None:
    assert majority_points([4, 1, 2, 1, 4], 5, -2) == [5, -2, 0, -2, 5]


def test_civilization_example_three_different_earn_5() -> None:
    """Scoring, Civilization: 001 l. 67, 003 l. 365, 004 l. 402: "Anna has 3 astronomy,
    2 agriculture and 2 writing tiles. She receives 5 points ... For one each of astronomy,
    agriculture and writing she would have received the same." """
    assert civilization_points(holding(astronomy=3, agriculture=2, writing=2)) == 5
    assert civilization_points(holding(astronomy=1, agriculture=1, writing=1)) == 5


def test_civilization_table() -> None:
    assert civilization_points(holding()) == -5
    assert civilization_points(holding(art=2)) == 0
    assert civilization_points(holding(art=1, religion=1)) == 0
    assert civilization_points(holding(art=1, religion=1, writing=1, astronomy=1)) == 10
    five = holding(art=1, religion=1, writing=1, astronomy=1, agriculture=1)
    assert civilization_points(five) == 15


def test_monument_example_is_19() -> None:
    """Scoring, Monuments: 001 l. 69, 003 l. 419, 004 l. 449: "Anna has 4 pyramids,
    3 temples, 2 fortresses and 1 sphinx. After the third epoch she receives 19 points" """
    anna = holding(pyramid=4, temple=3, fortress=2, sphinx=1)
    assert monument_points(anna) == 19


def test_monument_variety_and_sets() -> None:
    names = ["fortress", "obelisk", "palace", "pyramid", "sphinx", "statue", "step_pyramid"]
    assert monument_points(holding(**{n: 1 for n in names[:6]})) == 6
    assert monument_points(holding(**{n: 1 for n in names})) == 10
    assert monument_points(holding(**{n: 1 for n in names}, temple=1)) == 15
    assert monument_points(holding(obelisk=5)) == 1 + 15
    assert monument_points(holding()) == 0


def test_suns_example_17_25_21_17() -> None:
    """Scoring, Suns: 001 l. 71, 003 l. 467, 004 l. 493: sums 17, 25, 21 and 17: "Bob
    receives 5 points and Anna and Don each lose 5 points. Cathy neither gains nor loses
    points." """
    assert majority_points([17, 25, 21, 17], 5, -5) == [-5, 5, 0, -5]


def test_2023_example_flood_and_nile() -> None:
    """2023 edition, "Płytki wylewu" (flood tiles): 002 l. 483-485: 1 flood and 3 Niles
    are worth 4 points together; 2 floods and 0 Niles 2 points; 0 floods and 4 Niles 0."""
    assert nile_points(holding(flood=1, nile=3)) == 4
    assert nile_points(holding(flood=2)) == 2
    assert nile_points(holding(nile=4)) == 0


def test_nile_needs_a_flood() -> None:
    assert nile_points(holding(nile=5)) == 0
    assert nile_points(holding(nile=5, flood=1)) == 6
    assert nile_points(holding(flood=2)) == 2


def test_epoch_points_per_category_and_final_only_categories() -> None:
    holdings = [
        holding(god=2, gold=1, pharaoh=1, obelisk=3, astronomy=1),
        holding(pharaoh=2, nile=2, flood=1, art=1, writing=1, religion=1),
    ]
    suns = [[13, 5], [2, 3]]
    mid = epoch_points(holdings, suns, final=False)
    assert mid == [[4, -2, 0, 3, 0, 0, 0], [0, 5, 3, 0, 5, 0, 0]]
    final = epoch_points(holdings, suns, final=True)
    assert final == [[4, -2, 0, 3, 0, 1 + 5, 5], [0, 5, 3, 0, 5, 0, -5]]


def test_score_never_goes_below_zero() -> None:
    # Seat 0 has 3 points, no civilization (-5) and the fewest pharaohs (-2): 0, not -4.
    state = build_state(
        3,
        scores=[3, 10, 10],
        tiles=[{}, {"pharaoh": 1, "astronomy": 1}, {"pharaoh": 1, "art": 1}],
        ra_track=7,
        draws=["ra"],
        current=0,
    )
    act(state, type="draw")
    assert state.epoch == 2
    assert state.scores == [0, 15, 15]  # seats 1, 2: +5 pharaohs (tied for most), 0 civ
    # A positive epoch afterwards counts from 0, not from the lost points.
    assert held(state, 1, "astronomy") == 0  # civilizations left the game


def test_real_epoch_end_applies_the_net_change_at_once() -> None:
    # +4 gods and -5 civilization: net -1, so 1 point -> 0 (not 1 + 4 - 5 step by step).
    state = build_state(2, scores=[1, 10], tiles=[{"god": 2}, {"art": 1}], ra_track=5,
                        draws=["ra"], current=0)
    act(state, type="draw")
    assert state.scores == [0, 10]  # seat 1: one civilization type scores 0
