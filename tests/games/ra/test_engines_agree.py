"""The compiled Ra core against the pure-Python engine, the reference: the same game to
the bit.  The same seed and actions give the same legal lists, outcomes, observations,
to_json, records, scores and placements, and the same draws from the same random stream;
clones, reseeds and saved states continue alike; the whole playouts in C (random,
greedy, the search's) are the Python loops they replace.

100,000 random games per edition and player count: on the compiled core against the
pure engine's recorded fingerprints (engine_digests.py says why recorded and how to
regenerate), whose first 1,000 games per case are replayed here on the pure engine.
The golden playthroughs run on both engines (test_golden_playthroughs.py), as does every
other Ra test (conftest.py)."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import random
from typing import Any

import engine_digests as digests
import pytest

from arena.games.base import GameError, IllegalActionError
from arena.games.ra import RaGame, RaState, determinize, engines
from arena.games.ra.scenario import build_state
from arena.games.ra.state import RaStateViews
from arena.strategies import greedy, mcts, rollout, valuation

PYTHON = RaGame("python")
EDITIONS = ["classic", "2023", None]  # None: a record from before editions
CASES = [(edition, players) for edition in EDITIONS for players in range(2, 6)]


@pytest.fixture(scope="module", autouse=True)
def ra_engine(compiled_ra: type) -> str:
    """This module compares the engines itself: it runs once, and needs the core."""
    return engines.COMPILED


@pytest.fixture(scope="module")
def compiled() -> RaGame:
    return RaGame("compiled")


def start(game: RaGame, players: int, seed: int, edition: str | None) -> RaStateViews:
    if edition is None:
        return game.replay_start(players, seed, {})
    return game.new_game(players, seed, {"edition": edition})


def same_position(pure: RaStateViews, core: RaStateViews, seats: bool = True) -> None:
    assert core.current_player() == pure.current_player()
    assert core.is_terminal() == pure.is_terminal()
    assert core.legal_actions() == pure.legal_actions()
    assert [core.action_to_json(a) for a in core.legal_actions()] == \
           [pure.action_to_json(a) for a in pure.legal_actions()]
    if seats:
        for seat in range(pure.num_players):
            assert core.observation(seat) == pure.observation(seat)
    assert core.to_json() == pure.to_json()


# -- the random stream -----------------------------------------------------------------------

SEEDS = [0, 1, 7, -7, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63 + 11, 2**64, 3**100]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_core_generator_is_pythons(seed: int) -> None:
    from arena.games.ra._core import mt_check, mt_randbelow_check

    reference = random.Random(seed)
    assert mt_check(seed, 700) == [reference.random() for _ in range(700)]  # a twist too
    bounds = [1, 2, 3, 5, 8, 13, 16, 17, 31, 32, 33, 100, 2**20 + 3, 2**31 - 1] * 60
    reference = random.Random(seed)
    assert mt_randbelow_check(seed, bounds) == [reference.randrange(n) for n in bounds]


# -- 100,000 random games per edition and player count -----------------------------------------


@pytest.mark.parametrize(("edition", "players"), digests.CASES,
                         ids=[digests.case_name(*case) for case in digests.CASES])
def test_100000_random_games_as_the_pure_engine_played_them(edition: str, players: int) -> None:
    expected = digests.load()[digests.case_name(edition, players)]
    assert len(expected) == digests.GAMES // digests.CHUNK
    for chunk, digest in enumerate(expected):
        first = chunk * digests.CHUNK
        got = digests.compiled_fingerprints(edition, players, first, digests.CHUNK)
        if digests.chunk_digest(got) != digest:
            # find the game, and what differs, by playing the chunk on the pure engine
            pure = digests.pure_fingerprints(edition, players, first, digests.CHUNK)
            assert digests.chunk_digest(pure) == digest, (
                f"the pure engine no longer plays games {first}-{first + digests.CHUNK - 1}"
                f" as recorded: regenerate the digests (see engine_digests.py)")
            seed = first + next(i for i, (a, b) in enumerate(zip(got, pure, strict=True))
                                if a != b)
            compare_random_game(edition, players, seed)
            raise AssertionError(f"game {seed}: the fingerprints differ")


@pytest.mark.parametrize(("edition", "players"), digests.CASES,
                         ids=[digests.case_name(*case) for case in digests.CASES])
def test_the_recorded_digests_are_what_the_pure_engine_plays(edition: str, players: int
                                                              ) -> None:
    expected = digests.load()[digests.case_name(edition, players)]
    pure = digests.pure_fingerprints(edition, players, 0, digests.CHUNK)
    assert digests.chunk_digest(pure) == expected[0], (
        "the pure engine's games differ from the recorded digests: if the rules changed "
        "on purpose, regenerate them (see engine_digests.py)")
    assert pure == digests.compiled_fingerprints(edition, players, 0, digests.CHUNK)


def compare_random_game(edition: str, players: int, seed: int) -> None:
    """Game ``seed`` of a digest case step by step on both engines (a failure's detail)."""
    core = RaGame("compiled").new_game(players, seed, {"edition": edition})
    pure = PYTHON.new_game(players, seed, {"edition": edition})
    policy = random.Random(seed)
    while not pure.is_terminal():
        same_position(pure, core, seats=False)
        choice = policy.choice(pure.legal_actions())
        pure.apply_action(choice)
        core.apply_action(choice)
    same_position(pure, core)


# -- everything through the API --------------------------------------------------------------


@pytest.mark.parametrize(("edition", "players"), CASES, ids=[f"{e}-{p}p" for e, p in CASES])
def test_every_decision_of_random_games_agrees(compiled: RaGame, edition: str | None,
                                               players: int) -> None:
    for seed in range(50):
        pure, core = start(PYTHON, players, seed, edition), start(compiled, players, seed,
                                                                  edition)
        assert type(pure) is RaState and type(core) is not RaState
        policy = random.Random(seed * 7 + 1)
        step = 0
        while not pure.is_terminal():
            if step % 10 == seed % 10:  # the whole position (to_json grows with the game)
                same_position(pure, core)
            else:
                assert core.current_player() == pure.current_player()
                assert core.legal_actions() == pure.legal_actions()
            choice = policy.choice(pure.legal_actions())
            pure.apply_action(choice)
            core.apply_action(choice)
            assert core.outcome_json(choice) == pure.outcome_json(choice)
            step += 1
        same_position(pure, core)
        assert core.returns() == pure.returns()
        assert core.placements() == pure.placements()
        assert core.record() == pure.record()
        assert core.history == pure.history
        assert core.events == pure.events
        assert core.tiles_accounted() == pure.tiles_accounted()
        # each engine replays the other's record to the same state
        record = json.loads(json.dumps(core.record()))
        assert compiled.replay(record).to_json() == PYTHON.replay(record).to_json()


@pytest.mark.parametrize("edition", ["classic", "2023"])
def test_clones_reseeds_and_saved_states_continue_alike(compiled: RaGame, edition: str) -> None:
    for seed in range(40):
        players = 2 + seed % 4
        pure, core = start(PYTHON, players, seed, edition), start(compiled, players, seed,
                                                                  edition)
        policy = random.Random(seed)
        for _ in range(seed * 3 % 150):
            if pure.is_terminal():
                break
            choice = policy.choice(pure.legal_actions())
            pure.apply_action(choice)
            core.apply_action(choice)
        saved = json.loads(json.dumps(core.to_json()))
        copies = [
            (pure.clone(), core.clone()),
            (PYTHON.state_from_json(saved), compiled.state_from_json(saved)),
            (pure.clone(random.Random(seed)), core.clone(random.Random(seed))),
            (copy.deepcopy(pure), copy.deepcopy(core)),
            (pure, pickle.loads(pickle.dumps(core))),
        ]
        for number, (a, b) in enumerate(copies):
            assert type(b) is type(core)
            if number == 2:  # clone(rng) then reseed: the search's sample of the future
                a.reseed(seed + 5)
                b.reseed(seed + 5)
            moves = random.Random(seed + number)
            while not a.is_terminal():
                assert b.legal_actions() == a.legal_actions()
                choice = moves.choice(a.legal_actions())
                a.apply_action(choice)
                b.apply_action(choice)
            same_position(a, b)
        # the original is untouched by its copies' games
        assert core.to_json() == saved


def test_a_shared_generator_is_drawn_from_alike(compiled: RaGame) -> None:
    """clone(rng) shares the generator: the copy's draws and the caller's own use of it
    interleave on one stream, as ISMCTS's tree search uses it."""
    pure, core = PYTHON.new_game(4, 3), compiled.new_game(4, 3)
    shared_pure, shared_core = random.Random(11), random.Random(11)
    a, b = pure.clone(shared_pure), core.clone(shared_core)
    while not a.is_terminal():
        legal = a.legal_actions()
        assert b.legal_actions() == legal
        a.apply_action(legal[shared_pure.randrange(len(legal))])
        b.apply_action(legal[shared_core.randrange(len(legal))])
    assert a.to_json() == b.to_json()
    assert shared_pure.getstate() == shared_core.getstate()


def test_positions_built_by_hand_play_alike() -> None:
    """Scenarios (tiles drawn in a given order first), determinised observations and the
    rules from before editions, converted to the core."""
    pure = build_state(3, tiles=[{"god": 2, "gold": 1}, {"unrest": 0}, {"pharaoh": 2}],
                       track=["nile", "flood", "funeral"], epoch=2, ra_track=3,
                       draws=["ra", "earthquake", "drought", "gold", "god", "astronomy"],
                       engine="python")
    positions: list[RaStateViews] = [pure]
    game = PYTHON.new_game(5, 9)
    policy = random.Random(2)
    for step in range(400):
        if game.is_terminal():
            break
        if step % 40 == 5:
            seat = game.current_player()
            positions.append(determinize(game.observation(seat), seat, step))
        game.apply_action(policy.choice(game.legal_actions()))
    for index, position in enumerate(positions):
        assert isinstance(position, RaState)
        core = engines.as_engine(position, engines.COMPILED)
        assert not isinstance(core, RaState)
        same_position(position, core)
        assert engines.as_engine(core, engines.PYTHON).to_json() == position.to_json()
        moves = random.Random(index)
        a = position.clone()
        while not a.is_terminal():
            choice = moves.choice(a.legal_actions())
            a.apply_action(choice)
            core.apply_action(choice)
            same_position(a, core, seats=False)
        same_position(a, core)


def test_illegal_actions_are_refused_alike(compiled: RaGame) -> None:
    pure, core = PYTHON.new_game(3, 5), compiled.new_game(3, 5)
    for action in (99, -1, 1.0, True, "0", None, 2**80):
        with pytest.raises(IllegalActionError) as refused_pure:
            pure.apply_action(action)  # type: ignore[arg-type]
        with pytest.raises(IllegalActionError) as refused_core:
            core.apply_action(action)  # type: ignore[arg-type]
        assert str(refused_core.value) == str(refused_pure.value)
    assert core.to_json() == pure.to_json()  # unchanged
    with pytest.raises(IllegalActionError, match="only known when the game is over"):
        core.returns()
    policy = random.Random(1)
    while not core.is_terminal():
        core.apply_action(policy.choice(core.legal_actions()))
    assert core.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        core.apply_action(0)


def test_the_compiled_fields_are_copies() -> None:
    """Changing what a field gives changes nothing; setting one is refused, but for the
    generator (replaceable on both engines)."""
    core = RaGame("compiled").new_game(3, 2)
    before = core.to_json()
    core.hold[0][1] += 5
    core.bag.clear()
    assert core.to_json() == before
    with pytest.raises(AttributeError):
        core.epoch = 2  # type: ignore[misc]
    mine = random.Random(4)
    core.rng = mine
    assert core.rng is mine


# -- whole playouts in C -------------------------------------------------------------------------


def positions(players: int, count: int, seed: int) -> list[RaState]:
    """Pure positions spread over random and greedy games (every kind of decision)."""
    found: list[RaState] = []
    game = 0
    while len(found) < count:
        state = PYTHON.new_game(players, seed + game, {"edition": ("classic", "2023")[game % 2]})
        policy = random.Random(game)
        step = 0
        while not state.is_terminal() and len(found) < count:
            if len(state.legal_actions()) > 1 and step % 3 == 0:
                found.append(state.clone())
            choice = (greedy.greedy_action(state) if game % 2 else
                      policy.choice(state.legal_actions()))
            state.apply_action(choice)
            step += 1
        game += 1
    return found


def random_parameters(rng: random.Random) -> greedy.GreedyParameters:
    """Greedy's tunable numbers, each somewhere between a tenth and three times its own."""
    def scaled(value: float) -> float:
        return value * rng.uniform(0.1, 3.0)

    weights = valuation.Weights(*(scaled(w) for w in dataclasses.astuple(valuation.AS_WRITTEN)))
    made = greedy.AS_MADE
    return greedy.GreedyParameters(scaled(made.denial), scaled(made.bid_margin),
                                   scaled(made.god_margin), weights)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_valuation_policies_and_rewards_are_the_pythons(players: int) -> None:
    for number, pure in enumerate(positions(players, 120, players * 1000)):
        core: Any = engines.as_engine(pure, engines.COMPILED)
        assert core.seat_values() == valuation.seat_values(pure)
        assert valuation.seat_values(core) == valuation.seat_values(pure)  # Python on either
        assert core.greedy_action() == greedy.greedy_action(pure)
        tuned = random_parameters(random.Random(number))  # as arena tune may weigh
        assert core.greedy_action(tuned.for_the_core()) == greedy.greedy_action(pure, tuned)
        assert greedy.greedy_action(core, tuned) == greedy.greedy_action(pure, tuned)
        for settings in (mcts.DEFAULT, mcts.STEPS["1.0"]):
            assert mcts.rewards(core, settings) == mcts.rewards(pure, settings)
        a, b = random.Random(number), random.Random(number)
        assert core.rollout_action(b) == rollout.rollout_action(pure, a)
        assert a.getstate() == b.getstate()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_whole_playouts_are_the_python_loops(players: int) -> None:
    for number, pure in enumerate(positions(players, 25, players * 77)):
        core: Any = engines.as_engine(pure, engines.COMPILED)
        # random to the end, the policy a generator of its own or the state's own
        a, b = pure.clone(), core.clone()
        policy_a, policy_b = random.Random(number), random.Random(number)
        decisions = 0
        while not a.is_terminal():
            a.apply_action(policy_a.choice(a.legal_actions()))
            decisions += 1
        assert b.play_random(policy_b) == decisions
        assert b.to_json() == a.to_json() and policy_a.getstate() == policy_b.getstate()
        a, b = pure.clone(), core.clone()
        while not a.is_terminal():
            a.apply_action(a.rng.choice(a.legal_actions()))
        b.play_random(b.rng)
        assert b.to_json() == a.to_json()
        # greedy in every seat
        a, b = pure.clone(), core.clone()
        while not a.is_terminal():
            a.apply_action(greedy.greedy_action(a))
        b.play_greedy()
        assert b.to_json() == a.to_json()
        a, b = pure.clone(), core.clone()
        tuned = random_parameters(random.Random(number))
        while not a.is_terminal():
            a.apply_action(greedy.greedy_action(a, tuned))
        b.play_greedy(tuned.for_the_core())
        assert b.to_json() == a.to_json()
        # the search's rollout to the epoch's end, and with a horizon
        for settings in (mcts.DEFAULT, mcts.MctsSettings(rollout_decisions=4),
                         mcts.MctsSettings(greedy_share=0.3),
                         mcts.MctsSettings(greedy_share=1.0)):
            a, b = pure.clone(), core.clone()
            policy_a, policy_b = random.Random(number), random.Random(number)
            mcts._roll_out(a, a.epoch, policy_a, settings)
            mcts._roll_out(b, b.epoch, policy_b, settings)
            assert b.to_json() == a.to_json() and policy_a.getstate() == policy_b.getstate()
        # the paired search's playout of every legal action from one seed
        for action in pure.legal_actions():
            for settings in (mcts.DEFAULT, mcts.STEPS["1.0"],
                             mcts.MctsSettings(greedy_share=0.5, to_game_end=True)):
                seed = random.Random(number).getrandbits(63)
                assert (core.paired_playout(action, seed, settings.reward == "pairwise",
                                            settings.margin_scale, -1,
                                            settings.greedy_share,
                                            settings.to_game_end)
                        == mcts._playout(pure, action, seed, settings))
        assert core.to_json() == pure.to_json()  # the playouts played copies


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("cur", 9, "current player 9"),
    ("ra_player", 7, "Ra player 7"),
    ("kind", 5, "auction kind 5"),
    ("dis_current", 3, "disaster 3"),
    ("dis_after", 9, "what follows the disasters (9)"),
    ("queue", [0, 8], "auction queue seat 8"),
    ("track", [-1], "auction track tile -1"),
    ("dis_pending", [2], "pending disaster 2"),
    ("bag", [0, 23], "the bag does not fit"),
    ("hold", [[0] * 23, [0] * 22 + [9], [0] * 23], "seat 1 holds 9 of tile 22"),
    ("epoch", 4, "epoch 4"),
])
def test_a_position_out_of_range_is_refused_by_the_core(field: str, value: Any, problem: str
                                                        ) -> None:
    """No position makes the C read or write out of bounds: converting one checks every
    field the core indexes by, and says which is wrong."""
    pure = PYTHON.new_game(3, 4)
    setattr(pure, field, value)
    with pytest.raises(ValueError, match="does not fit the compiled core") as refused:
        engines.compiled_class().from_pure(pure)
    assert problem in str(refused.value)


def test_a_damaged_saved_state_is_refused(compiled: RaGame) -> None:
    saved = json.loads(json.dumps(compiled.new_game(3, 4).to_json()))
    saved["current_player"] = 9  # the pure loader takes it; the core does not
    with pytest.raises(GameError, match="saved Ra state is damaged: .*current player 9"):
        compiled.state_from_json(saved)
    saved["current_player"] = 0
    saved["bag"].remove(22)
    saved["auction_track"] = [-1]  # -1 counts as the last tile in Python: not a tile
    for game in (compiled, PYTHON):
        with pytest.raises(GameError, match="saved Ra state is damaged: its tiles"):
            game.state_from_json(saved)
