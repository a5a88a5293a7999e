"""What the pages and the API show of the ladder: its leaderboards, a bot's results,
failures and rating chart (made once for every viewer: cache.Shared), stored games."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from arena.errors import ArenaError
from arena.report.leaderboard import SETTLED
from arena.server.cache import Shared
from arena.server.errors import Refused
from arena.server.views import (
    bot_results,
    failures_to_show,
    finite,
    mark_unsettled,
    rating_chart,
    replay_page,
    replay_policy,
    shown_names,
)

if TYPE_CHECKING:
    from arena.records import GameRecord, GameResult
    from arena.server.core import Server

CHART_POINTS = 30  # ratings computed for the bot page's chart, at most
FRESH_SECONDS = 1.0  # what the pages derive from the games: made again at most this often
CHART_DUTY = 0.1  # the bot pages' rating histories take at most this share of a core
MAX_EVENT_STREAMS = 200

BotView = tuple[dict[str, Any], str | None, list[dict[str, Any]], str]


class LadderService:
    def __init__(self, server: Server) -> None:
        self.server = server
        # what the pages derive from the ladder's games: shared, not made per view
        self.bot_views: Shared[BotView] = Shared(FRESH_SECONDS)
        self.chart_histories: Shared[tuple[list[int], dict[str, list[float | None]]]] = \
            Shared(FRESH_SECONDS, duty=CHART_DUTY)

    def roster(self) -> list[str]:
        """The ladder names of the bots in the ladder now."""
        return list(self.server.view.roster)

    def check_players(self, players: int | None, game: str | None = None) -> None:
        settings = self.server.settings
        if game is not None and game != settings.game:
            raise Refused(f"this server's ladder plays {settings.game}, not {game}", 404)
        if players is not None and players not in settings.players:
            raise Refused(f"this ladder plays with {'/'.join(map(str, settings.players))} "
                          "players", 404)

    def leaderboard(self, players: int | None) -> dict[str, Any]:
        """The leaderboard of ``players`` (default: the first count the ladder plays),
        each row with its owner and page, the games in progress and the newest ones."""
        settings = self.server.settings
        count = players if players is not None else settings.players[0]
        board = self.server.view.boards.get(count)
        names = self.server.store.all_ladder_names()
        rows = []
        for row in (board or {}).get("bots", []):
            version = names.get(row["bot"])
            rows.append({**finite(row), "owner": version.owner if version else "arena",
                         "version_id": version.id if version else None,
                         "page": f"/bots/{version.owner}/{version.bot}" if version else None})
        mark_unsettled(rows)
        playing = [{"game_id": game_id, "bots": list(seats)}
                   for game_id, (players, seats) in list(self.server.view.playing.items())
                   if players == count]
        recent = [dict(game) for game in (board or {}).get("recent", [])]
        roster = self.roster()
        shown = shown_names([*(row["bot"] for row in rows), *roster,
                             *(bot for game in [*playing, *recent] for bot in game["bots"])])
        for row in rows:
            row["shown"] = shown[row["bot"]]
        for game in [*playing, *recent]:
            game["shown"] = [shown[bot] for bot in game["bots"]]
        for game in recent:  # its seats, best placed first
            places = game["placements"]
            game["order"] = sorted(range(len(places)), key=lambda seat: (places[seat], seat))
        return {"game": settings.game, "num_players": count,
                "games": (board or {}).get("games", 0), "bots": rows, "settled_at": SETTLED,
                "roster": roster, "roster_shown": [shown[name] for name in roster],
                "in_progress": playing, "recent": recent}

    def boards(self) -> dict[int, dict[str, Any]]:
        return {count: self.leaderboard(count) for count in self.server.settings.players}

    async def bot_view(self, versions: list[dict[str, Any]]) -> BotView:
        """A bot's ladder results (per version, against each opponent), the current
        version's name, its failures (the newest few of each reason, with their records'
        details) and its rating chart: computed in a thread once for every viewer of the
        bot while no game is stored, or at most once a second (``cache.Shared``)."""
        valid = [v for v in versions if v["state"] == "valid"]
        names = frozenset(v["ladder_name"] for v in valid)
        current = valid[-1]["ladder_name"] if valid else None
        view = self.server.view  # every stored game, kept up as games are stored
        # before the games were read from the store (in compute, the first time), a
        # view is kept only its minimum age (a version that equals no other)
        known = view.generation()
        generation: object = known if known is not None else object()

        def compute() -> BotView:
            games = view.results() if names else []
            results = [result for result in games if names.intersection(result.bots)]
            summary = bot_results(versions, results)
            if current is None:
                return summary, current, [], ""
            chosen, per_reason = failures_to_show(results, current)
            groups: dict[str, list[dict[str, Any]]] = {}
            for failure in self.server.failures_in(chosen):
                groups.setdefault(failure["reason"], []).append(failure)
            failures = [{"reason": reason, "count": count, "shown": groups.get(reason, [])}
                        for reason, count in sorted(per_reason.items(),
                                                    key=lambda item: -item[1])]
            return summary, current, failures, rating_chart(
                games, current, lambda count: self._history(games, count, generation))

        key = (tuple(v["ladder_name"] for v in versions), current)
        return await self.bot_views.get(key, generation, compute)

    def _history(self, games: list[GameResult], count: int, generation: object
                 ) -> tuple[list[int], dict[str, list[float | None]]]:
        """One rating history per player count for every bot's chart, refreshed as its
        cost allows (a long ladder's refits are not made for every game)."""
        from arena.rating import rating_history

        return self.chart_histories.get_sync(count, generation, lambda: rating_history(
            [r for r in games if r.num_players == count], checkpoints=CHART_POINTS))

    def subscribe(self) -> trio.MemoryReceiveChannel[str]:
        """A new subscription to the server's events (Refused past MAX_EVENT_STREAMS)."""
        events = self.server.events
        if len(events.subscribers) >= MAX_EVENT_STREAMS:
            raise Refused("too many event streams open; try again later", 503)
        return events.subscribe()

    def unsubscribe(self, receive: trio.MemoryReceiveChannel[str]) -> None:
        self.server.events.unsubscribe(receive)

    def process_label(self) -> str:
        """Which of several web processes this is (" (web process N of M)"), or ""."""
        return self.server.process_label

    def record(self, game_id: str) -> GameRecord:
        """A stored game, the ladder's or a friendly one (Refused 404 if neither)."""
        if not 8 <= len(game_id) <= 64 or not game_id.isalnum():
            raise Refused("a game id is 8 to 64 letters and digits", 404)
        try:
            return self.server.find_game(game_id)
        except ArenaError as problem:
            raise Refused(str(problem).split(" in /")[0], 404) from None

    async def replay(self, game_id: str) -> tuple[str, str]:
        """The replay page of a stored game and its Content-Security-Policy."""
        from arena.viewer.page import render_replay

        record = self.record(game_id)
        html = replay_page(await trio.to_thread.run_sync(render_replay, record),
                           record.game_id)
        return html, replay_policy(html)
