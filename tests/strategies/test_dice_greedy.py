"""The greedy Ra dice bot: sensible choices in built positions, legal and deterministic in
whole games, much stronger than random, and a small league of real bot processes."""

from __future__ import annotations

import importlib.util
import random
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.cli import main
from arena.games.base import GameState
from arena.games.ra_dice.state import APPLY, DISASTER, VICTIM, RaDiceState
from arena.league.config import load_league
from arena.league.store import open_store
from arena.plugins import load_game
from arena.runner.players import random_player
from arena.runner.referee import play_game
from arena.strategies import dice_greedy
from arena.strategies.dice_greedy import (
    VERSION,
    action_values,
    against_random,
    choose,
    dice_greedy_player,
    lookahead_roll_values,
)


def _load_helpers() -> Any:
    """The engine's own scenario helpers (scripted dice, board set-up), shared by path."""
    path = Path(__file__).parents[1] / "games" / "ra_dice" / "ra_dice_helpers.py"
    spec = importlib.util.spec_from_file_location("ra_dice_helpers", path)
    assert spec is not None and spec.loader is not None
    module = sys.modules.get("ra_dice_helpers") or importlib.util.module_from_spec(spec)
    if "ra_dice_helpers" not in sys.modules:
        sys.modules["ra_dice_helpers"] = module
        spec.loader.exec_module(module)
    return module


helpers = _load_helpers()
make_state, stop, put_civilization, put_monument = (
    helpers.make_state, helpers.stop, helpers.put_civilization, helpers.put_monument)

GAME = load_game("ra_dice")


def greedy_move(state: RaDiceState) -> dict[str, Any]:
    """The JSON of the action the bot picks for whoever is to move, after checking it."""
    seat = state.current_player()
    legal = [state.action_to_json(action) for action in state.legal_actions()]
    index = choose(state.observation(seat), legal)
    assert type(index) is int and 0 <= index < len(legal)
    return legal[index]


def greedy_step(state: GameState) -> dict[str, Any]:
    """Play the bot's choice; return its JSON."""
    seat = state.current_player()
    legal = state.legal_actions()
    index = choose(state.observation(seat), [state.action_to_json(a) for a in legal])
    assert type(index) is int and 0 <= index < len(legal)
    chosen = state.action_to_json(legal[index])
    state.apply_action(legal[index])
    return chosen


def finish_turn(state: RaDiceState) -> list[dict[str, Any]]:
    """Let the bot apply the turn player's dice until the turn is over."""
    player, chosen = state.player, []
    while state.phase == APPLY and state.player == player:
        chosen.append(greedy_step(state))
    return chosen


def setup(**tracks: list[int]) -> Callable[[RaDiceState], None]:
    def arrange(state: RaDiceState) -> None:
        for name, values in tracks.items():
            getattr(state, name)[:] = values

    return arrange


# --------------------------------------------------------------------------- rolling


def test_keeps_a_strong_roll() -> None:
    state = make_state(2, "CCCCC")  # three Civilization markers, worth 5 points apiece
    assert greedy_move(state) == {"type": "stop"}


def test_rerolls_dice_that_cannot_be_used() -> None:
    # Pharaoh dice on a full Pharaoh track do nothing: all five go back in the cup.
    state = make_state(2, "PPPPP", setup=setup(pharaoh=[12, 3]))
    assert greedy_move(state) == {"type": "reroll",
                                  "dice": ["red", "yellow", "green", "blue", "purple"]}


def test_rerolls_the_odd_die_and_keeps_the_set() -> None:
    # Four Civilization dice place two markers; the lone Pharaoh die goes alone.
    state = make_state(3, "CCCCP", setup=setup(pharaoh=[12, 0, 0]))
    assert greedy_move(state) == {"type": "reroll", "dice": ["purple"]}


def test_keeps_one_pharaoh_die_to_break_a_shared_lead() -> None:
    # Seats 0 and 2 share the Pharaoh lead (both would score 5): one more space makes
    # seat 0 the only leader and costs seat 2 five points; more spaces add little.
    def arrange(state: RaDiceState) -> None:
        state.pharaoh[:] = [4, 3, 4]
        state.ra = 11  # late in the epoch

    state = make_state(3, "PPSCP", setup=arrange)
    chosen = greedy_move(state)
    assert chosen["type"] == "reroll"
    kept = [die["face"] for die in state.observation(0)["dice"]
            if die["colour"] not in chosen["dice"]]
    assert sorted(kept) == ["pharaoh", "sun"]


# -------------------------------------------------------------------------- applying


def test_floods_a_high_nile_marker_before_advancing() -> None:
    state = make_state(2, "NNNNP", setup=setup(nile=[8, 2]))
    stop(state)
    chosen = finish_turn(state)
    assert chosen[0] == {"type": "apply", "what": "flood",
                         "dice": ["red", "yellow", "green"]}
    assert state.floods[0] == 1 and state.nile[0] == 9  # then the fourth Nile advances
    assert state.pharaoh[0] == 1


def test_places_as_many_civilization_markers_as_it_can() -> None:
    state = make_state(3, "CCCCC", setup=lambda s: put_civilization(s, 1, "red"))
    stop(state)
    chosen = finish_turn(state)
    assert chosen[0]["what"] == "civilization" and len(chosen[0]["colours"]) == 3
    assert state.civilization_markers[0] == 3


def test_first_monument_goes_where_it_completes_a_column_bonus() -> None:
    def arrange(state: RaDiceState) -> None:
        put_monument(state, 0, 6, "yellow")
        put_monument(state, 0, 6, "green")  # two in column 6: a third scores 5

    state = make_state(2, "MPPPP", setup=arrange)
    stop(state)
    placed = [move for move in finish_turn(state) if move["what"] == "monument"]
    assert [(move["column"], move["colour"]) for move in placed] == [(6, "red")]


def test_keeps_ankhs_as_a_pair_rather_than_an_extra_pharaoh_space() -> None:
    state = make_state(2, "PPAAN", setup=setup(pharaoh=[0, 0]))
    stop(state)
    finish_turn(state)
    assert state.pharaoh[0] == 2 and state.nile[0] == 1
    assert state.scores[0] == 10 + 2  # the Ankh pair


def test_spends_ankhs_when_they_win_the_pharaoh_race() -> None:
    state = make_state(3, "PAANN", setup=setup(pharaoh=[1, 4, 0]))
    stop(state)
    finish_turn(state)
    assert state.pharaoh[0] == 4  # level with seat 1: the furthest markers score 5
    assert state.scores[0] == 10  # no pair left


# ------------------------------------------------------------------------- disasters


def test_disaster_strikes_where_the_leader_loses_most() -> None:
    def arrange(state: RaDiceState) -> None:
        state.scores[:] = [10, 40, 12]
        for colour in ("red", "yellow", "green"):  # the leader's three markers: 5 points
            put_civilization(state, 1, colour)
        state.pharaoh[:] = [0, 0, 6]  # the trailing player leads the Pharaohs

    state = make_state(3, "SSSSP", setup=arrange)
    stop(state)
    assert state.phase == DISASTER
    assert greedy_move(state) == {"type": "disaster", "what": "civilization"}


def test_nile_disaster_against_a_single_flood_on_a_high_space() -> None:
    state = make_state(2, "SSSSP", setup=setup(nile=[0, 11], floods=[0, 1]))
    stop(state)
    assert greedy_move(state) == {"type": "disaster", "what": "nile"}


def test_a_victim_gives_up_its_least_valuable_monument() -> None:
    def arrange(state: RaDiceState) -> None:
        for colour in ("red", "yellow", "green"):  # a column of three: 5 bonus points
            put_monument(state, 1, 0, colour)
        put_monument(state, 1, 5, "blue")  # a lone marker: one column point

    state = make_state(2, "SSSSP", setup=arrange)
    stop(state)
    helpers.play(state, type="disaster", what="monument")
    assert state.phase == VICTIM and state.current_player() == 1
    assert greedy_move(state) == {"type": "lose", "what": "monument", "column": 5,
                                  "row": 3, "colour": "blue"}


def test_a_victim_keeps_full_civilization_spaces_closed() -> None:
    def arrange(state: RaDiceState) -> None:
        for colour in ("red", "yellow", "green"):
            put_civilization(state, 1, colour)
        for colour in ("red", "yellow", "blue"):  # red and yellow are full (capacity 2)
            put_civilization(state, 2, colour)  # (seat 2 chooses after seat 1)

    state = make_state(3, "SSSSP", setup=arrange)
    stop(state)
    helpers.play(state, type="disaster", what="civilization")
    assert state.current_player() == 1
    assert greedy_move(state) == {"type": "lose", "what": "civilization", "colour": "green"}


# ---------------------------------------------------------------------- whole games


def greedy_against_random(num_players: int, seed: int, greedy_seat: int) -> GameState:
    state = GAME.new_game(num_players, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.current_player() == greedy_seat:
            greedy_step(state)  # checks that the index is in range
        else:
            state.apply_action(legal[rng.randrange(len(legal))])
    return state


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_whole_games_legal_deterministic_and_stronger_than_random(num_players: int) -> None:
    wins = 0
    games = 4
    for game in range(games):
        seat = game % num_players
        state = greedy_against_random(num_players, seed=100 + game, greedy_seat=seat)
        wins += state.placements()[seat] == 1
        if game == 0:  # the same seed gives the same game, move for move
            again = greedy_against_random(num_players, seed=100, greedy_seat=seat)
            assert again.record() == state.record()
            GAME.replay(state.record())
    assert wins >= games - 1  # random wins 1 game in num_players


def test_strength_check_counts_wins_and_margins() -> None:
    figures = against_random(3, games=3, seed=11)
    assert figures["games"] == 3 and figures["wins"] >= 2
    assert figures["greedy_mean"] > figures["random_mean"]
    assert figures["worst_margin"] <= figures["mean_margin"]


def test_reads_the_board_options_from_the_observation() -> None:
    # A short track, a short Sun track, one marker per Civilization space: the bot reads
    # the board from the observation (not the defaults) and plays every seat to the end.
    options = {"board": {"track_top": 5, "civilization_capacity": 1,
                         "sun_track": {"last_space": 6, "start": {"2": 0, "3": 0, "4": 0}}}}
    state = GAME.new_game(3, 5, options)
    while not state.is_terminal():
        greedy_step(state)
        seen = state.observation(0)
        assert max(seen["pharaoh"] + seen["nile"]) <= 5
    assert sorted(state.placements()) == [1, 2, 3]


def test_plays_every_seat_through_the_referee() -> None:
    async def game() -> Any:
        players = [dice_greedy_player(f"greedy-{seat}") for seat in range(4)]
        return await play_game(GAME, players, seed=7)

    outcome = trio.run(game)
    assert outcome.forfeits == {}
    assert sorted(outcome.placements) == [1, 2, 3, 4]
    assert GAME.replay(outcome.engine).placements() == list(outcome.placements)


def test_beats_random_through_the_referee() -> None:
    async def game(seed: int) -> Any:
        return await play_game(GAME, [random_player(), dice_greedy_player()], seed=seed)

    outcomes = [trio.run(game, seed) for seed in (1, 2)]
    assert all(outcome.placements == (2, 1) for outcome in outcomes)


# ----------------------------------------------------------------------------- league


def test_a_small_dice_league_runs_end_to_end(tmp_path: Path, capsys) -> None:
    league = tmp_path / "dice.toml"
    league.write_text(
        'name = "dice-test"\ngame = "ra_dice"\nplayers = 2\n'
        'roster = ["dice-greedy", "random"]\nrounds = 2\nseed = 3\n'
        'results_dir = "out"\nconcurrency = 2\n'
    )
    assert main(["run", str(league), "--quiet"]) == 0
    assert "dice-greedy" in capsys.readouterr().out  # the leaderboard
    store = open_store(load_league(league).results_dir)
    results = store.results()
    assert len(results) == 4  # one table, two seatings, two rounds
    for result in results:
        assert result.game == "ra_dice" and result.failures == {}
        assert sorted(result.placements) == [1, 2]
        state = GAME.replay(store.find_game(result.game_id).engine)
        assert list(result.placements) == state.placements()
    greedy_places = [result.placements[result.bots.index("dice-greedy")] for result in results]
    assert greedy_places.count(1) >= 3
    assert main(["leaderboard", str(league)]) == 0
    assert "dice-greedy" in capsys.readouterr().out



def test_the_bot_folder_announces_the_strategy_version() -> None:
    # Leagues refuse a bot whose version changed; the strategy lives outside the bot
    # folder, so its VERSION and the manifest must move together.
    manifest = Path(__file__).parents[2] / "arena" / "bots" / "dice-greedy" / "bot.toml"
    assert tomllib.loads(manifest.read_text())["version"] == VERSION


def test_the_lookahead_roll_values_count_the_rerolls_left() -> None:
    rng = random.Random(3)
    state = GAME.new_game(3, 7)
    first_rolls = last_rolls = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        observation = state.observation(state.current_player())
        seen = [state.action_to_json(a) for a in legal]
        if observation["phase"] == "roll":
            ahead = lookahead_roll_values(observation, seen)
            plain = action_values(observation, seen)
            if observation["rerolls_left"] == 1:  # the last reroll: nothing to look ahead to
                assert ahead == pytest.approx(plain)
                last_rolls += 1
            else:  # a second reroll can only help: never worth less than stopping after one
                assert all(a >= p - 1e-9 for a, p in zip(ahead, plain, strict=True))
                first_rolls += 1
        state.apply_action(legal[rng.randrange(len(legal))])
    assert first_rolls and last_rolls
    # the lookahead's caches are big: free them (a large heap slows the garbage
    # collector, which the timed games of later tests would feel)
    dice_greedy._shown_value.cache_clear()
    dice_greedy._reroll_value.cache_clear()
