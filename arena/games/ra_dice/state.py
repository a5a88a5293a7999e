"""One game of Ra: The Dice Game in progress: the rules, on ints and flat lists.

A turn is a short sequence of decisions by the turn player: which dice to reroll (at most
twice; Suns are locked after every roll), then, after the Sun dice have taken effect,
one application at a time until "done".  Four or five Suns first ask for a disaster; a
disaster's victims then choose, one marker at a time, which of their own markers go.
A decision with only one possible answer is taken automatically (the "done" left when no
die can be applied, a victim who must give up every marker he has), so every decision a
bot sees is a real one.  The rules and their readings are in ``docs/rules-ra-dice.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games.base import TERMINAL, GameError, GameState
from arena.games.ra_dice import actions as A
from arena.games.ra_dice.actions import BITS, POPCOUNT, SUBMASKS, dice_used
from arena.games.ra_dice.board import (
    ALL_DICE,
    ANKH,
    ANKH_PAIR_POINTS,
    CIVILIZATION,
    DISASTER_TRACK_LOSS,
    EPOCHS,
    MONUMENT,
    NILE,
    NUM_COLUMNS,
    NUM_DICE,
    PHARAOH,
    PHARAOH_BEST,
    PHARAOH_BEST_BACK,
    PHARAOH_WORST,
    PHARAOH_WORST_UP,
    REROLLS,
    START_SCORE,
    SUN,
    THREE_SUNS_POINTS,
    Board,
)
from arena.games.ra_dice.dice import DiceRoller
from arena.games.ra_dice.scoring import (
    civilization_points,
    monument_points,
    nile_points,
    pharaoh_points,
)

PHASES: tuple[str, ...] = ("roll", "disaster", "victim", "apply", "over")
ROLL, DISASTER, VICTIM, APPLY, OVER = range(5)
NUM_SPACES = 5 * NUM_COLUMNS
EMPTY = -1


class RaDiceState(GameState):
    """The complete position.  Events are kept as compact lists (see ``record.py``)."""

    # Entering the APPLY phase: list the applications at once (True: whoever plays
    # asks for them at every decision), or only check that one exists (:meth:`can_apply`,
    # what ends a turn with nothing to apply) and list them when asked: for a search's
    # playouts, whose policy picks its application without the list (arena/strategies/
    # dice_mcts.py), which a Monument die makes long.
    lazy_applications = False

    def __init__(self, board: Board, num_players: int, seed: int) -> None:
        self.board = board
        self.num_players = num_players
        self.seed = seed
        self.dice = DiceRoller(seed)
        self.scores = [START_SCORE + seat for seat in range(num_players)]
        self.pharaoh = [0] * num_players
        self.nile = [0] * num_players
        self.floods = [0] * num_players
        self.civilization = [0] * NUM_DICE  # per colour: bit mask of the seats with a marker
        self.civilization_markers = [0] * num_players
        self.monuments = [EMPTY] * NUM_SPACES  # space 5*column+colour -> seat or EMPTY
        self.monument_columns = [0] * num_players  # bit mask of the columns holding own markers
        self.monument_markers = [0] * num_players
        self.ra = board.ra_start
        self.epoch = 1
        self.player = 0  # whose turn it is
        self.phase = ROLL
        self.faces = [SUN] * NUM_DICE
        self.rolls = 0  # rolls made this turn (1 = the first roll)
        self.used = 0  # dice applied this turn
        self.placed_monuments = 0  # Monument markers placed this turn
        self.victims: list[list[int]] = []  # [seat, disaster action, markers still to lose]
        self.events: list[list[Any]] = []
        self._legal: list[int] | None = None

    # ----------------------------------------------------------------- the contract

    def current_player(self) -> int:
        if self.phase == VICTIM:
            return self.victims[0][0]
        return TERMINAL if self.phase == OVER else self.player

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def _illegal_message(self, action: object, legal: Sequence[int]) -> str:
        return (f"action {action!r} is not legal now (phase {PHASES[self.phase]}, "
                f"seat {self.current_player()}); legal actions: {list(legal)}")

    def _apply_legal_action(self, action: int) -> None:
        self.events.append(["act", self.current_player(), action, self.used])
        phase = self.phase
        if phase == ROLL:
            if action == A.STOP:
                self._finish_rolling()
            else:
                self._roll(action)
        elif phase == APPLY:
            if action == A.DONE:
                self._end_turn()
            else:
                self._apply(action)
        elif phase == DISASTER:
            self._disaster(action)
        else:
            self._lose(action)

    def returns(self) -> list[float]:
        self._require_terminal()
        return [float(score) for score in self.scores]

    def placements(self) -> list[int]:
        """Most points first; equal points share a place, as the book names no tie-break
        ("The player with the most points wins")."""
        self._require_terminal()
        scores = self.scores
        if self.board.ties_shared:
            return [1 + sum(other > score for other in scores) for score in scores]
        # records from before editions: the earlier seat ranked ahead on equal points
        order = sorted(range(self.num_players), key=lambda seat: (-scores[seat], seat))
        places = [0] * self.num_players
        for place, seat in enumerate(order, start=1):
            places[seat] = place
        return places

    def action_to_json(self, action: int) -> dict[str, Any]:
        return A.describe(action, self.faces, self.used, self.board)

    def observation(self, seat: int) -> dict[str, Any]:
        from arena.games.ra_dice.record import observation

        return observation(self, seat)

    def to_json(self) -> dict[str, Any]:
        from arena.games.ra_dice.record import state_to_json

        return state_to_json(self)

    def record(self) -> dict[str, Any]:
        from arena.games.ra_dice.record import build_record

        return build_record(self)

    def clone(self) -> RaDiceState:
        twin = object.__new__(RaDiceState)
        twin.__dict__.update(self.__dict__)
        twin.dice = self.dice.clone()
        for name in ("scores", "pharaoh", "nile", "floods", "civilization",
                     "civilization_markers", "monuments", "monument_columns",
                     "monument_markers", "faces", "events"):
            setattr(twin, name, list(getattr(self, name)))
        twin.victims = [list(victim) for victim in self.victims]
        twin._legal = None if self._legal is None else list(self._legal)
        return twin

    def reseed(self, seed: int) -> None:
        """Roll the dice from ``seed`` from now on (for search: a fresh sample of the
        future rolls; the position, the dice showing included, is unchanged)."""
        self.dice = DiceRoller(seed)

    def _require_terminal(self) -> None:
        if self.phase != OVER:
            raise GameError("the game is not over yet")

    # ------------------------------------------------------------------ legal lists

    def _compute_legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == ROLL:
            return [A.STOP, *SUBMASKS[self._unlocked()]]
        if phase == APPLY:
            return self._applications()
        if phase == DISASTER:
            return list(range(A.DISASTER_BASE, A.DISASTER_BASE + len(A.DISASTERS)))
        if phase == VICTIM:
            seat, disaster, _ = self.victims[0]
            if disaster == A.DISASTER_CIVILIZATION:
                bit = 1 << seat
                return [A.LOSE_CIVILIZATION_BASE + colour
                        for colour in range(NUM_DICE) if self.civilization[colour] & bit]
            return [A.LOSE_MONUMENT_BASE + space
                    for space in range(NUM_SPACES) if self.monuments[space] == seat]
        return []

    def _unlocked(self) -> int:
        """The dice not showing a Sun (Suns are locked on the Sun track)."""
        f = self.faces  # unrolled: this runs after every roll (SUN is face 0)
        return ((f[0] != SUN) | (f[1] != SUN) << 1 | (f[2] != SUN) << 2 | (f[3] != SUN) << 3
                | (f[4] != SUN) << 4)

    def _applications(self) -> list[int]:
        """Every application the turn player can make with his unused dice, then DONE."""
        counts, civ_dice, monument_dice = self.free_dice()
        legal = self.non_monument_applications(counts, civ_dice)
        legal.insert(0, A.DONE)
        if monument_dice:
            for targets, partners in self.monument_options(monument_dice, counts[ANKH]):
                if len(partners) == 1:  # the common case (a turn's first marker): one pass
                    base = A.MONUMENT_BASE + partners[0]
                    legal.extend([base + 8 * space for space in targets])
                else:
                    legal.extend([A.MONUMENT_BASE + 8 * space + partner
                                  for space in targets for partner in partners])
        return legal

    # The pieces of the list of applications, public for the bots' playouts: a rollout
    # policy that picks its application without the list (which a Monument die makes
    # long) asks the same rules the list is made of.

    def free_dice(self) -> tuple[list[int], int, int]:
        """The turn player's unused dice: how many show each face, and the masks of the
        Civilization dice and of the Monument dice among them."""
        counts = [0] * 6
        faces = self.faces
        civ_dice = monument_dice = 0
        for i in BITS[ALL_DICE & ~self.used]:
            face = faces[i]
            counts[face] += 1
            if face == CIVILIZATION:
                civ_dice |= 1 << i
            elif face == MONUMENT:
                monument_dice |= 1 << i
        return counts, civ_dice, monument_dice

    def non_monument_applications(self, counts: list[int], civ_dice: int) -> list[int]:
        """The Pharaoh, Nile, flood and Civilization applications, in the list's order,
        for the free dice ``counts`` and Civilization dice ``civ_dice`` (:meth:`free_dice`)."""
        seat, ankhs, top = self.player, counts[ANKH], self.board.track_top
        pharaohs, niles, civs = counts[PHARAOH], counts[NILE], counts[CIVILIZATION]
        legal: list[int] = []
        if pharaohs:
            room = top - self.pharaoh[seat]
            if room > 0:  # Ankhs are offered only while they still move the marker
                extra = min(ankhs, room - pharaohs) if room > pharaohs else 0
                legal.extend(range(A.PHARAOH_BASE, A.PHARAOH_BASE + extra + 1))
        if niles:
            room = top - self.nile[seat]
            if room > 0:
                extra = min(ankhs, room - niles) if room > niles else 0
                legal.extend(range(A.NILE_BASE, A.NILE_BASE + extra + 1))
            for flood_ankhs in range(min(2, ankhs) + 1):  # three Niles, up to two Ankhs
                if niles + flood_ankhs >= 3:
                    legal.append(A.FLOOD_BASE + flood_ankhs)
        if civs:
            open_colours = self.open_civilization_colours(civs, ankhs, civ_dice)
            if open_colours:  # as many colours as the dice beyond two pay for, up to 3
                most = min(3, civs + ankhs - 2)
                legal.extend(A.CIVILIZATION_BASE + colours for colours in SUBMASKS[open_colours]
                             if POPCOUNT[colours] <= most)
        return legal

    def can_apply(self) -> bool:
        """Whether the turn player has any application besides DONE (else his turn ends
        by itself).  The rules of :meth:`_applications`, asked only whether each kind
        has one: cheaper than the list, which lazy_applications puts off."""
        counts, civ_dice, monument_dice = self.free_dice()
        seat, ankhs = self.player, counts[ANKH]
        top = self.board.track_top
        if counts[PHARAOH] and self.pharaoh[seat] < top:
            return True
        niles = counts[NILE]
        if niles and (self.nile[seat] < top or niles + min(2, ankhs) >= 3):  # move, flood
            return True
        if self.open_civilization_colours(counts[CIVILIZATION], ankhs, civ_dice):
            return True
        if not monument_dice:
            return False
        spaces = self.monuments
        dice = BITS[monument_dice]
        if self.placed_monuments == 0:  # the first marker: any empty space of its colour
            return any(spaces[space] == EMPTY
                       for colour in dice for space in range(colour, NUM_SPACES, 5))
        if not ankhs and len(dice) < 2:  # no partner
            return False
        own_columns = self.monument_columns[seat]
        return any(not own_columns >> column & 1 and spaces[5 * column + colour] == EMPTY
                   for colour in dice for column in range(NUM_COLUMNS))

    def open_civilization_colours(self, civs: int, ankhs: int, civ_dice: int) -> int:
        """The mask of the colours the turn player can place a Civilization marker on
        with the free Civilization dice ``civ_dice`` (``civs`` of them) and ``ankhs``
        Ankhs: it takes three dice, and a colour the player already holds or that is
        full is closed (0: no Civilization application)."""
        if not civs or civs + ankhs < 3:
            return 0
        bit, capacity, area = 1 << self.player, self.board.civilization_capacity, \
            self.civilization
        open_colours = 0
        for colour in BITS[civ_dice]:
            if not area[colour] & bit and POPCOUNT[area[colour]] < capacity:
                open_colours |= 1 << colour
        return open_colours

    def monument_options(self, monument_dice: int, ankhs: int
                         ) -> list[tuple[list[int], list[int]]]:
        """Per free Monument die (``monument_dice``) that can be applied, in die order:
        the spaces its marker can take, column by column, and the partners it can be
        applied with.  The turn's first marker takes any empty space of its colour and no
        partner (``[PARTNER_NONE]``); each later one only a column the player has no
        marker in yet, with an Ankh (if one is free) or another free Monument die."""
        spaces = self.monuments
        dice = BITS[monument_dice]
        if self.placed_monuments == 0:
            return [([space for space in range(colour, NUM_SPACES, 5) if spaces[space] == EMPTY],
                     [A.PARTNER_NONE]) for colour in dice]
        own_columns = self.monument_columns[self.player]
        options = []
        for colour in dice:
            partners = [A.PARTNER_ANKH] if ankhs else []
            partners += [2 + other for other in dice if other != colour]
            if partners:
                options.append(([space for space in range(colour, NUM_SPACES, 5)
                                 if not own_columns >> space // 5 & 1 and spaces[space] == EMPTY],
                                partners))
        return options

    # ------------------------------------------------------------------- the turn

    def _start_turn(self) -> None:
        self.used = 0
        self.placed_monuments = 0
        self.rolls = 0
        self.phase = ROLL
        self._roll(ALL_DICE)

    def _roll(self, dice: int) -> None:
        faces = self.faces
        self.dice.roll(faces, BITS[dice])
        self.rolls += 1
        self.events.append(["roll", self.player, dice, self.rolls, *faces])
        if self.rolls > REROLLS or not self._unlocked():  # no reroll left, or all Suns
            self._finish_rolling()

    def _finish_rolling(self) -> None:
        suns = self.faces.count(SUN)
        seat = self.player
        if suns >= 4:
            self.events.append(["sun", seat, suns, self.ra, self.scores[seat]])
            self.phase = DISASTER
            return
        if suns == 3:
            self.scores[seat] += THREE_SUNS_POINTS
        elif suns:
            self.ra += suns
        if suns:
            self.events.append(["sun", seat, suns, self.ra, self.scores[seat]])
        self._enter_apply()

    def _enter_apply(self) -> None:
        self.phase = APPLY
        if self.lazy_applications:
            if self.can_apply():
                self._legal = None  # listed if asked for
            else:  # nothing can be applied: the turn ends by itself
                self._end_turn()
            return
        legal = self._applications()
        if len(legal) == 1:  # nothing can be applied: the turn ends by itself
            self._end_turn()
        else:
            self._legal = legal

    def _apply(self, action: int) -> None:
        seat = self.player
        dice = dice_used(action, self.faces, self.used)
        self.used |= dice
        if action < A.NILE_BASE:
            self.pharaoh[seat] = min(self.board.track_top, self.pharaoh[seat] + POPCOUNT[dice])
        elif action < A.FLOOD_BASE:
            self.nile[seat] = min(self.board.track_top, self.nile[seat] + POPCOUNT[dice])
        elif action < A.CIVILIZATION_BASE:
            self.floods[seat] += 1  # placed on the Nile marker's space and moves with it
        elif action < A.MONUMENT_BASE:
            colours = action - A.CIVILIZATION_BASE
            for colour in BITS[colours]:
                self.civilization[colour] |= 1 << seat
            self.civilization_markers[seat] += POPCOUNT[colours]
        else:
            space = (action - A.MONUMENT_BASE) // 8
            self.monuments[space] = seat
            self.monument_columns[seat] |= 1 << space // 5
            self.monument_markers[seat] += 1
            self.placed_monuments += 1
        self._enter_apply()

    def _end_turn(self) -> None:
        seat = self.player
        ankhs = 0
        if ANKH in self.faces:
            for i in range(NUM_DICE):
                if self.faces[i] == ANKH and not self.used >> i & 1:
                    ankhs += 1
        if ankhs >= 2:
            self.scores[seat] += ankhs // 2 * ANKH_PAIR_POINTS
            self.events.append(["ankhs", seat, ankhs // 2 * ANKH_PAIR_POINTS, self.scores[seat]])
        self.player = (seat + 1) % self.num_players
        if self.ra >= self.board.ra_end:  # the epoch ends after the turn that got Ra there
            self._score_epoch(seat)
            if self.epoch == EPOCHS:
                self.phase = OVER
                self._legal = []
                return
            self.epoch += 1
            self.ra = self.board.ra_start
        self._start_turn()

    # ------------------------------------------------------------------- disasters

    def _disaster(self, action: int) -> None:
        if action != A.DISASTER_NONE:
            for step in range(1, self.num_players):
                self._strike((self.player + step) % self.num_players, action)
        self._next_victim()

    def _strike(self, victim: int, action: int) -> None:
        """Apply a disaster to one victim; queue him if he has a choice to make."""
        if action == A.DISASTER_PHARAOH:
            self.pharaoh[victim] = max(0, self.pharaoh[victim] - DISASTER_TRACK_LOSS)
            self.events.append(["hit", victim, "pharaoh", self.pharaoh[victim]])
        elif action == A.DISASTER_NILE:
            if self.floods[victim]:
                self.floods[victim] -= 1
                self.events.append(["hit", victim, "flood", self.floods[victim]])
            else:
                self.nile[victim] = max(0, self.nile[victim] - DISASTER_TRACK_LOSS)
                self.events.append(["hit", victim, "nile", self.nile[victim]])
        else:
            held = (self.civilization_markers if action == A.DISASTER_CIVILIZATION
                    else self.monument_markers)[victim]
            if held > 2:
                self.victims.append([victim, action, 2])
            elif held:
                self._lose_all(victim, action)

    def _next_victim(self) -> None:
        if self.victims:
            self.phase = VICTIM
        else:
            self._enter_apply()

    def _lose(self, action: int) -> None:
        victim_entry = self.victims[0]
        self._remove(victim_entry[0], action)
        victim_entry[2] -= 1
        if victim_entry[2] == 0:  # queued victims hold 3+ markers, so both were his choice
            self.victims.pop(0)
        self._next_victim()

    def _lose_all(self, victim: int, disaster: int) -> None:
        for action in self._victim_markers(victim, disaster):
            self._remove(victim, action)
            self.events.append(["lost", victim, action])

    def _victim_markers(self, victim: int, disaster: int) -> list[int]:
        if disaster == A.DISASTER_CIVILIZATION:
            return [A.LOSE_CIVILIZATION_BASE + colour for colour in range(NUM_DICE)
                    if self.civilization[colour] >> victim & 1]
        return [A.LOSE_MONUMENT_BASE + space for space in range(NUM_SPACES)
                if self.monuments[space] == victim]

    def _remove(self, victim: int, action: int) -> None:
        if action < A.LOSE_MONUMENT_BASE:
            self.civilization[action - A.LOSE_CIVILIZATION_BASE] &= ~(1 << victim)
            self.civilization_markers[victim] -= 1
            return
        space = action - A.LOSE_MONUMENT_BASE
        self.monuments[space] = EMPTY
        self.monument_markers[victim] -= 1
        column = space // 5
        if victim not in self.monuments[5 * column : 5 * column + 5]:
            self.monument_columns[victim] &= ~(1 << column)

    # --------------------------------------------------------------------- scoring

    def _score_epoch(self, ender: int) -> None:
        scores, top = self.scores, self.board.track_top
        pharaoh = pharaoh_points(self.pharaoh)
        self._add(pharaoh)
        for seat, points in enumerate(pharaoh):
            if points == PHARAOH_BEST:
                self.pharaoh[seat] = max(0, self.pharaoh[seat] - PHARAOH_BEST_BACK)
            elif points == PHARAOH_WORST:
                self.pharaoh[seat] = min(top, self.pharaoh[seat] + PHARAOH_WORST_UP)
        nile = nile_points(self.nile, self.floods)
        self._add(nile)
        self.floods = [0] * self.num_players
        civilization = civilization_points(self.civilization_markers)
        self._add(civilization)
        self.civilization = [0] * NUM_DICE
        self.civilization_markers = [0] * self.num_players
        monuments: list[int] | None = None
        if self.epoch == EPOCHS:
            monuments = monument_points(self.monuments, self.num_players)
            self._add(monuments)
        self.events.append(["epoch", self.epoch, ender, pharaoh, nile, civilization,
                            monuments, list(scores)])

    def _add(self, points: list[int]) -> None:
        """Score a category (the book has no floor; records from before editions kept
        every score at 0 or more)."""
        scores = self.scores
        floor = self.board.score_floor
        for seat, gain in enumerate(points):
            scores[seat] = max(0, scores[seat] + gain) if floor else scores[seat] + gain

