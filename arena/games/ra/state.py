"""The Ra game state and its rules (the hot path: flat lists of ints, no per-action dicts).

A decision point is always one of four phases: a player's ``turn``, the ``god`` follow-up
after taking a tile with a god, one bid in an ``auction``, or choosing a tile to lose to a
``disaster``.  Everything without a real choice (skipping sunless players, a bidder who
cannot outbid, funerals, droughts, epoch ends) is resolved at once inside
``apply_action``, so the engine always rests at a real decision or at the end.

Where the editions differ, ``self.rules`` (see ``editions.py``) says what to do.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Sequence
from typing import Any

from arena.games.base import TERMINAL, GameState, IllegalActionError
from arena.games.ra import jsonio
from arena.games.ra.editions import Rules
from arena.games.ra.scoring import epoch_points
from arena.games.ra.tiles import (
    AUCTION,
    AUCTION_TRACK_LENGTH,
    BID_BASE,
    CIVILIZATIONS,
    DISASTER,
    DISASTER_VICTIMS,
    DISCARD_BASE,
    DRAW,
    END_TURN,
    EPOCHS,
    FLOOD,
    FUNERAL,
    GOD,
    GOD_BASE,
    GOD_FOLLOW_UP,
    GOLD,
    INVOKE_RA,
    NUM_TILE_TYPES,
    OVER,
    PASS,
    PHASE_NAMES,
    RA,
    RA_DRAWN,
    RA_INVOKED,
    RA_INVOKED_FULL,
    TILE_NAMES,
    TILES_LOST_PER_DISASTER,
    TURN,
    UNREST,
)

# Tiles that go back to the box after each epoch's scoring (pharaohs, Niles and
# monuments stay in front of their owner).
DISCARDED_AFTER_SCORING = (GOD, GOLD, FLOOD, *CIVILIZATIONS)

# Why an epoch ended (recorded in its event).
RA_TRACK_FULL, SUNS_USED = "ra_track_full", "suns_used"

# seat order after a given seat: ORDERS[n][seat] = (seat+1, ..., seat) mod n
ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((seat + i) % n for i in range(1, n + 1)) for seat in range(n))
    for n in range(2, 6)
}


class RaStateViews(GameState):
    """What every Ra position has, whichever engine holds it: its fields (declared here,
    stored by :class:`RaState`, or by the compiled core as read-only copies), and all that
    is computed from them rather than by the rules: results, JSON, the record, messages.
    One definition, read by both engines (see arena/games/ra/compiled.py)."""

    __slots__ = ()

    num_players: int
    seed: int | None
    options: dict[str, Any]  # full options, or {} for a record from before editions
    rules: Rules  # what the edition does where the books differ
    epoch: int
    phase: int
    cur: int
    up: list[list[int]]  # face-up suns per seat, ascending
    down: list[list[int]]  # face-down (used) suns per seat
    hold: list[list[int]]  # tile counts per seat, indexed by tile type
    scores: list[int]
    center: int
    ra_count: int  # Ra tiles on the Ra track this epoch
    ra_limit: int  # the Ra tile that ends the epoch
    track: list[int]  # the auction track, left to right, no gaps
    box: list[int]  # tiles removed from the game, per type
    bag: list[int]  # tiles in the bag (order irrelevant: draws pick at random)
    stacked: list[int]  # tiles to draw first, last one next (scenario tests); in the bag
    rng: random.Random
    ra_player: int  # who holds the Ra figure (-1 before the first auction)
    kind: int  # the current auction's kind (RA_DRAWN, ...)
    high: int  # current high bid (0 = none)
    high_bidder: int
    queue: list[int]  # the seats bidding in this auction, in order
    queue_index: int  # position in ``queue`` of the seat bidding now
    bids: list[tuple[int, int]]  # (seat, sun; 0 = pass, -1 = could not outbid)
    dis_seat: int
    dis_pending: list[int]  # disasters still to resolve, the next one last
    dis_current: int  # the disaster being resolved (-1 = none)
    dis_left: int  # tiles the current disaster still takes
    dis_after: int  # AUCTION, GOD_FOLLOW_UP or TURN (the turn ends): what follows
    god_disasters: list[int]  # taken with gods this turn, striking when the takes end
    history: list[tuple[int, int, int]]  # (seat, action, tile taken / disaster or -1)
    events: list[tuple[Any, ...]]  # compact event log, expanded by record()
    initial_suns: list[list[int]]
    first_player: int
    _legal: list[int] | None
    # Observation caches (see jsonio.observation); private, never handed out.
    _obs_bag: dict[str, int] | None  # the bag's counts by tile name, kept up by _draw
    _obs_bag_of: list[int] | None  # the bag list _obs_bag counts ...
    _obs_bag_len: int  # ... and its length then
    _obs_players: tuple[Any, ...] | None  # per seat, replaced (never changed) when stale

    def current_player(self) -> int:
        return self.cur

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def _illegal_message(self, action: object, legal: Sequence[int]) -> str:
        if self.phase == OVER:
            return "the game is over: no action is legal"
        phase = PHASE_NAMES[self.phase]
        choices = ", ".join(f"{a} = {self.action_to_json(a)}" for a in legal)
        return f"action {action!r} is not legal for seat {self.cur} ({phase}); legal: {choices}"

    # -- results -------------------------------------------------------------------------

    def returns(self) -> list[float]:
        self._require_over("returns")
        return [float(score) for score in self.scores]

    def placements(self) -> list[int]:
        """By score.  A tie for the highest score goes to the highest sun among the tied
        (every book; suns are unique); the books say nothing of other ties, so equal
        scores below the winner share a place."""
        self._require_over("placements")
        seats = range(self.num_players)
        scores = self.scores
        highest = [max(self.up[s] + self.down[s]) for s in seats]
        keys: list[tuple[int, int]]
        if self.rules.only_the_win_tie_broken:
            best = max(scores)
            winner = max((s for s in seats if scores[s] == best), key=highest.__getitem__)
            keys = [(scores[s], s == winner) for s in seats]
        else:  # records from before editions broke every tie by the highest sun
            keys = [(scores[s], highest[s]) for s in seats]
        return [1 + sum(other > key for other in keys) for key in keys]

    def _require_over(self, what: str) -> None:
        if self.phase != OVER:
            raise IllegalActionError(f"{what}() is only known when the game is over")

    # -- JSON ----------------------------------------------------------------------------

    def observation(self, seat: int) -> dict[str, Any]:
        return jsonio.observation(self, seat)

    @abc.abstractmethod
    def _observed_bag(self) -> tuple[dict[str, int], int]:
        """The bag's counts by tile name for the observation (the caller copies them: they
        may be a cache) and its size."""

    def action_to_json(self, action: int) -> dict[str, Any]:
        if action not in self.legal_actions():
            raise IllegalActionError(self._illegal_message(action, self.legal_actions()))
        extra = -1
        if GOD_BASE <= action < BID_BASE:
            extra = self.track[action - GOD_BASE]
        elif action >= DISCARD_BASE:
            extra = self.dis_current
        return jsonio.action_json(action, extra)

    def to_json(self) -> dict[str, Any]:
        return jsonio.state_to_json(self)

    def record(self) -> dict[str, Any]:
        return jsonio.record(self)

    @abc.abstractmethod
    def clone(self, rng: random.Random | None = None) -> RaStateViews:
        """An independent copy; with ``rng``, one that draws from that generator."""

    @abc.abstractmethod
    def reseed(self, seed: int) -> None:
        """Draw the hidden future from ``seed`` instead."""

    def tiles_accounted(self) -> list[int]:
        """Per tile type: bag + Ra track + auction track + players + disasters still to
        resolve + box; always the full box of 180 (a check for tests)."""
        counts = self.box[:]
        for tile in self.bag:
            counts[tile] += 1
        for tile in self.track + self.dis_pending + self.god_disasters:
            counts[tile] += 1
        counts[RA] += self.ra_count
        for hold in self.hold:
            for tile in range(NUM_TILE_TYPES):
                counts[tile] += hold[tile]
        return counts

    def __repr__(self) -> str:
        where = f"epoch {self.epoch}, phase {self.phase}, seat {self.cur}"
        return f"<{type(self).__name__} {self.num_players} players, {where}>"


class RaState(RaStateViews):
    """A position of Ra, hidden bag included, in the pure-Python engine (the reference).
    Build one with ``RaGame.new_game``."""

    __slots__ = (
        "num_players", "seed", "options", "rules", "epoch", "phase", "cur", "up", "down", "hold",
        "scores", "center", "ra_count", "ra_limit", "track", "box", "bag", "stacked", "rng",
        "ra_player", "kind", "high", "high_bidder", "queue", "queue_index", "bids",
        "dis_seat", "dis_pending", "dis_current", "dis_left", "dis_after", "god_disasters",
        "history", "events", "initial_suns", "first_player", "_legal",
        "_obs_bag", "_obs_bag_of", "_obs_bag_len", "_obs_players",
    )  # fmt: skip

    # -- the rules -----------------------------------------------------------------------

    def _compute_legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == AUCTION:
            seat, high = self.cur, self.high
            legal = []
            for sun in self.up[seat]:  # a plain loop: faster than a comprehension here
                if sun > high:
                    legal.append(BID_BASE + sun)
            if high or self.kind != RA_INVOKED or seat != self.ra_player:
                legal.append(PASS)  # only the Ra player who invoked Ra must bid
        elif phase == TURN:
            legal = [DRAW, INVOKE_RA] if len(self.track) < AUCTION_TRACK_LENGTH else [INVOKE_RA]
            if self.hold[self.cur][GOD]:
                legal += self._god_takes()
        elif phase == GOD_FOLLOW_UP:
            legal = self._god_takes()
            legal.append(END_TURN)
        elif phase == DISASTER:
            hold = self.hold[self.cur]
            legal = [DISCARD_BASE + t for t in DISASTER_VICTIMS[self.dis_current] if hold[t]]
        else:
            legal = []
        return legal

    def _god_takes(self) -> list[int]:
        """One god take per distinct non-god tile type on the track (its first slot)."""
        seen = 1 << GOD
        takes = []
        for slot, tile in enumerate(self.track):
            if not (seen >> tile) & 1:
                seen |= 1 << tile
                takes.append(GOD_BASE + slot)
        return takes

    def _apply_legal_action(self, action: int) -> None:
        seat = self.cur
        phase = self.phase
        if phase == AUCTION:
            self.history.append((seat, action, -1))
            if action == PASS:
                self.bids.append((seat, 0))
            else:
                sun = action - BID_BASE
                self.bids.append((seat, sun))
                self.high = sun
                self.high_bidder = seat
            self._next_bidder(self.queue_index + 1)
        elif action == DRAW:
            self.history.append((seat, action, -1))
            self._draw(seat)
        elif action == INVOKE_RA:
            self.history.append((seat, action, -1))
            full = len(self.track) == AUCTION_TRACK_LENGTH
            self._start_auction(seat, RA_INVOKED_FULL if full else RA_INVOKED)
        elif action < BID_BASE:
            self._god_take(seat, action - GOD_BASE)
        elif action == END_TURN:
            self.history.append((seat, action, -1))
            self._end_god_turn(seat)
        else:  # a tile lost to the current disaster
            tile = action - DISCARD_BASE
            self.history.append((seat, action, self.dis_current))
            self.hold[seat][tile] -= 1
            self.box[tile] += 1
            self.events.append(("loss", seat, self.dis_current, tile, 1))
            self.dis_left -= 1
            self._resolve_disasters()

    # -- turns ---------------------------------------------------------------------------

    def _next_turn(self, after: int) -> None:
        """Give the turn to the first seat after ``after`` with a face-up sun (``after``
        itself last: a lone player keeps playing); end the epoch when there is none."""
        up = self.up
        for seat in ORDERS[self.num_players][after]:
            if up[seat]:
                self.cur = seat
                self.phase = TURN
                return
        self._end_epoch(SUNS_USED)

    def _draw(self, seat: int) -> None:
        stacked = self.stacked
        bag = self.bag
        if stacked:
            tile = stacked.pop()
            bag.remove(tile)
        else:
            assert bag, "the bag ran dry, which the rules make impossible"
            index = int(self.rng.random() * len(bag))
            tile = bag[index]
            bag[index] = bag[-1]
            bag.pop()
        counts = self._obs_bag
        if counts is not None:  # the observation's bag counts, kept up (~40 ns)
            counts[TILE_NAMES[tile]] -= 1
            self._obs_bag_len -= 1
        if tile == RA:
            self.ra_count += 1
            self.events.append(("draw", seat, tile, self.ra_count))
            if self.ra_count == self.ra_limit:
                self._end_epoch(RA_TRACK_FULL)
            else:
                self._start_auction(seat, RA_DRAWN)
        else:
            self.events.append(("draw", seat, tile))
            self.track.append(tile)
            self._next_turn(seat)

    def _god_take(self, seat: int, slot: int) -> None:
        tile = self.track.pop(slot)
        self.history.append((seat, GOD_BASE + slot, tile))
        hold = self.hold[seat]
        hold[GOD] -= 1
        self.box[GOD] += 1
        self.events.append(("god", seat, slot, tile))
        if tile < FUNERAL:
            hold[tile] += 1
        elif self.rules.god_disasters_at_once:
            self._start_disasters(seat, [tile], GOD_FOLLOW_UP)
            return
        else:  # it strikes once every tile of the turn's god takes is placed
            self.god_disasters.append(tile)
        self._after_god(seat)

    def _after_god(self, seat: int) -> None:
        if self.hold[seat][GOD] and any(tile != GOD for tile in self.track):
            self.cur = seat
            self.phase = GOD_FOLLOW_UP
        else:
            self._end_god_turn(seat)

    def _end_god_turn(self, seat: int) -> None:
        """The god takes are over: the disasters they set aside strike, then the turn
        passes."""
        if self.god_disasters:
            disasters, self.god_disasters = self.god_disasters, []
            self._start_disasters(seat, disasters, TURN)
        else:
            self._next_turn(seat)

    # -- auctions ------------------------------------------------------------------------

    def _start_auction(self, ra_player: int, kind: int) -> None:
        self.phase = AUCTION
        self.ra_player = ra_player
        self.kind = kind
        self.high = 0
        self.high_bidder = -1
        self.bids = []
        up = self.up
        queue = []
        for seat in ORDERS[self.num_players][ra_player]:
            if up[seat]:
                queue.append(seat)
        self.queue = queue
        self._next_bidder(0)

    def _next_bidder(self, index: int) -> None:
        """Move to the first seat from ``queue[index]`` on that can outbid; the others
        pass without a decision."""
        queue, high, up = self.queue, self.high, self.up
        while index < len(queue):
            seat = queue[index]
            if up[seat][-1] > high:
                self.queue_index = index
                self.cur = seat
                return
            self.bids.append((seat, -1))
            index += 1
        self.queue_index = index
        self._finish_auction()

    def _finish_auction(self) -> None:
        winner = self.high_bidder
        lot = self.track
        if winner < 0:
            discarded = self.kind == RA_INVOKED_FULL
            if discarded:
                box = self.box
                for tile in lot:
                    box[tile] += 1
                self.track = []
            else:
                lot = lot[:]  # the tiles stay on the track
            self.events.append(
                ("auction", self.ra_player, self.kind, self.bids, -1, 0, 0, lot, discarded)
            )
            self._after_auction()
            return
        sun = self.high
        self.up[winner].remove(sun)
        won_sun = self.center
        self.down[winner].append(won_sun)
        self.center = sun
        self.track = []
        self.events.append(
            ("auction", self.ra_player, self.kind, self.bids, winner, sun, won_sun, lot, False)
        )
        hold = self.hold[winner]
        disasters = []
        for tile in lot:
            if tile >= FUNERAL:
                disasters.append(tile)
            else:
                hold[tile] += 1
        if disasters:
            self._start_disasters(winner, disasters, AUCTION)
        else:
            self._after_auction()

    def _after_auction(self) -> None:
        """Whatever the outcome: the classic books pass the turn to the Ra player's left,
        the 2023 edition lets the Ra player continue (the next seat with a face-up sun
        from him on, in both cases)."""
        ra_player = self.ra_player
        if self.rules.ra_player_continues:
            self._next_turn((ra_player - 1) % self.num_players)
        else:
            self._next_turn(ra_player)

    # -- disasters -----------------------------------------------------------------------

    def _start_disasters(self, seat: int, disasters: list[int], after: int) -> None:
        self.dis_seat = seat
        self.dis_pending = sorted(disasters, reverse=True)
        self.dis_after = after
        self.dis_left = 0
        self._resolve_disasters()

    def _resolve_disasters(self) -> None:
        """Resolve the pending disasters in tile order; stop at a real choice."""
        seat = self.dis_seat
        hold, box, events, pending = self.hold[seat], self.box, self.events, self.dis_pending
        left = self.dis_left
        while left or pending:
            if not left:
                disaster = pending.pop()
                self.dis_current = disaster
                box[disaster] += 1
                left = TILES_LOST_PER_DISASTER
                events.append(("disaster", seat, disaster))
            disaster = self.dis_current
            held = [t for t in DISASTER_VICTIMS[disaster] if hold[t]]
            if disaster >= UNREST and len(held) > 1 and sum(hold[t] for t in held) > left:
                # unrest / earthquake with a real choice: one tile per decision
                self.dis_left = left
                self.cur = seat
                self.phase = DISASTER
                self._legal = [DISCARD_BASE + t for t in held]
                return
            for tile in held:  # in order: drought takes floods before Niles
                lost = min(left, hold[tile])
                if lost:
                    hold[tile] -= lost
                    box[tile] += lost
                    left -= lost
                    events.append(("loss", seat, disaster, tile, lost))
            left = 0
        self.dis_left = 0
        self.dis_current = -1
        after = self.dis_after
        if after == AUCTION:
            self._after_auction()
        elif after == GOD_FOLLOW_UP:
            self._after_god(seat)
        else:  # TURN: the disasters of the turn's god takes
            self._next_turn(seat)

    # -- epochs --------------------------------------------------------------------------

    def _end_epoch(self, reason: str) -> None:
        box = self.box
        discarded = self.track
        for tile in discarded:
            box[tile] += 1
        self.track = []
        box[RA] += self.ra_count
        self.ra_count = 0
        final = self.epoch == EPOCHS
        up, down = self.up, self.down
        points = epoch_points(self.hold, [u + d for u, d in zip(up, down, strict=True)], final)
        scores = self.scores
        for seat, hold in enumerate(self.hold):
            scores[seat] = max(0, scores[seat] + sum(points[seat]))
            for tile in DISCARDED_AFTER_SCORING:
                box[tile] += hold[tile]
                hold[tile] = 0
            up[seat] = sorted(up[seat] + down[seat])
            down[seat] = []
        self.events.append(("epoch", self.epoch, reason, points, scores[:], discarded))
        if final:
            self.phase = OVER
            self.cur = TERMINAL
        else:
            self.epoch += 1
            self.phase = TURN
            self.cur = max(range(self.num_players), key=lambda seat: up[seat][-1])

    def _observed_bag(self) -> tuple[dict[str, int], int]:
        return jsonio.observed_bag(self)

    # -- what a draw revealed, copies ----------------------------------------------------

    def outcome_json(self, action: int) -> dict[str, Any] | None:
        """A draw reveals its tile (the last one drawn: an epoch's end may log more)."""
        if action != DRAW:
            return None
        for event in reversed(self.events):
            if event[0] == "draw":
                return {"tile": TILE_NAMES[event[2]]}
        return None

    def clone(self, rng: random.Random | None = None) -> RaState:
        """An independent copy.  With ``rng``, the copy draws from that generator instead
        of a copy of this state's (search: a fresh sample of the hidden future, as
        ``copy = state.clone(); copy.rng = rng`` but without copying the generator, which
        is most of a clone's cost)."""
        new = RaState.__new__(RaState)
        for name in RaState.__slots__:
            setattr(new, name, getattr(self, name))
        new.options = dict(self.options)
        new.up = [suns[:] for suns in self.up]
        new.down = [suns[:] for suns in self.down]
        new.hold = [hold[:] for hold in self.hold]
        new.scores = self.scores[:]
        new.track = self.track[:]
        new.box = self.box[:]
        new.bag = self.bag[:]
        new.stacked = self.stacked[:]
        if rng is None:
            # the same stream, continued: a bare generator (Random() would first seed
            # itself from the operating system) given this one's state
            rng = random.Random.__new__(random.Random)
            rng.setstate(self.rng.getstate())
        new.rng = rng
        new.queue = self.queue[:]
        new.bids = self.bids[:]
        new.dis_pending = self.dis_pending[:]
        new.god_disasters = self.god_disasters[:]
        new.history = self.history[:]
        new.events = self.events[:]  # the events themselves are never changed
        new._legal = None if self._legal is None else self._legal[:]
        # _draw changes the bag counts in place: the copy counts its own bag when asked
        # (_obs_players is never changed in place, so the copy may share it)
        new._obs_bag = None
        new._obs_bag_of = None
        return new

    def reseed(self, seed: int) -> None:
        """Draw the hidden future from ``seed`` instead (for search: a fresh sample of
        the bag's order; the public position is unchanged)."""
        self.rng.seed(seed)
        self.stacked = []
