"""The referee with in-process players: rules of the game around the game."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.deals import derived_seed
from arena.errors import ArenaError
from arena.records import GameRecord
from arena.runner.failures import BotFailure
from arena.runner.players import PythonPlayer, first_player, random_player
from arena.runner.protocol import DecisionRequest, Reply
from arena.runner.referee import adjusted_placements, play_game
from arena.settings import Limits

from .toygame import NIM

JSON = Any


def run(players: list[Any], seed: int = 1, limits: Limits | None = None,
        options: dict[str, JSON] | None = None) -> GameRecord:
    return trio.run(lambda: play_game(NIM, players, seed, options=options, limits=limits))


def without_timings(record: dict[str, JSON]) -> dict[str, JSON]:
    return {k: v for k, v in record.items() if k != "timings"}


def test_a_game_between_python_players_is_a_complete_json_record() -> None:
    outcome = run([random_player("a"), first_player("b"), random_player("c")], seed=5)
    record = json.loads(json.dumps(outcome.playthrough_json()))
    state = NIM.replay(record["engine"])
    assert state.is_terminal()
    assert record["scores"] == state.returns()
    assert record["placements"] == record["engine_placements"] == state.placements()
    assert [p["name"] for p in record["players"]] == ["a", "b", "c"]
    assert record["failures"] == [] and record["incidents"] == []
    decisions = sum(seat["decisions"] for seat in record["timings"]["seats"])
    assert decisions == len(record["engine"]["actions"])


def test_same_seed_same_record_different_seed_different_game() -> None:
    records = [run([random_player(), random_player()], seed=s,
                   options={"pile": 40}).playthrough_json() for s in (11, 11, 12)]
    assert without_timings(records[0]) == without_timings(records[1])
    assert records[0]["engine"]["actions"] != records[2]["engine"]["actions"]


def test_every_seat_sees_every_action_and_the_result() -> None:
    seen: dict[int, list[JSON]] = {0: [], 1: []}
    results: list[JSON] = []
    infos: list[JSON] = []

    def player(seat: int) -> PythonPlayer:
        return PythonPlayer(f"p{seat}", lambda obs, legal: len(legal) - 1,
                            on_new_game=infos.append, on_action=seen[seat].append,
                            on_game_over=results.append)

    outcome = run([player(0), player(1)], seed=3)
    actions = outcome.engine["actions"]
    for seat in (0, 1):
        assert [(n["seat"], n["action"]["stones"]) for n in seen[seat]] == \
            [(a["seat"], a["action"]) for a in actions]
        assert [n["decision"] for n in seen[seat]] == list(range(1, len(actions) + 1))
    assert [r["placements"] for r in results] == [list(outcome.placements)] * 2
    assert sorted(i["seat"] for i in infos) == [0, 1]
    assert all(i["type"] == "new_game" and i["game"] == "nim" and i["num_players"] == 2
               for i in infos)


def test_bot_seeds_differ_by_seat_and_do_not_reveal_the_game_seed() -> None:
    seeds = {derived_seed(7, seat, "bot") for seat in range(4)}
    assert len(seeds) == 4 and 7 not in seeds
    assert derived_seed(7, 0, "bot") == derived_seed(7, 0, "bot")
    assert derived_seed(7, 0, "bot", "s") != derived_seed(7, 0, "bot")
    assert all(0 <= s < 2**63 for s in seeds)


class Scripted:
    """A player whose replies are built by a function of the request."""

    kind = "python"
    version = "0"

    def __init__(self, name: str, answer: Any) -> None:
        self.name = name
        self.answer = answer
        self.abandoned: list[str] = []

    async def start_game(self, info: Any) -> None:
        pass

    async def choose(self, request: DecisionRequest) -> Reply:
        result: Reply = await self.answer(request)
        return result

    async def notify(self, notice: Any) -> None:
        pass

    async def game_over(self, result: Any) -> None:
        pass

    async def abandon(self, failure: BotFailure) -> str:
        self.abandoned.append(failure.reason)
        return "tail of stderr"

    def take_incidents(self) -> list[JSON]:
        return []


async def _illegal(request: DecisionRequest) -> Reply:
    return Reply(request.id, len(request.legal))


async def _negative(request: DecisionRequest) -> Reply:
    return Reply(request.id, -1)


async def _wrong_id(request: DecisionRequest) -> Reply:
    return Reply(str(request.id), 0)


async def _bool_id(request: DecisionRequest) -> Reply:
    return Reply(True, 0)


async def _sleepy(request: DecisionRequest) -> Reply:
    await trio.sleep(10)
    return Reply(request.id, 0)


@pytest.mark.parametrize(("answer", "reason"), [
    (_illegal, "illegal"), (_negative, "illegal"), (_wrong_id, "protocol"),
    (_bool_id, "protocol"), (_sleepy, "timeout"),
])
def test_a_failing_seat_forfeits_and_is_played_out(answer: Any, reason: str) -> None:
    bad = Scripted("bad", answer)
    limits = Limits(move_seconds=0.05)
    outcome = run([bad, first_player()], seed=2, limits=limits)
    (failure,) = outcome.failures
    assert failure == {**failure, "seat": 0, "bot": "bad", "reason": reason,
                       "phase": "decision", "decision": 1, "stderr_tail": "tail of stderr"}
    assert bad.abandoned == [reason]  # told once, then never asked again
    assert outcome.forfeits == {0: reason}
    assert outcome.placements == (2, 1)
    assert NIM.replay(outcome.engine).is_terminal()


def test_when_every_seat_forfeits_all_share_the_last_place() -> None:
    limits = Limits(move_seconds=0.05)
    outcome = run([Scripted("bad", _illegal), Scripted("worse", _wrong_id)], seed=2,
                  limits=limits)
    assert outcome.forfeits == {0: "illegal", 1: "protocol"}
    assert outcome.placements == (2, 2)  # neither is first: a forfeit never wins
    assert sorted(outcome.engine_placements) != [2, 2]  # the engine did rank them


def test_the_fallback_is_seeded_by_game_seed_and_seat() -> None:
    limits = Limits(move_seconds=0.05)
    games = [run([Scripted("bad", _illegal), first_player()], seed=s, limits=limits,
                 options={"pile": 60}).engine["actions"] for s in (4, 4, 5)]
    assert games[0] == games[1]
    fallback_moves = [[a["action"] for a in g if a["seat"] == 0] for g in games]
    assert fallback_moves[0] != fallback_moves[2]  # not a constant policy


def test_an_exception_in_a_python_player_is_a_crash() -> None:
    def explode(obs: JSON, legal: JSON) -> int:
        raise ValueError("no idea")

    outcome = run([PythonPlayer("x", explode), first_player()], seed=1)
    (failure,) = outcome.failures
    assert failure["reason"] == "crash" and "ValueError: no idea" in failure["detail"]


def test_a_python_player_returning_junk_is_malformed() -> None:
    outcome = run([PythonPlayer("x", lambda o, legal: "0"), first_player()], seed=1)  # type: ignore[arg-type,return-value]
    assert outcome.forfeits == {0: "malformed"}


def test_a_slow_python_player_times_out_even_though_it_cannot_be_interrupted() -> None:
    def slow(obs: JSON, legal: JSON) -> int:
        time.sleep(0.03)
        return 0

    outcome = run([PythonPlayer("slow", slow), first_player()], seed=1,
                  limits=Limits(move_seconds=0.01))
    assert outcome.forfeits == {0: "timeout"}


def test_the_overage_bank_absorbs_slow_moves_until_it_is_spent() -> None:
    def slow(obs: JSON, legal: JSON) -> int:
        time.sleep(0.03)
        return 0

    limits = Limits(move_seconds=0.01, bank_seconds=0.07)  # about 3 slow moves
    outcome = run([PythonPlayer("slow", slow), first_player()], seed=1, limits=limits,
                  options={"pile": 40})
    (failure,) = outcome.failures
    assert failure["reason"] == "timeout"
    assert 2 <= failure["decision"] // 2 + 1 <= 4  # seat 0 decides at 1, 3, 5, ...
    assert outcome.timings["seats"][0]["bank_left"] < 0.07
    assert outcome.timings["seats"][1]["bank_left"] == 0.07  # never touched


def test_the_request_tells_the_time_left() -> None:
    seen: list[DecisionRequest] = []

    async def record_time(request: DecisionRequest) -> Reply:
        seen.append(request)
        return Reply(request.id, 0)

    run([Scripted("t", record_time), first_player()], limits=Limits(move_seconds=0.5,
                                                                     bank_seconds=2.0))
    assert seen and all(r.move_ms == 500 for r in seen)
    assert seen[0].bank_ms == 2000


def test_comments_are_recorded_and_capped() -> None:
    async def chatty(request: DecisionRequest) -> Reply:
        return Reply(request.id, 0, "why " * 100)

    outcome = run([Scripted("c", chatty), first_player()], limits=Limits(max_comment_chars=10))
    comments = outcome.comments
    assert comments and all(c["seat"] == 0 and c["comment"] == "why why wh" for c in comments)


def test_bad_seating_and_options_are_user_errors() -> None:
    with pytest.raises(ArenaError, match="2-4 players, not 1"):
        run([first_player()])
    with pytest.raises(ArenaError, match="pile must be a positive integer"):
        run([first_player(), first_player()], options={"pile": -1})
    with pytest.raises(ArenaError, match="seed must be an integer"):
        run([first_player(), first_player()], seed="7")  # type: ignore[arg-type]


def test_adjusted_placements_examples() -> None:
    assert adjusted_placements([1, 2, 3, 4], set()) == [1, 2, 3, 4]
    assert adjusted_placements([1, 2, 3, 4], {0}) == [4, 1, 2, 3]
    assert adjusted_placements([1, 2, 3, 4], {0, 2}) == [4, 1, 4, 2]
    assert adjusted_placements([1, 1, 3, 4], {3}) == [1, 1, 3, 4]
    # every seat forfeits: all share the last place, never the first
    assert adjusted_placements([2, 1, 2], {0, 1, 2}) == [3, 3, 3]
    assert adjusted_placements([1, 2], {0, 1}) == [2, 2]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=2, max_size=5), st.data())
def test_adjusted_placements_put_forfeits_last_and_keep_the_order(
        engine: list[int], data: st.DataObject) -> None:
    forfeits = set(data.draw(st.sets(st.sampled_from(range(len(engine))))))
    places = adjusted_placements(engine, forfeits)
    stayed = [s for s in range(len(engine)) if s not in forfeits]
    for s in forfeits:  # last, k-th of k, and never beside a seat that played on
        assert places[s] == len(engine)
        assert all(places[a] < places[s] for a in stayed)
    for a in stayed:
        assert 1 <= places[a] <= len(stayed)
        for b in stayed:
            if engine[a] < engine[b]:
                assert places[a] < places[b]
            if engine[a] == engine[b]:
                assert places[a] == places[b]


def test_a_lean_seat_gets_no_observation_and_its_observation_is_never_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    state_class = type(NIM.new_game(2, 1))
    original = state_class.observation

    def counting(self: Any, seat: int) -> dict[str, JSON]:
        built.append(seat)
        return original(self, seat)

    monkeypatch.setattr(state_class, "observation", counting)
    seen: dict[int, list[JSON]] = {0: [], 1: []}

    def choose(seat: int) -> Any:
        def remember(observation: JSON, legal: JSON) -> int:
            seen[seat].append(observation)
            return 0
        return remember

    lean = PythonPlayer("lean", choose(0), observation=False)
    full = PythonPlayer("full", choose(1))
    run([lean, full], seed=4)
    assert seen[0] and all(observation is None for observation in seen[0])
    assert seen[1] and all(isinstance(observation, dict) for observation in seen[1])
    assert built and set(built) == {1}  # never for the lean seat


def test_notices_are_built_only_for_players_that_follow_the_game(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.runner import referee

    made: list[Any] = []

    class CountedNotice(referee.ActionNotice):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(referee, "ActionNotice", CountedNotice)
    outcome = run([first_player(), random_player()], seed=2)  # no on_action hooks
    assert made == [] and outcome.failures == ()
    followed: list[JSON] = []
    outcome = run([first_player(), PythonPlayer("f", lambda o, legal: 0,
                                                on_action=followed.append)], seed=2)
    assert len(made) == len(followed) == len(outcome.engine["actions"])
