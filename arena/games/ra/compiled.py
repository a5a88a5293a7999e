"""``CompiledRaState``: a Ra position held by the compiled core (``_core.pyx``).

Its rules, copies and whole playouts run in C (:class:`arena.games.ra._core.Core`); its
JSON, results, record and messages are the pure engine's own code
(:class:`~arena.games.ra.state.RaStateViews`) reading the core's fields.  It plays the
same game to the bit as :class:`~arena.games.ra.state.RaState`: the same legal lists,
states, records and draws from the same random stream (tests/games/ra/test_engines_agree.py).

Its fields (``state.hold``, ``state.up``...) are fresh copies, read-only: changing one
changes nothing.  Build positions by hand with the pure engine (``scenario.py``,
``determinize``) and convert them with :meth:`CompiledRaState.from_pure`; only ``rng``
may be replaced, as on a pure state.

Importing this module fails (ImportError) where the core was not built;
:mod:`arena.games.ra.engines` decides which engine plays.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.ra import jsonio
from arena.games.ra._core import Core
from arena.games.ra.editions import rules_of
from arena.games.ra.state import RaStateViews


class CompiledRaState(Core, RaStateViews):
    """A Ra position in the compiled core.  Build one with ``RaGame.new_game`` (the
    compiled engine) or :meth:`from_pure`."""

    # the observation's caches (jsonio.observation), per instance once set
    _obs_bag: dict[str, int] | None = None
    _obs_bag_of: list[int] | None = None
    _obs_bag_len: int = 0
    _obs_players: tuple[Any, ...] | None = None

    @classmethod
    def blank(cls, num_players: int, suns: list[list[int]], seed: int | None,
              rng: random.Random, bag: list[int], options: dict[str, Any]
              ) -> CompiledRaState:
        """``game.blank_state`` in the compiled core: epoch 1, these suns and this bag."""
        state = cls.__new__(cls)
        state._blank(num_players, suns, seed, rng, bag, options, rules_of(options))
        return state

    @classmethod
    def from_pure(cls, state: RaStateViews, rng: random.Random | None = None
                  ) -> CompiledRaState:
        """The same position in the compiled core, drawing from ``rng`` (default: a copy
        of ``state``'s generator, as ``state.clone()`` would)."""
        if rng is None:
            rng = random.Random.__new__(random.Random)
            rng.setstate(state.rng.getstate())
        new = cls.__new__(cls)
        try:
            new._load(state, rng)
        except (ValueError, TypeError, IndexError, KeyError) as error:
            raise ValueError(f"this Ra position does not fit the compiled core: {error}"
                             ) from None
        return new

    def _observed_bag(self) -> tuple[dict[str, int], int]:
        """The bag counted in C, once per bag size: only a draw changes a compiled bag, and
        every draw makes it smaller."""
        size = self.bag_size()
        if self._obs_bag is None or self._obs_bag_len != size:
            self._obs_bag = jsonio.tile_counts(self.bag_counts(), keep_zeros=True)
            self._obs_bag_len = size
        return self._obs_bag, size

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle and copy.deepcopy: through the saved state, which keeps everything
        return (_from_json, (self.to_json(),))


def _from_json(data: Mapping[str, Any]) -> CompiledRaState:
    pure = jsonio.state_from_json(data)
    return CompiledRaState.from_pure(pure, pure.rng)

