"""The Sun-track measurement helper (the figures themselves are in docs/rules-ra-dice.md)."""

from __future__ import annotations

from arena.games.ra_dice.board import DEFAULT_BOARD
from arena.games.ra_dice.measure import best_distance, epoch_lengths


def test_more_rerolling_means_more_suns_and_each_policy_moves_ra_less_than_two() -> None:
    keep = epoch_lengths(4, 16, "keep", games=40)[1]
    coin = epoch_lengths(4, 16, "coin", games=40)[1]
    reroll_all = epoch_lengths(4, 16, "reroll_all", games=40)[1]
    assert 0.6 < keep < coin < reroll_all < 1.0


def test_epochs_get_longer_with_the_distance_ra_travels() -> None:
    short, _ = epoch_lengths(2, 6, "coin", games=40)
    long, _ = epoch_lengths(2, 12, "coin", games=40)
    assert short < long
    assert 12 / 2 <= long <= 12 / 0.6  # between "two spaces a turn" and the slowest policy


def test_default_sun_track_matches_the_measurement_for_the_reference_policy() -> None:
    track = DEFAULT_BOARD["sun_track"]
    for players in (2, 3, 4):
        distance = track["last_space"] - track["start"][str(players)]
        assert abs(best_distance(players, "coin", games=60) - distance) <= 1
