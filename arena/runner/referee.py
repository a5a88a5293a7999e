"""The referee: plays one game of any engine, one player per seat.

The API the league uses::

    record = await play_game(game, players, seed, options=None, limits=Limits())
    record.placements    # per seat, forfeits placed last: what ratings use
    record.forfeits      # seat -> reason, for seats that forfeited

``record`` is an :class:`arena.records.GameRecord` (every field in ``docs/records.md``).

``players`` are :class:`~arena.runner.players.Player` objects: process-backed bots from a
:class:`~arena.runner.pool.BotPool` or in-process :class:`PythonPlayer` objects.  The same
(game, options, seed, deal key, seating) with deterministic players gives the same record,
apart from ``timings``.  The engine deals from ``deal_seed(seed, deal_key)`` and each bot
gets a seed of its own (:mod:`arena.deals`): neither says anything about the draws.

This is the only place where a bot's reply becomes an engine action.  When a player fails
(reasons in :mod:`arena.runner.failures`) the game goes on: it is abandoned (its process
killed), its seat is played out by a fallback policy (uniform random, seeded from the game
seed and the seat), and it forfeits.

What each seat is sent follows what its player asked for (``wants``, read once the game
has started; see :func:`arena.runner.players.wants_of`): a seat that wants no observation
gets requests without one, and the observation is not even built; notices are built
only while some seat wants them.

Forfeits and placements: the seats that did not forfeit keep the engine's order among
themselves (place = 1 + number of non-forfeiting seats placed strictly better by the
engine); every forfeiting seat is placed last, k-th of the k seats, however many others
forfeited too (two forfeits of four: 1, 2, 4, 4; every seat forfeits: all k-th).  So a
forfeit never wins, never ties with a seat that played on, and a bot that forfeits
every game has an average place of k.  Scores stay the engine's.

Time: a decision may take at most ``min(move_seconds + bank left, clock left)`` (the bank
and the whole-game clock count only when the limits set them).  Its elapsed time is
charged to the clock, and what it took beyond ``move_seconds`` to the bank.  A seat that
goes over fails with "timeout" and a detail naming the limit it broke.  ``bank_left`` and
``clock_left`` are None when the limits have no bank or no clock.

``phase`` is "start", "decision", "notify" for forfeits; incidents (failures that cost
no game: between games, or after the game ended) have "between games" or "game_over".
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any, cast

import trio

from arena.deals import PUBLIC, deal_seed, derived_seed
from arena.errors import ArenaError
from arena.games.base import Game, GameError, GameState
from arena.records import Comment, Failure, GameRecord, Incident, SeatTimings
from arena.runner.failures import BotFailure
from arena.runner.players import Player, wants_of
from arena.runner.protocol import (
    ActionNotice,
    DecisionRequest,
    GameInfo,
    GameOverInfo,
    Reply,
    Wants,
)
from arena.settings import Limits

JSON = Any


def adjusted_placements(engine_placements: Sequence[int], forfeits: set[int]) -> list[int]:
    """Placements with every forfeiting seat last, k-th of k (see module doc)."""
    stayed = [s for s in range(len(engine_placements)) if s not in forfeits]
    result = []
    for seat, place in enumerate(engine_placements):
        if seat in forfeits:
            result.append(len(engine_placements))
        else:
            result.append(1 + sum(1 for other in stayed if engine_placements[other] < place))
    return result


class _Seat:
    """The referee's book-keeping for one seat."""

    def __init__(self, seat: int, player: Player, limits: Limits, fallback_seed: int) -> None:
        self.seat = seat
        self.player = player
        self.failed = False
        self.bank_left = limits.bank_seconds
        self.clock_left = limits.game_seconds  # whole-game clock, None = no clock
        self.fallback = random.Random(fallback_seed)
        self.wants = Wants()  # what the player asked for, known once the game started
        # the player returns None at a request's deadline itself (no cancel scope needed)
        self.enforces_deadline = getattr(player, "enforces_deadline", False) is True
        self.decisions = 0
        self.seconds = 0.0
        self.max_seconds = 0.0

    def _without_clock(self, limits: Limits) -> float:
        return limits.move_seconds + (self.bank_left or 0.0)

    def time_allowed(self, limits: Limits) -> float:
        """The longest the next decision may take: min(move + bank left, clock left)."""
        allowed = self._without_clock(limits)
        if self.clock_left is not None and self.clock_left < allowed:
            return self.clock_left
        return allowed

    def binding_limit(self, limits: Limits) -> str:
        """Which limit :meth:`time_allowed` is, in words (for a timeout's detail; built
        only then, so the decision path formats nothing)."""
        move = limits.move_seconds
        if self.clock_left is not None and self.clock_left < self._without_clock(limits):
            return (f"the {self.clock_left:.3f} s left on its game clock "
                    f"({limits.game_seconds:g} s per game)")
        if self.bank_left is None:
            return f"the decision limit ({move:g} s)"
        if self.bank_left > 0:
            return (f"the decision limit ({move:g} s) plus the {self.bank_left:.3f} s left "
                    "in its overage bank")
        return f"the decision limit ({move:g} s), its overage bank being used up"

    def charge(self, elapsed: float, limits: Limits) -> None:
        """Book one decision's time: all of it on the clock, the overage on the bank."""
        self.decisions += 1
        self.seconds += elapsed
        self.max_seconds = max(self.max_seconds, elapsed)
        if self.clock_left is not None:
            self.clock_left = max(0.0, self.clock_left - elapsed)
        if self.bank_left is not None and elapsed > limits.move_seconds:
            self.bank_left = max(0.0, self.bank_left - (elapsed - limits.move_seconds))


class Referee:
    def __init__(self, game: Game, players: Sequence[Player], seed: int,
                 options: Mapping[str, JSON] | None, limits: Limits, deal_key: str) -> None:
        self.game = game
        self.seed = seed
        self.limits = limits
        self.deal_key = deal_key
        try:  # every default filled in: bots learn them in new_game, records keep them
            self.options = game.full_options(options)
        except GameError as error:  # a configuration problem
            raise ArenaError(f"cannot start {game.name}: {error}") from error
        self.move_ms = round(limits.move_seconds * 1000)
        self.seats = [
            _Seat(i, p, limits, derived_seed(seed, i, "fallback", deal_key))
            for i, p in enumerate(players)
        ]
        self.failures: list[Failure] = []
        self.incidents: list[Incident] = []
        self.comments: list[Comment] = []
        self.listeners: list[_Seat] = []  # seats that want notifications, set at the start

    # ------------------------------------------------------------ the game

    async def play(self) -> GameRecord:
        started = time.perf_counter()
        try:
            state = self.game.new_game(len(self.seats), deal_seed(self.seed, self.deal_key),
                                       self.options)
        except Exception as error:  # GameOptionError and friends: a configuration problem
            raise ArenaError(f"cannot start {self.game.name}: {error}") from error
        await self._start_all()
        decision = 0
        while not state.is_terminal():
            decision += 1
            await self._play_decision(state, decision)
        return await self._finish(state, time.perf_counter() - started)

    async def _play_decision(self, state: GameState, decision: int) -> None:
        """One decision: ask the seat to move, apply its choice, tell the others."""
        seat = self.seats[state.current_player()]
        legal = state.legal_actions()
        index = await self._decide(seat, state, legal, decision)
        # the notice is built only if someone wants it (lean bots: nobody)
        action = state.action_to_json(legal[index]) if self.listeners else None
        state.apply_action(legal[index])
        if action is not None:
            notice = ActionNotice(decision, seat.seat, action, state.outcome_json(legal[index]))
            await self._notify_all(notice, decision)

    async def _start_all(self) -> None:
        names = [s.player.name for s in self.seats]
        move_ms = self.move_ms
        bank_ms = None if self.limits.bank_seconds is None \
            else round(self.limits.bank_seconds * 1000)

        async def start(seat: _Seat) -> None:
            info = GameInfo(self.game.name, self.options, len(self.seats), seat.seat,
                            derived_seed(self.seed, seat.seat, "bot", self.deal_key), names,
                            move_ms, bank_ms, self.limits.game_ms)
            try:
                await seat.player.start_game(info)
            except BotFailure as failure:
                await self._fail(seat, failure, "start", None)
            except ArenaError as error:  # a configuration problem, e.g. an empty command
                config_errors.append(error)

        config_errors: list[ArenaError] = []
        # fresh processes start in parallel: a handshake costs an interpreter start-up
        async with trio.open_nursery() as nursery:
            for seat in self.seats:
                nursery.start_soon(start, seat)
        if config_errors:
            raise config_errors[0]
        for seat in self.seats:
            seat.wants = wants_of(seat.player)
            if seat.wants.notifications:
                self.listeners.append(seat)
            for incident in seat.player.take_incidents():
                self.incidents.append(cast(Incident, {"seat": seat.seat, **incident}))

    async def _decide(self, seat: _Seat, state: GameState, legal: list[int],
                      decision: int) -> int:
        if not seat.failed:
            try:
                return await self._ask(seat, state, legal, decision)
            except BotFailure as failure:
                await self._fail(seat, failure, "decision", decision)
        return seat.fallback.randrange(len(legal))

    async def _ask(self, seat: _Seat, state: GameState, legal: list[int],
                   decision: int) -> int:
        """The player's choice, checked; raises BotFailure."""
        allowed = seat.time_allowed(self.limits)
        request = DecisionRequest(
            id=decision, seat=seat.seat,
            observation=state.observation(seat.seat) if seat.wants.observation else None,
            legal=[state.action_to_json(a) for a in legal],
            move_ms=self.move_ms,
            bank_ms=None if seat.bank_left is None else round(seat.bank_left * 1000),
            game_ms_left=None if seat.clock_left is None else round(seat.clock_left * 1000),
            deadline=trio.current_time() + allowed,  # after the observation is built
        )
        started = time.perf_counter()
        reply: Reply | None = None
        if seat.enforces_deadline:  # it stops at request.deadline itself
            reply = await seat.player.choose(request)
        else:  # cancels a player that never answers right at the limit
            with trio.move_on_at(request.deadline):
                reply = await seat.player.choose(request)
        elapsed = time.perf_counter() - started
        # a Python player cannot be interrupted: it may come back late with a reply
        timed_out = reply is None or elapsed > allowed
        broken = seat.binding_limit(self.limits) if timed_out else ""
        seat.charge(elapsed, self.limits)  # before failing: the record shows what was spent
        if reply is None or timed_out:
            raise BotFailure("timeout", f"no reply to request {decision} within "
                                        f"{allowed:.3f} s, {broken}")
        if reply.id != decision or isinstance(reply.id, bool):
            raise BotFailure("protocol", f"reply id {reply.id!r} to request {decision}")
        if not 0 <= reply.index < len(legal):
            raise BotFailure("illegal", f"index {reply.index} of {len(legal)} legal choices "
                                        f"(0-{len(legal) - 1})")
        if reply.comment:
            self.comments.append(Comment(decision=decision, seat=seat.seat,
                                         comment=reply.comment[: self.limits.max_comment_chars]))
        return reply.index

    async def _notify_all(self, notice: ActionNotice, decision: int) -> None:
        for seat in self.listeners:
            if not seat.failed:
                try:
                    await seat.player.notify(notice)
                except BotFailure as failure:
                    await self._fail(seat, failure, "notify", decision)

    async def _fail(self, seat: _Seat, failure: BotFailure, phase: str,
                    decision: int | None) -> None:
        seat.failed = True
        tail = await seat.player.abandon(failure)
        self.failures.append(Failure(
            seat=seat.seat, bot=seat.player.name, reason=failure.reason,
            detail=failure.detail, phase=phase, decision=decision, stderr_tail=tail))

    async def _finish(self, state: GameState, seconds: float) -> GameRecord:
        scores = list(state.returns())
        engine_placements = list(state.placements())
        forfeits = {s.seat for s in self.seats if s.failed}
        placements = adjusted_placements(engine_placements, forfeits)
        for seat in self.seats:
            if seat.failed:
                continue
            result = GameOverInfo(seat.seat, scores, placements, sorted(forfeits))
            try:
                await seat.player.game_over(result)
            except BotFailure as failure:  # the result stands: an incident, no forfeit
                tail = await seat.player.abandon(failure)
                self.incidents.append(Incident(
                    seat=seat.seat, bot=seat.player.name, reason=failure.reason,
                    detail=failure.detail, phase="game_over", stderr_tail=tail))
        return GameRecord(
            game=self.game.name,
            options=self.options,
            seed=self.seed,
            players=tuple({"seat": s.seat, "name": s.player.name, "version": s.player.version,
                           "kind": s.player.kind} for s in self.seats),
            scores=tuple(scores),
            engine_placements=tuple(engine_placements),
            placements=tuple(placements),
            failures=tuple(self.failures),
            incidents=tuple(self.incidents),
            comments=tuple(self.comments),
            engine=self._engine_record(state),
            timings={"seconds": round(seconds, 6),
                     "seats": [_seat_timings(s) for s in self.seats]},
        )


    def _engine_record(self, state: GameState) -> dict[str, JSON]:
        """The engine's record, without the deal seed of a secret deal when the game
        replays from the draws its record keeps (``Game.replays_from_draws``); else with
        the seed it was dealt from, which its replay needs."""
        record = state.record()
        if self.deal_key != PUBLIC and self.game.replays_from_draws:
            record.pop("seed", None)
        else:  # the seed a replay deals from, whether or not the engine says it
            record.setdefault("seed", deal_seed(self.seed, self.deal_key))
        return record


def _seat_timings(seat: _Seat) -> SeatTimings:
    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 6)

    return {"decisions": seat.decisions, "seconds": round(seat.seconds, 6),
            "max_seconds": round(seat.max_seconds, 6), "bank_left": rounded(seat.bank_left),
            "clock_left": rounded(seat.clock_left)}


async def play_game(game: Game, players: Sequence[Player], seed: int,
                    options: Mapping[str, JSON] | None = None, limits: Limits | None = None,
                    deal_key: str = PUBLIC) -> GameRecord:
    """Play one game; see the module docstring.  Raises ArenaError for a bad seating or
    bad options (the configuration's fault), never for a player's misbehaviour.

    ``deal_key``: the key the hidden order is dealt from (:mod:`arena.deals`); the
    default, public deals, deals from ``seed`` itself."""
    if not game.min_players <= len(players) <= game.max_players:
        raise ArenaError(f"{game.title} is for {game.min_players}-{game.max_players} "
                         f"players, not {len(players)}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ArenaError(f"the game seed must be an integer, not {seed!r}")
    referee = Referee(game, players, seed, options, limits or Limits(), deal_key)
    return await referee.play()
