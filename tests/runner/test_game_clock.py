"""The optional whole-game clock: a seat's total thinking time in one game, alone and
together with the per-decision limit and the overage bank."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import trio

from arena.errors import ArenaError
from arena.records import GameRecord
from arena.runner.botspec import BotSpec
from arena.runner.failures import BotFailure
from arena.runner.players import first_player
from arena.runner.pool import open_bot_pool
from arena.runner.protocol import (
    ActionNotice,
    DecisionRequest,
    GameInfo,
    GameOverInfo,
    Reply,
    Wants,
    encode,
    hello,
    schema,
)
from arena.runner.referee import play_game
from arena.settings import Limits

from .helpers import FAST, assert_no_survivors, the_failure, zoo_spec
from .toygame import NIM

JSON = Any
LONG_GAME = {"pile": 40}  # both players take one stone: about 20 decisions per seat


class Sleeper:
    """An in-process player that thinks ``seconds`` per decision without blocking trio
    (so the referee can cut it off like a process bot), keeping what it was sent."""

    kind = "python"
    version = "0"
    wants = Wants(observation=False, notifications=False)

    def __init__(self, seconds: float) -> None:
        self.name = f"sleeps-{seconds:g}"
        self.seconds = seconds
        self.infos: list[GameInfo] = []
        self.requests: list[DecisionRequest] = []

    async def start_game(self, info: GameInfo) -> None:
        self.infos.append(info)

    async def choose(self, request: DecisionRequest) -> Reply:
        self.requests.append(request)
        await trio.sleep(self.seconds)
        return Reply(request.id, 0)

    async def notify(self, notice: ActionNotice) -> None:
        pass

    async def game_over(self, result: GameOverInfo) -> None:
        pass

    async def abandon(self, failure: BotFailure) -> str:
        return ""

    def take_incidents(self) -> list[dict[str, JSON]]:
        return []


def run(players: list[Any], limits: Limits, seed: int = 1) -> GameRecord:
    return trio.run(lambda: play_game(NIM, players, seed, options=LONG_GAME, limits=limits))


def validate(message: dict[str, JSON]) -> None:
    jsonschema.validate(json.loads(encode(message)), schema(message["type"]))


@pytest.mark.parametrize("value", [0, 0.0, -1.0, True, "60", float("nan")])
def test_a_game_clock_must_be_a_positive_number(value: Any) -> None:
    with pytest.raises(ArenaError, match="limit game_seconds must be a positive number"):
        Limits(game_seconds=value)


def test_the_hello_tells_the_game_clock() -> None:
    assert Limits().protocol_json()["game_ms"] is None
    assert Limits(game_seconds=90).protocol_json()["game_ms"] == 90_000
    for limits in (Limits(), Limits(game_seconds=1.5, bank_seconds=2)):
        validate(hello("0.1.0", limits.protocol_json()))


def test_the_clock_runs_out_on_the_decision_that_uses_it_up_not_before() -> None:
    # 0.15 s per decision against a 0.55 s clock: three decisions fit (with 0.1 s to
    # spare for a loaded machine), the fourth has at most 0.1 s left (the 1 s decision
    # limit never matters)
    slow = Sleeper(0.15)
    outcome = run([slow, first_player()], Limits(move_seconds=1.0, game_seconds=0.55))
    failure = the_failure(outcome.playthrough_json())
    assert (failure["seat"], failure["reason"], failure["phase"]) == (0, "timeout", "decision")
    assert failure["decision"] == 7  # seat 0 decides at 1, 3, 5, 7: its fourth decision
    assert "game clock (0.55 s per game)" in failure["detail"]
    assert "bank" not in failure["detail"]
    # it was told the clock at the start and what was left on it at every decision
    assert slow.infos[0].game_ms == 550
    left = [r.game_ms_left or 0 for r in slow.requests]
    assert len(left) == 4 and left[0] == 550
    assert left == sorted(set(left), reverse=True) and left[-1] <= 100
    seats = outcome.timings["seats"]
    assert seats[0]["clock_left"] == 0.0 and seats[0]["decisions"] == 4
    assert 0.5 < seats[1]["clock_left"] <= 0.55  # an instant player hardly uses its clock
    assert outcome.placements[0] == 2  # forfeited


def test_a_bank_smaller_than_the_clock_runs_out_first() -> None:
    # each decision takes 0.15 s beyond the 0.05 s limit: the 0.4 s bank pays for two
    slow = Sleeper(0.2)
    limits = Limits(move_seconds=0.05, bank_seconds=0.4, game_seconds=5.0)
    outcome = run([slow, first_player()], limits)
    failure = the_failure(outcome.playthrough_json())
    assert (failure["reason"], failure["decision"]) == ("timeout", 5)
    assert "decision limit (0.05 s) plus the" in failure["detail"]
    assert "left in its overage bank" in failure["detail"]
    assert "game clock" not in failure["detail"]
    seat = outcome.timings["seats"][0]
    assert seat["bank_left"] == 0.0
    assert 4.0 < seat["clock_left"] < 4.5  # all of its 0.55 s of thought, on the clock
    assert [r.bank_ms for r in slow.requests][0] == 400


def test_a_clock_smaller_than_the_bank_runs_out_first() -> None:
    # 0.15 s per decision: the bank (1 s) could pay for many, the clock (0.4 s) for two
    slow = Sleeper(0.15)
    limits = Limits(move_seconds=0.05, bank_seconds=1.0, game_seconds=0.4)
    outcome = run([slow, first_player()], limits)
    failure = the_failure(outcome.playthrough_json())
    assert (failure["reason"], failure["decision"]) == ("timeout", 5)
    assert "left on its game clock (0.4 s per game)" in failure["detail"]
    seat = outcome.timings["seats"][0]
    assert seat["clock_left"] == 0.0
    # the overage (beyond 0.05 s) of all three decisions came out of the bank too
    assert 0.6 < seat["bank_left"] < 0.8
    banks = [r.bank_ms or 0 for r in slow.requests]
    assert banks[0] == 1000 and banks[0] > banks[1] > banks[2]


@pytest.mark.parametrize(("bank", "phrase"), [
    (None, "within 0.050 s, the decision limit (0.05 s)"),
    (0.0, "the decision limit (0.05 s), its overage bank being used up"),
])
def test_without_bank_or_clock_the_decision_limit_is_named(bank: float | None,
                                                          phrase: str) -> None:
    outcome = run([Sleeper(0.15), first_player()],
                  Limits(move_seconds=0.05, bank_seconds=bank))
    failure = the_failure(outcome.playthrough_json())
    assert (failure["reason"], failure["decision"]) == ("timeout", 1)
    assert failure["detail"].startswith("no reply to request 1 within")
    assert phrase in failure["detail"]
    assert "game clock" not in failure["detail"]
    assert outcome.timings["seats"][0]["clock_left"] is None


def test_every_message_carries_the_clock_and_matches_its_schema() -> None:
    for clock in (None, 30.0):
        fast = Sleeper(0.0)
        outcome = run([fast, first_player()], Limits(bank_seconds=2.0, game_seconds=clock))
        assert outcome.failures == ()
        (info,) = fast.infos
        assert info.to_json()["time"]["game_ms"] == (None if clock is None else 30_000)
        validate(info.to_json())
        for request in fast.requests:
            message = request.to_json()
            validate(message)
            # without a clock the key is left out (old bots see the requests they knew)
            assert ("game_ms_left" in message["time"]) is (clock is not None)
        left = [r.game_ms_left for r in fast.requests]
        if clock is None:
            assert set(left) == {None}
            assert outcome.timings["seats"][0]["clock_left"] is None
        else:
            assert left[0] == 30_000 and all(0 < v <= 30_000 for v in left if v)
            assert 29.0 < outcome.timings["seats"][0]["clock_left"] <= 30.0


def test_an_old_request_without_the_clock_still_matches_the_schemas() -> None:
    validate({"type": "request", "id": 1, "legal": [{}],
              "time": {"move_ms": 1000, "bank_ms": None}})
    validate({"type": "new_game", "game": "nim", "options": {}, "num_players": 2, "seat": 0,
              "seed": 1, "players": ["a", "b"], "time": {"move_ms": 1000, "bank_ms": None}})
    with pytest.raises(jsonschema.ValidationError):
        validate({"type": "request", "id": 1, "legal": [{}],
                  "time": {"move_ms": 1000, "bank_ms": None, "game_ms_left": -5}})


# ---------------------------------------------------------------- real processes


async def _play_process(spec: BotSpec, limits: Limits) -> tuple[dict[str, JSON], list[int]]:
    async with open_bot_pool(limits) as pool, pool.seated([spec]) as (bot,):
        outcome = await play_game(NIM, [bot, first_player()], seed=3, options=LONG_GAME,
                                  limits=limits)
    return outcome.playthrough_json(), bot.pids


def test_a_bot_that_never_answers_is_stopped_at_its_clock_not_at_move_plus_bank() -> None:
    limits = dataclasses.replace(FAST, move_seconds=5.0, bank_seconds=2.0, game_seconds=0.3)
    record, pids = trio.run(_play_process, zoo_spec("never_answers"), limits)
    failure = the_failure(record)
    assert (failure["reason"], failure["phase"], failure["decision"]) == \
        ("timeout", "decision", 1)
    assert "within 0.300 s, the 0.300 s left on its game clock" in failure["detail"]
    seat = record["timings"]["seats"][0]
    # cut off at the clock (0.3 s), far from the 7 s that move + bank would allow
    assert 0.3 <= seat["max_seconds"] < 2.0
    # the bank pays only for time beyond the decision limit: untouched here
    assert seat["clock_left"] == 0.0 and seat["bank_left"] == 2.0
    assert_no_survivors(pids)


TIME_REPORTER = """\
import json, sys
seen = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        seen["hello"] = message["limits"].get("game_ms")
        print(json.dumps({"type": "ready", "name": "clock", "version": "1",
                          "protocol": "ra-arena/1",
                          "wants": {"observation": False, "notifications": False}}),
              flush=True)
    elif message["type"] == "new_game":
        seen["new_game"] = message["time"]
    elif message["type"] == "request":
        comment = json.dumps({**seen, "request": message["time"]})
        print(json.dumps({"type": "reply", "id": message["id"], "index": 0,
                          "comment": comment}), flush=True)
    elif message["type"] == "ping":
        print(json.dumps({"type": "pong", "id": message["id"]}), flush=True)
    elif message["type"] == "quit":
        break
"""


def test_a_process_bot_is_told_its_clock_through_the_pipes(tmp_path: Path) -> None:
    (tmp_path / "clock.py").write_text(textwrap.dedent(TIME_REPORTER))
    spec = BotSpec(name="clock", version="1", command=("{python}", "clock.py"),
                   folder=tmp_path, games={"nim": (2,)}, source="test")
    limits = dataclasses.replace(FAST, move_seconds=2.0, game_seconds=20.0,
                                 max_comment_chars=1000)
    record, _ = trio.run(_play_process, spec, limits)
    assert record["failures"] == []
    reports = [json.loads(c["comment"]) for c in record["comments"] if c["seat"] == 0]
    assert len(reports) == record["timings"]["seats"][0]["decisions"] > 5
    assert reports[0]["hello"] == 20_000
    assert reports[0]["new_game"] == {"move_ms": 2000, "bank_ms": None, "game_ms": 20_000}
    left = [r["request"]["game_ms_left"] for r in reports]
    assert left[0] == 20_000 and left == sorted(left, reverse=True) and left[-1] > 15_000


# ---------------------------------------------------------------- the SDK's view


@pytest.mark.parametrize(("timing", "seconds"), [
    ({"move_ms": 1000, "bank_ms": None}, 1.0),
    ({"move_ms": 1000, "bank_ms": 500}, 1.5),
    ({"move_ms": 1000, "bank_ms": 500, "game_ms_left": 1200}, 1.2),
    ({"move_ms": 1000, "bank_ms": None, "game_ms_left": 2000}, 1.0),
    ({"move_ms": 1000, "bank_ms": 0, "game_ms_left": 0}, 0.0),
    ({"bank_ms": 500}, None),
    (None, None),
])
def test_the_sdk_computes_the_time_a_decision_may_take(timing: Any, seconds: float | None
                                                       ) -> None:
    from arena.sdk import seconds_for

    request = {"type": "request", "id": 1, "legal": [{}]}
    if timing is not None:
        request["time"] = timing
    assert seconds_for(request) == seconds


def test_the_sdk_shows_each_request_to_on_request_before_choose() -> None:
    import io

    from arena.sdk import run as run_bot
    from arena.sdk import seconds_for

    request: dict[str, JSON] = {
        "type": "request", "id": 1, "legal": [{}, {}],
        "time": {"move_ms": 1000, "bank_ms": None, "game_ms_left": 250}}
    events: list[Any] = []

    def choose(observation: Any, legal: list[Any]) -> int:
        events.append("choose")
        return 1

    hello_message = {"type": "hello", "protocol": "ra-arena/1", "arena": "0.1", "limits": {}}
    lines: list[dict[str, JSON]] = [hello_message, request, {"type": "quit"}]
    out = io.BytesIO()
    run_bot(choose, stdin=io.BytesIO(b"".join(encode(m) for m in lines)), stdout=out,
            on_request=lambda message: events.append(seconds_for(message)))
    assert events == [0.25, "choose"]
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies[-1] == {"type": "reply", "id": 1, "index": 1}
