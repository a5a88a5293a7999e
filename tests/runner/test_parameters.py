"""A bot's declared parameters reach it: in hello (every language), in its in-process
factory, and a player with other values is another process; bots that ignore them play
as before."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import trio
import trio.testing

from arena.errors import ArenaError
from arena.games.ra import RaGame
from arena.records import GameRecord
from arena.runner import pool as pool_module
from arena.runner.botspec import BotSpec, Parameter, seat_specs
from arena.runner.channel import StreamChannel
from arena.runner.connection import BotConnection
from arena.runner.pool import open_bot_pool
from arena.runner.protocol import schema
from arena.runner.referee import play_game
from arena.runner.trusted import TrustedPlayer, check_trusted
from arena.settings import TRUSTED, Limits

from .helpers import BOTS, FAST, assert_no_survivors
from .test_connection import FarEnd

DECLARED = (Parameter("depth", 3.0, 1.0, 9.0, c_end=0.5, r_end=0.002, integer=True),
            Parameter("margin", 0.5, -1.0, 1.0, c_end=0.1, r_end=0.002))
TUNABLE = BotSpec(name="tunable", version="1", command=("unused",), folder=None,
                  games={"ra": (2,)}, source="test", parameters=DECLARED)


def hello_of(spec: BotSpec) -> dict[str, Any]:
    """The hello a bot of ``spec`` is sent, read on the far end of a memory channel."""
    received: list[dict[str, Any]] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            async def opener() -> StreamChannel:
                arena_end, bot_end = trio.testing.memory_stream_pair()
                far = FarEnd(bot_end)
                nursery.start_soon(far.serve)
                received.append(far.received)  # type: ignore[arg-type]
                return StreamChannel(arena_end, FAST.max_line_bytes, "memory")

            connection = BotConnection(spec, FAST, nursery, Path("."), opener=opener)
            await connection.handshake()
            await connection.close()
            nursery.cancel_scope.cancel()

    trio.run(main)
    messages: list[dict[str, Any]] = received[0]  # type: ignore[assignment]
    return messages[0]


def test_hello_carries_every_declared_parameter_and_matches_its_schema() -> None:
    hello = hello_of(TUNABLE.with_parameters({"margin": -0.25}))
    assert hello["type"] == "hello"
    assert hello["parameters"] == {"depth": 3, "margin": -0.25}  # chosen, or the default
    jsonschema.validate(hello, schema("hello"))
    # a bot that declares none gets the hello it always got
    plain = hello_of(dataclasses.replace(TUNABLE, parameters=()))
    assert "parameters" not in plain
    jsonschema.validate(plain, schema("hello"))
    with pytest.raises(jsonschema.ValidationError):  # values are numbers
        jsonschema.validate({**hello, "parameters": {"depth": "3"}}, schema("hello"))


GREEDY = BotSpec(name="greedy", version="1.0.0", command=("{python}", "bot.py"),
                 folder=BOTS / "greedy", games={"ra": (2, 3, 4, 5)}, source="test",
                 entry_point="arena.strategies.entry_points:greedy",
                 resources={"memory_mb": 2048})
FIRST = BotSpec(name="first", version="1.0.0", command=("{python}", "bot.py"),
                folder=BOTS / "first", games={"ra": (2, 3)}, source="test",
                entry_point="arena.strategies.entry_points:first",
                resources={"memory_mb": 2048})
BAD_WEIGHTS = {"monuments": 0.0, "civilizations": 0.0, "gold": 3.0, "bid_margin": 4.0}


def _greedy() -> BotSpec:
    from arena.plugins import discover

    declared = discover().bot("greedy").parameters
    return dataclasses.replace(GREEDY, parameters=declared)


def _play(specs: list[BotSpec], sandbox: str, seeds: list[int]) -> tuple[list[GameRecord],
                                                                         list[int]]:
    limits = Limits(sandbox=sandbox, move_seconds=5.0, handshake_seconds=10.0)

    async def main() -> tuple[list[GameRecord], list[int]]:
        records = []
        async with open_bot_pool(limits) as pool:
            for seed in seeds:
                async with pool.players(specs) as players:
                    records.append(await play_game(RaGame(), players, seed, limits=limits))
            pids = [pid for player in pool._all for pid in player.pids]
        return records, pids

    return trio.run(main)


def test_greedy_reads_its_weights_from_hello_and_from_its_entry_point() -> None:
    weighed = _greedy().with_parameters(BAD_WEIGHTS)
    process, pids = _play([weighed, FIRST], "none", [11, 12])
    trusted, _ = _play([weighed, FIRST], TRUSTED, [11, 12])
    plain, _ = _play([_greedy(), FIRST], TRUSTED, [11, 12])
    assert_no_survivors(pids)
    for mine, theirs in zip(process, trusted, strict=True):
        assert not mine.failures and not theirs.failures
        assert mine.engine == theirs.engine  # the same weights reached both
    # and they are not the defaults: some decision of the two games differs
    assert [r.engine for r in trusted] != [r.engine for r in plain]


def test_a_bot_that_ignores_its_parameters_still_plays() -> None:
    # first's program never looks at hello's parameters: given some, it plays as ever
    declared = dataclasses.replace(FIRST, parameters=DECLARED[1:])
    records, pids = _play([declared.with_parameters({"margin": 0.9}), FIRST], "none", [3])
    reference, _ = _play([FIRST, dataclasses.replace(FIRST, name="first-2")], "none", [3])
    assert_no_survivors(pids)
    assert not records[0].failures
    assert records[0].engine == reference[0].engine


def test_an_in_process_factory_must_take_the_parameters() -> None:
    declared = dataclasses.replace(FIRST, parameters=DECLARED[1:])
    with pytest.raises(ArenaError) as caught:
        check_trusted([declared])
    assert "takes no 'parameters' argument" in str(caught.value)
    assert "\n" not in str(caught.value)
    # a factory that takes them gets every declared value, as hello carries them
    calls: list[tuple[list[str], Any]] = []

    def factory(args: list[str], parameters: Any = None) -> Any:
        from arena.runner.players import first_player

        calls.append((args, parameters))
        return first_player("first")

    TrustedPlayer(declared.with_parameters({"margin": -0.5}), factory)
    TrustedPlayer(FIRST, factory)
    assert calls == [([], {"margin": -0.5}), ([], None)]


def test_other_values_are_another_process_and_old_ones_are_retired(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool_module, "IDLE_VARIANTS", 2)
    declared = dataclasses.replace(FIRST, parameters=DECLARED[1:])
    limits = dataclasses.replace(FAST, move_seconds=2.0)

    async def main() -> None:
        async with open_bot_pool(limits) as pool:
            used = []
            for margin in (0.1, 0.2, 0.1, 0.3, 0.4):
                variant = declared.with_parameters({"margin": margin})
                async with pool.seated([variant, FIRST]) as (player, _first):
                    await play_game(RaGame(), [player, _first], 5, limits=limits)
                    used.append((margin, player))
            by_margin: dict[float, set[int]] = {}
            for margin, player in used:
                by_margin.setdefault(margin, set()).add(id(player))
            assert all(len(players) == 1 for players in by_margin.values())  # reused
            assert len({id(p) for _, p in used}) == 4  # one process per value
            await trio.sleep(0.5)  # the retired ones quit in the pool's nursery
            alive = [player for _, player in used if player.alive]
            # the two parameter sets used last keep their processes, the others quit
            assert {dict(p.spec.parameter_values)["margin"] for p in alive} == {0.3, 0.4}
            retired = [pid for _, player in used if not player.alive for pid in player.pids]
            assert_no_survivors(retired)

    trio.run(main)


def test_a_scheduled_game_gives_its_seats_their_values() -> None:
    specs = {"tunable": TUNABLE, "first": FIRST}
    seated = seat_specs(specs, ("first", "tunable"), (("tunable", (("margin", 0.75),)),))
    assert seated[0] is FIRST
    assert seated[1].parameters_json() == {"depth": 3, "margin": 0.75}
    assert json.loads(json.dumps(seated[1].parameters_json())) == {"depth": 3, "margin": 0.75}
