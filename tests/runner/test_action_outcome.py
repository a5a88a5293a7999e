"""An action notice carries what the action revealed to everyone (Ra: the drawn tile),
so a bot or a person at `arena play` learns it when it happens."""

from __future__ import annotations

import json

import trio

from arena.plugins import load_game
from arena.runner.players import WrappedPlayer, random_player
from arena.runner.protocol import ActionNotice, Wants


class Listening(WrappedPlayer):
    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        super().__init__(inner)
        self.notices: list[ActionNotice] = []

    @property
    def wants(self) -> Wants:
        return Wants()  # every notice

    async def notify(self, notice: ActionNotice) -> None:
        self.notices.append(notice)


def test_every_draw_notice_names_the_tile_the_record_says_was_drawn() -> None:
    from arena.runner.referee import play_game

    players = [Listening(random_player(f"r{i}")) for i in range(3)]
    record = trio.run(play_game, load_game("ra"), players, 5)
    drawn = [event["tile"] for event in record.engine["events"] if event["type"] == "draw"]
    notices = players[0].notices
    told = [n.outcome["tile"] for n in notices if n.action["type"] == "draw" and n.outcome]
    assert told == drawn and len(drawn) > 10
    assert all(n.outcome is None for n in notices if n.action["type"] != "draw")
    line = json.loads(next(n.line for n in notices if n.outcome))
    assert line["outcome"] == {"tile": told[0]}
    assert "outcome" not in json.loads(next(n.line for n in notices if not n.outcome))
