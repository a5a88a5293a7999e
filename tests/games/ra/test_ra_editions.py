"""Where the rulebooks differ: each difference played both ways, from the books' words.

The rulebooks are the files in ../shared/seeds/ (see docs/rules-ra.md for the table of
every difference): 001_a38a4439240b4da9.txt (classic English, 1999), 003_efe7da74b2b8cca7.txt
(classic German, alea 1999), 004_1134238977287e70.txt (Rio Grande 2008) and
002_1a3289f03d108d06.txt (the 2023 edition, Polish).
"""

from __future__ import annotations

import json

import pytest
from ra_helpers import act, held, legal_json, play_randomly

from arena.games.ra import GAME, RaState, determinize
from arena.games.ra.editions import EDITIONS
from arena.games.ra.scenario import build_state

# Default 4-player suns by seat: 0: 2 6 13, 1: 3 7 12, 2: 4 8 11, 3: 5 9 10.

# -- after an auction ------------------------------------------------------------------
# 001 (line 52): "After an auction, play continues with the player to the left of the Ra
# player regardless of the outcome of the auction."  003 (line 190): "Nach einer Bietrunde
# setzt der Spieler links vom Ra-Spieler das Spiel fort, unabhängig davon, wie die
# Bietrunde verlief."  004 (line 231): "After the auction is complete, the player to the
# left of the Ra player continues the game by taking a normal turn."
# 002 (line 271): "Po zakończeniu aukcji (niezależnie od jej wyniku) rozgrywkę wznawia
# gracz Ra." (after the auction, whatever its outcome, the Ra player resumes play).

NEXT_AFTER_AUCTION = {"classic": 2, "2023": 1}  # Ra player: seat 1


@pytest.mark.parametrize("edition", EDITIONS)
def test_after_a_won_auction_classic_passes_left_2023_ra_player_continues(edition: str) -> None:
    state = build_state(4, track=["gold"], current=1, edition=edition)
    act(state, type="invoke_ra")
    act(state, type="bid", sun=4)  # seat 2 wins
    act(state, type="pass")
    act(state, type="pass")
    act(state, type="pass")
    assert held(state, 2, "gold") == 1
    assert state.current_player() == NEXT_AFTER_AUCTION[edition]
    assert state.phase == 0  # a normal turn


@pytest.mark.parametrize("edition", EDITIONS)
def test_after_an_auction_nobody_won_the_same_player_continues(edition: str) -> None:
    # Ra drawn, everybody passes: "regardless of the outcome" in both books.
    state = build_state(4, track=["gold"], draws=["ra"], current=1, edition=edition)
    act(state, type="draw")
    for _ in range(4):
        act(state, type="pass")
    assert state.track == [2]  # the tiles stay
    assert state.current_player() == NEXT_AFTER_AUCTION[edition]


@pytest.mark.parametrize("edition", EDITIONS)
def test_after_the_ra_player_won_with_his_last_sun(edition: str) -> None:
    # The Ra player cannot continue without a face-up sun: the next seat on his left does.
    state = build_state(
        4, suns=[[13], [12], [11], [10]], used_suns=[[2, 6], [3, 7], [4, 8], [5, 9]],
        current=1, edition=edition,
    )
    act(state, type="invoke_ra")
    for _ in range(3):
        act(state, type="pass")
    act(state, type="bid", sun=12)
    assert state.up[1] == []
    assert state.current_player() == 2


def test_2023_ra_player_continues_after_his_disasters() -> None:
    state = build_state(4, tiles=[{}, {"art": 1, "writing": 1, "religion": 1}],
                        track=["unrest"], current=1, edition="2023")
    act(state, type="invoke_ra")
    for _ in range(3):
        act(state, type="pass")
    act(state, type="bid", sun=3)  # the Ra player must bid; unrest with a choice
    act(state, type="discard", tile="art")
    act(state, type="discard", tile="writing")
    assert held(state, 1, "religion") == 1
    assert state.current_player() == 1 and state.phase == 0


# -- a disaster taken with a god -------------------------------------------------------
# 004 (line 300): "Note: a player may take a disaster tile with a God tile. In this case,
# follow the rules above after placing all acquired tiles in the play area."
# 002 (lines 203-204): "Jeśli zdobyta płytka to klęska, jest natychmiast rozpatrywana."
# (a disaster taken is resolved at once); lines 216-218: "Każdą taką wymianę gracz musi
# w pełni rozpatrzeć, zanim przejdzie do kolejnej." (each exchange fully resolved first).


def god_turn(edition: str) -> RaState:
    """Seat 0 holds 2 gods and one civilization; unrest and astronomy lie on the track."""
    return build_state(4, tiles=[{"god": 2, "writing": 1}], track=["unrest", "astronomy"],
                       current=0, edition=edition)


def test_classic_a_god_taken_disaster_strikes_after_all_the_turns_takes() -> None:
    state = god_turn("classic")
    act(state, type="god", tile="unrest")
    assert held(state, 0, "writing") == 1  # not yet
    obs = state.observation(2)
    assert obs["phase"] == "god" and obs["disasters_waiting"] == ["unrest"]
    act(state, type="god", tile="astronomy")
    # both civilizations held, among them the one just taken, go to the unrest
    assert held(state, 0, "writing") == 0 and held(state, 0, "astronomy") == 0
    assert state.observation(2)["disasters_waiting"] == []
    assert state.current_player() == 1
    assert sum(state.tiles_accounted()) == 180
    kinds = [e["type"] for e in state.record()["events"]]
    assert kinds == ["god", "god", "disaster"]


def test_2023_a_god_taken_disaster_strikes_before_the_next_take() -> None:
    state = god_turn("2023")
    act(state, type="god", tile="unrest")
    assert held(state, 0, "writing") == 0  # at once
    assert state.observation(2)["disasters_waiting"] == []
    act(state, type="god", tile="astronomy")
    assert held(state, 0, "astronomy") == 1  # safe: the unrest has struck already
    kinds = [e["type"] for e in state.record()["events"]]
    assert kinds == ["god", "disaster", "god"]


def test_classic_disasters_waiting_strike_when_the_player_ends_his_turn() -> None:
    state = build_state(4, tiles=[{"god": 2, "art": 1, "religion": 1, "writing": 1}],
                        track=["unrest", "gold"], current=0, edition="classic")
    act(state, type="god", tile="unrest")
    assert legal_json(state) == [{"type": "god", "slot": 0, "tile": "gold"},
                                 {"type": "end_turn"}]
    act(state, type="end_turn")
    # three civilizations, two to lose: the player chooses, one tile at a time
    obs = state.observation(0)
    assert obs["phase"] == "disaster" and obs["disaster"]["after"] == "turn_end"
    sample = determinize(json.loads(json.dumps(obs)), 0, seed=4)
    assert sample.observation(0) == obs and sample.legal_actions() == state.legal_actions()
    act(state, type="discard", tile="art")
    act(state, type="discard", tile="writing")
    assert held(state, 0, "religion") == 1 and held(state, 0, "god") == 1
    assert state.current_player() == 1


def test_classic_determinize_keeps_the_disasters_waiting() -> None:
    state = god_turn("classic")
    act(state, type="god", tile="unrest")
    obs = json.loads(json.dumps(state.observation(1)))
    sample = determinize(obs, 1, seed=9)
    assert sample.observation(1) == obs
    assert sample.tiles_accounted() == state.tiles_accounted()
    act(sample, type="god", tile="astronomy")
    act(state, type="god", tile="astronomy")
    assert sample.observation(1) == state.observation(1)


# -- placements ------------------------------------------------------------------------
# 001 (line 72) and 004 (line 513): "If two or more players tie with the highest total,
# the player, among those tied for highest total, with the highest numbered sun is the
# winner."  003 (line 487) and 002 (lines 387-389) say the same.  No book ranks the
# other players, so equal scores below the winner share a place.


def finished(scores: list[int], suns: list[list[int]], edition: str | None) -> RaState:
    """Three players end the game at once (the last Ra tile) with these scores; their
    equal holdings and equal sun sums score nothing more."""
    state = build_state(3, suns=suns, used_suns=[[], [], []], scores=scores, epoch=3,
                        ra_track=7, draws=["ra"], current=0, edition=edition)
    act(state, type="draw")
    assert state.is_terminal()
    return state


SUNS_SUM_30 = [[2, 5, 10, 13], [3, 6, 9, 12], [4, 7, 8, 11]]  # highest: 13, 12, 11


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_tie_for_the_win_goes_to_the_highest_sun(edition: str) -> None:
    state = finished([15, 20, 20], SUNS_SUM_30, edition)
    assert state.returns() == [10.0, 15.0, 15.0]  # no civilization: -5 each
    assert state.placements() == [3, 1, 2]


@pytest.mark.parametrize("edition", EDITIONS)
def test_equal_scores_below_the_winner_share_a_place(edition: str) -> None:
    state = finished([30, 20, 20], SUNS_SUM_30, edition)
    assert state.placements() == [1, 2, 2]
    assert state.record()["final"]["placements"] == [1, 2, 2]


@pytest.mark.parametrize("edition", EDITIONS)
def test_three_tied_at_the_top_the_highest_sun_wins_the_others_share(edition: str) -> None:
    state = finished([20, 20, 20], SUNS_SUM_30, edition)
    assert state.placements() == [1, 2, 2]


# -- editions as an option ---------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_edition_is_in_the_options_the_record_and_the_observation(edition: str) -> None:
    state = GAME.new_game(3, 8, {"edition": edition})
    assert state.observation(0)["edition"] == edition
    play_randomly(state, 8)
    record = json.loads(json.dumps(state.record()))
    assert record["options"] == {"edition": edition}
    assert GAME.replay(record).record() == record
    assert GAME.full_options({"edition": edition}) == {"edition": edition}


def test_the_default_edition_is_classic() -> None:
    assert GAME.default_options() == {"edition": "classic"}
    assert GAME.full_options(None) == {"edition": "classic"}
    assert GAME.describe()["options"] == {"edition": "classic"}


def test_the_editions_differ_in_play() -> None:
    """Random play from one seed and the same choices diverges between the editions."""
    classic = GAME.new_game(4, 3, {"edition": "classic"})
    new = GAME.new_game(4, 3, {"edition": "2023"})
    for state in (classic, new):
        play_randomly(state, 3)
    assert classic.record()["events"] != new.record()["events"]


# -- records from before editions -------------------------------------------------------
# They name no edition; they replay under the engine's rules of then: a god-taken disaster
# struck at once, and every tie, not just the win, went to the highest sun.


def test_before_editions_a_god_taken_disaster_struck_at_once() -> None:
    state = build_state(4, tiles=[{"god": 2, "writing": 1}], track=["unrest", "astronomy"],
                        current=0, edition=None)
    act(state, type="god", tile="unrest")
    assert held(state, 0, "writing") == 0
    assert state.observation(1)["edition"] is None


def test_before_editions_every_tie_went_to_the_highest_sun() -> None:
    state = finished([30, 20, 20], SUNS_SUM_30, None)
    assert state.placements() == [1, 2, 3]


@pytest.mark.parametrize("seed", [3, 11])
def test_a_record_without_an_edition_replays_under_the_rules_of_then(seed: int) -> None:
    """A game played by the old rules records options {} and replays exactly, also
    through a saved state."""
    state = GAME._start(4, seed, {})
    play_randomly(state, seed)
    record = json.loads(json.dumps(state.record()))
    assert record["options"] == {}
    assert GAME.replay(record).record() == record
    assert "edition" not in (state.to_json()["options"])
    assert GAME.state_from_json(state.to_json()).rules.edition is None
