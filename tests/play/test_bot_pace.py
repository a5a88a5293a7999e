"""Bots at a person's table keep a league's pace (arena.play.human.BotAtItsOwnPace)."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arena.play.human import BotAtItsOwnPace
from arena.runner.failures import BotFailure
from arena.runner.players import WrappedPlayer
from arena.runner.protocol import DecisionRequest, GameInfo, Reply


class Thinker(WrappedPlayer):
    """Thinks for ``seconds``, remembering what it was told."""

    def __init__(self, seconds: float) -> None:
        self.name, self.version, self.kind = "thinker", "1", "python"
        self.seconds = seconds
        self.told: list[object] = []

    async def start_game(self, info: GameInfo) -> None:
        self.told.append(info)

    async def choose(self, request: DecisionRequest) -> Reply:
        self.told.append(request)
        await trio.sleep(self.seconds)
        return Reply(id=request.id, index=0)


def request() -> DecisionRequest:
    return DecisionRequest(id=1, seat=0, observation=None, legal=[{"type": "pass"}],
                           move_ms=300_000, bank_ms=5_000, game_ms_left=900_000)


def test_the_bot_is_told_and_given_its_own_time() -> None:
    thinker = Thinker(0.0)
    paced = BotAtItsOwnPace(thinker, 0.25)

    async def main() -> Reply:
        await paced.start_game(GameInfo(game="ra", options={}, num_players=2, seat=0, seed=1,
                                        players=["a", "b"], move_ms=300_000, bank_ms=None,
                                        game_ms=900_000))
        return await paced.choose(request())

    assert trio.run(main).index == 0
    info, seen = thinker.told
    assert (info.move_ms, info.game_ms) == (250, None)
    assert (seen.move_ms, seen.bank_ms, seen.game_ms_left) == (250, None, None)


def test_a_slow_bot_times_out_at_its_own_limit() -> None:
    paced = BotAtItsOwnPace(Thinker(5.0), 0.1)

    async def main() -> float:
        start = trio.current_time()
        with pytest.raises(BotFailure) as failed:
            await paced.choose(request())
        assert failed.value.reason == "timeout" and "0.1 s per move" in failed.value.detail
        return trio.current_time() - start

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) == pytest.approx(0.1)
