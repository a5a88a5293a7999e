"""dice-mcts: it rebuilds the position from what it sees, searches legally and
deterministically, and plays the same in-process and as a bot process."""

from __future__ import annotations

import dataclasses
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.games.ra_dice.state import APPLY, DISASTER, OVER, ROLL, VICTIM, RaDiceState
from arena.plugins import load_game
from arena.runner.botspec import BotSpec
from arena.runner.players import random_player
from arena.runner.pool import open_bot_pool
from arena.runner.referee import play_game
from arena.settings import Limits
from arena.strategies.dice_greedy import dice_greedy_player
from arena.strategies.dice_mcts import (
    VERSION,
    DiceMctsSettings,
    DiceMctsStrategy,
    dice_mcts_player,
    search,
    state_from_observation,
)

GAME = load_game("ra_dice")
BOT = Path(__file__).resolve().parents[2] / "arena" / "bots" / "dice-mcts"
# everything of a position except how its future dice are drawn
PUBLIC = ("num_players", "options", "scores", "pharaoh", "nile", "floods", "civilization",
          "monuments", "ra", "epoch", "player", "phase", "faces", "rolls", "used",
          "placed_monuments", "victims")


def positions(players: int, seed: int) -> list[RaDiceState]:
    """Every position of a game with random choices, including disasters' victims."""
    rng = random.Random(seed)
    state = GAME.new_game(players, seed)
    seen = []
    while state.phase != OVER:
        seen.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return seen


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_position_rebuilt_from_an_observation_is_the_real_one(players: int) -> None:
    phases = set()
    for seed in (0, 1, 9, 14, 28, 37):  # seeds 9 onwards have disasters with victims
        for state in positions(players, seed):
            seat = state.current_player()
            rebuilt = state_from_observation(state.observation(seat), seed=99)
            real, copy = state.to_json(), rebuilt.to_json()
            if state.phase != ROLL:  # the turn's roll count is read only while rolling
                del real["rolls"], copy["rolls"]
            keys = [k for k in PUBLIC if k in real]
            assert {k: copy[k] for k in keys} == {k: real[k] for k in keys}
            assert rebuilt.legal_actions() == state.legal_actions()
            phases.add(rebuilt.phase)
    assert {ROLL, APPLY, DISASTER} <= phases
    if players > 2:  # a victim choosing which markers to lose
        assert VICTIM in phases


def test_a_fixed_iteration_count_makes_it_deterministic_and_legal() -> None:
    for state in positions(3, 11)[::15]:
        legal = state.legal_actions()
        first, tree = search(state, random.Random(5), iterations=60)
        again, _ = search(state, random.Random(5), iterations=60)
        assert first == again and first in legal
        assert 0 < tree.visits <= 60  # it stops early once the answer cannot change


def test_search_needs_a_budget() -> None:
    with pytest.raises(ValueError, match="budget"):
        search(GAME.new_game(2, 1), random.Random(0))


def test_root_candidates_limit_the_search_to_the_greedy_bots_best() -> None:
    # a position with many applications: only the allowed ones get visits
    state = next(s for s in positions(2, 3) if len(s.legal_actions()) > 4)
    allowed = state.legal_actions()[:2]
    action, tree = search(state, random.Random(1), iterations=50, candidates=allowed)
    assert action in allowed and set(tree.edges) <= set(allowed)


def test_the_paired_root_plays_every_candidate_from_the_same_dice() -> None:
    paired = DiceMctsSettings(root_candidates=3, paired_root=True)
    state = next(s for s in positions(3, 3) if len(s.legal_actions()) > 4)
    allowed = state.legal_actions()[:3]
    action, tree = search(state, random.Random(1), iterations=31, settings=paired,
                          candidates=allowed)
    again, _ = search(state, random.Random(1), iterations=31, settings=paired,
                      candidates=allowed)
    assert action == again and action in allowed
    assert set(tree.edges) == set(allowed)
    assert [edge.visits for edge in tree.edges.values()] == [10, 10, 10]
    assert tree.visits == 30
    seat = state.current_player()
    assert action == max(allowed, key=lambda a: tree.edges[a].totals[seat])


def test_whole_games_in_process_through_the_referee_beat_random() -> None:
    async def game(seed: int) -> Any:
        return await play_game(GAME, [random_player(), dice_mcts_player(iterations=40)],
                               seed=seed)

    for seed in (1, 2):
        record = trio.run(game, seed)
        assert record.forfeits == {}
        assert record.placements == (2, 1)


def test_a_time_limited_game_has_no_timeout() -> None:
    limits = Limits(move_seconds=0.15)

    async def game() -> Any:
        return await play_game(GAME, [dice_greedy_player(), dice_mcts_player()], seed=4,
                               limits=limits)

    record = trio.run(game)
    assert record.forfeits == {}
    assert max(seat["max_seconds"] for seat in record.timings["seats"]) < 0.15


def test_it_thinks_a_share_of_the_time_per_decision() -> None:
    strategy = DiceMctsStrategy(settings=DiceMctsSettings(time_share=0.5, time_reserve=0.01))
    strategy.new_game({"seed": 1, "time": {"move_ms": 1000}})
    state = GAME.new_game(3, 1)
    assert strategy.budget(state.observation(0)) == pytest.approx(0.49)


def test_a_legal_list_from_another_position_is_refused() -> None:
    state = GAME.new_game(2, 1)
    other = next(s for s in positions(2, 7) if len(s.legal_actions()) > 1
                 and s.legal_actions() != state.legal_actions())
    legal = [other.action_to_json(a) for a in other.legal_actions()]
    with pytest.raises(ValueError, match="does not match"):
        DiceMctsStrategy(iterations=5).choose(state.observation(0), legal)


def test_the_bot_process_plays_exactly_as_the_strategy_in_process() -> None:
    limits = dataclasses.replace(Limits(), move_seconds=5.0)
    manifest = tomllib.loads((BOT / "bot.toml").read_text())
    spec = BotSpec(name="dice-mcts", version=manifest["version"],
                   command=(*manifest["command"], "--iterations", "30"), folder=BOT,
                   games={"ra_dice": (2, 3, 4)}, source=f"folder {BOT}",
                   description=manifest["description"])

    async def as_process() -> Any:
        async with open_bot_pool(limits) as pool, pool.seated([spec]) as (player,):
            return await play_game(GAME, [player, dice_greedy_player()], 21,
                                   limits=limits)

    async def in_process() -> Any:
        return await play_game(GAME, [dice_mcts_player(iterations=30), dice_greedy_player()],
                               21, limits=limits)

    process_record, local_record = trio.run(as_process), trio.run(in_process)
    assert process_record.forfeits == {}
    assert process_record.engine["actions"] == local_record.engine["actions"]


def test_the_bot_folder_announces_the_strategy_version() -> None:
    assert tomllib.loads((BOT / "bot.toml").read_text())["version"] == VERSION


def test_a_fixed_iteration_count_ignores_the_arenas_time() -> None:
    strategy = DiceMctsStrategy(iterations=50)
    strategy.new_game({"seed": 1, "time": {"move_ms": 100, "game_ms": 5000}})
    assert strategy.budget(GAME.new_game(3, 1).observation(0)) is None


def test_the_dice_ladder_is_bundled_and_finds_its_bots(tmp_path: Path, capsys,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    from arena.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["run", "dice-ladder", "--dry-run"]) == 0
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "dice-ladder: ra_dice, bots random, first, dice-greedy, dice-mcts" in out
    assert "160 games, 0 already played" in out
    assert not any(tmp_path.iterdir())  # a dry run stores nothing


def test_pruning_drops_a_clearly_worse_candidate_and_keeps_the_rounds_paired() -> None:
    from arena.strategies.dice_mcts import Edge, Node, _survivors

    tree = Node()
    for action in (7, 8, 9):
        tree.edges[action] = Edge(2)
    history = {7: [0.5, 0.6, 0.4, 0.5], 8: [0.2, 0.3, 0.1, 0.2], 9: [0.5, 0.55, 0.45, 0.5]}
    for action, rewards in history.items():
        tree.edges[action].totals[0] = sum(rewards)
    # 8 trails 7 by 0.3 in every round: pruned; 9 is level with 7 on average: kept
    assert _survivors(tree, [7, 8, 9], history, 0, 2.0) == [7, 9]

    pruning = DiceMctsSettings(root_candidates=5, paired_root=True, prune_every=4, prune_z=1.0)
    for state in positions(3, 3)[::30]:
        allowed = state.legal_actions()[:5]
        if len(allowed) < 3:
            continue
        action, tree = search(state, random.Random(2), iterations=100, settings=pruning,
                              candidates=allowed)
        again, _ = search(state, random.Random(2), iterations=100, settings=pruning,
                          candidates=allowed)
        assert action == again and action in allowed
        assert sum(edge.visits for edge in tree.edges.values()) == tree.visits <= 100
        # the answer played every round: no pruned candidate has more playouts
        most = max(edge.visits for edge in tree.edges.values())
        assert tree.edges[action].visits == most


def test_a_short_search_keeps_greedys_favourite_unless_another_is_clearly_better() -> None:
    from arena.strategies.dice_mcts import _significant

    assert _significant([0.6, 0.7, 0.65, 0.6], [0.5, 0.5, 0.5, 0.5], 2.0)
    assert not _significant([0.6, 0.4, 0.6, 0.4], [0.5, 0.5, 0.5, 0.5], 1.0)
    assert not _significant([0.9], [0.1], 1.0)  # one round says nothing
    cautious = DiceMctsSettings(root_candidates=3, paired_root=True, deviate_z=1e9)
    for state in positions(3, 5)[::12]:
        allowed = state.legal_actions()[:3]
        action, _ = search(state, random.Random(3), iterations=30, settings=cautious,
                           candidates=allowed)
        assert action == allowed[0]


@pytest.mark.parametrize("guard", [True, False])
def test_without_the_starvation_guard_it_thinks_to_its_deadline(
        guard: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    state = next(s for s in positions(3, 3) if len(s.legal_actions()) > 4)
    allowed = state.legal_actions()[:3]
    settings = DiceMctsSettings(root_candidates=3, paired_root=True, starvation_guard=guard)
    monkeypatch.setattr(time, "process_time", lambda: 0.0)  # as if it got no CPU at all
    started = time.perf_counter()
    search(state, random.Random(1), seconds=0.4, settings=settings, candidates=allowed)
    spent = time.perf_counter() - started
    # starved, the guard thinks a quarter of the budget; without it, all of it
    assert (spent < 0.3) if guard else (0.38 < spent < 0.6)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_playout_is_the_rollout_policy_played_step_by_step(players: int) -> None:
    """The playouts' fast path (no list of applications) plays exactly the policy."""
    from arena.strategies.dice_mcts import (
        _apply_choice,
        _best_application,
        _can_apply,
        _playout,
        rewards,
        rollout_action,
    )

    def step_by_step(root: RaDiceState, action: int, seed: int,
                     settings: DiceMctsSettings) -> list[float]:
        state = root.clone()
        state.reseed(seed)
        rng = random.Random(seed)
        epoch = state.epoch
        state.apply_action(action)
        while state.phase != OVER and (settings.to_game_end or state.epoch == epoch):
            state.apply_action(rollout_action(state, rng, settings.rollout_noise))
        return rewards(state, settings.margin_scale)

    applying = 0
    for seed in range(4):
        for state in positions(players, 10 * players + seed):
            if state.phase == APPLY:
                legal = state.legal_actions()
                assert _best_application(state) == _apply_choice(state, legal)
                assert _can_apply(state) == (len(state._applications()) > 1)
                applying += 1
    assert applying > 100
    settings = [DiceMctsSettings(), DiceMctsSettings(rollout_noise=0.5, to_game_end=True)]
    for state in positions(players, players)[::9]:
        legal = state.legal_actions()
        for number, action in enumerate(legal[:2]):
            for chosen in settings:
                assert (_playout(state, action, number, chosen)
                        == step_by_step(state, action, number, chosen))


def test_turn_streams_give_later_turns_the_same_dice_whatever_this_turn_rolled() -> None:
    from arena.games.ra_dice import actions as A
    from arena.strategies.dice_mcts import _PlayoutState

    def next_turn_faces(root: RaDiceState, first: int, seed: int, streams: bool) -> list[int]:
        state = root.clone()
        state.__class__ = _PlayoutState
        state.turn_streams = streams
        state.reseed(seed)
        player = state.player
        state.apply_action(first)
        while state.player == player and state.phase != OVER:
            legal = state.legal_actions()
            state.apply_action(A.STOP if state.phase == ROLL
                               else A.DONE if A.DONE in legal else legal[0])
        return list(state.faces)

    roots = [s for s in positions(3, 7) if s.phase == ROLL and s.rolls == 1
             and s.epoch == 1 and len(s.legal_actions()) > 2][:5]
    assert roots
    differ = 0
    for root in roots:
        reroll = root.legal_actions()[-1]  # every unlocked die: one roll more than a stop
        for seed in range(4):
            assert (next_turn_faces(root, A.STOP, seed, True)
                    == next_turn_faces(root, reroll, seed, True))
            differ += (next_turn_faces(root, A.STOP, seed, False)
                       != next_turn_faces(root, reroll, seed, False))
    assert differ  # one stream: a reroll shifts every later turn's dice
