"""Which Ra engine plays: the compiled core or the pure-Python reference.

Both play the same game to the bit (tests/games/ra/test_engines_agree.py).  The pure
engine (``state.py``) is the reference and runs anywhere; the compiled core
(``_core.pyx``, wrapped by ``compiled.py``), built by setup.py where a C compiler is found,
plays whole playouts in C, tens of times faster, which is what the search bots run.

Everything that plays Ra asks here: ``RaGame`` (so the referee, the environments, replays
and self-play), the greedy and mcts bots.  The choice, for this process:

* ``ARENA_RA_ENGINE=python``: the pure engine;
* ``ARENA_RA_ENGINE=compiled``: the compiled core (an error where it is not built);
* unset or ``auto``: the compiled core where it is built, else the pure engine.

A bot process starts with a clean environment (docs/security.md), so the variable does
not reach it: the bundled greedy and mcts take ``--engine python|compiled|auto`` instead.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from arena.games.base import GameOptionError
from arena.games.ra import jsonio
from arena.games.ra.state import RaState, RaStateViews

if TYPE_CHECKING:
    from arena.games.ra.compiled import CompiledRaState

ENGINE_VARIABLE = "ARENA_RA_ENGINE"
AUTO, COMPILED, PYTHON = "auto", "compiled", "python"
CHOICES = (AUTO, COMPILED, PYTHON)
NAMES = {COMPILED: "the compiled Ra core", PYTHON: "the pure-Python Ra engine"}


@functools.cache
def _compiled() -> tuple[type[CompiledRaState] | None, str]:
    """The compiled state class, or None and why it cannot be used."""
    try:
        from arena.games.ra import _core
        from arena.games.ra.compiled import CompiledRaState
    except ImportError as error:
        return None, f"not built here: {error}; pip install with a C compiler builds it"
    # "?": a core from before it recorded its source, older than any _core.pyx beside it
    stale = _stale(_core.__file__, getattr(_core, "SOURCE_SHA256", "?"))
    return (None, stale) if stale else (CompiledRaState, "")


def _stale(module: str | None, built_from: str) -> str:
    """Why a built core is older than the _core.pyx beside it (a checkout whose editable
    install was not rebuilt after an edit: its rules would be the old ones), or ""."""
    source = Path(module or "").with_name("_core.pyx")
    if not built_from or not source.is_file():
        return ""  # a wheel (no source beside it), or a core not built by setup.py
    if hashlib.sha256(source.read_bytes()).hexdigest() == built_from:
        return ""
    return (f"out of date here: built from another {source.name} than the one beside it; "
            "pip install -e . rebuilds it")


def compiled_available() -> bool:
    """Whether the compiled core is built and loads in this installation."""
    return _compiled()[0] is not None


def why_not_compiled() -> str:
    """Why the compiled core cannot be used ("" when it can): "not built here: ..." or
    "out of date here: ...", each saying what to do."""
    return _compiled()[1]


def compiled_class() -> type[CompiledRaState]:
    """The compiled state class; GameOptionError where the core is not built."""
    cls, reason = _compiled()
    if cls is None:
        raise GameOptionError(f"the compiled Ra core is {reason} (or use the pure engine: "
                              f"{ENGINE_VARIABLE}=python)")
    return cls


def resolve(engine: str | None = None) -> str:
    """The engine that plays, COMPILED or PYTHON: ``engine`` if given ("auto",
    "compiled" or "python"), else what ``ARENA_RA_ENGINE`` says, else auto.
    GameOptionError for anything else, or for "compiled" where the core is not built."""
    if engine is None:
        choice = os.environ.get(ENGINE_VARIABLE, "").strip().lower() or AUTO
        where = f"{ENGINE_VARIABLE}="
    else:
        choice, where = engine, "the Ra engine "
    if choice not in CHOICES:
        raise GameOptionError(f"{where}{choice!r} is not a Ra engine; choose "
                              f"{', '.join(CHOICES)}")
    if choice == AUTO:
        return COMPILED if compiled_available() else PYTHON
    if choice == COMPILED:
        compiled_class()  # says why not
    return choice


def as_engine(state: RaStateViews, engine: str | None = None) -> RaStateViews:
    """``state`` in ``engine`` (see :func:`resolve`): itself when it is already held by
    that engine, else the same position converted, with its own copy of the generator."""
    if resolve(engine) == COMPILED:
        cls = compiled_class()
        return state if isinstance(state, cls) else cls.from_pure(state)
    return state if isinstance(state, RaState) else to_pure(state)


def to_pure(state: RaStateViews) -> RaState:
    """The same position in the pure engine (its own copy of the generator)."""
    return jsonio.state_from_json(state.to_json())


def engine_of(state: RaStateViews) -> str:
    """COMPILED or PYTHON: the engine holding ``state``."""
    return PYTHON if isinstance(state, RaState) else COMPILED


def describe(engine: str | None = None) -> str:
    """One line for people: which engine plays here (for ``engine``, default the
    process's choice), and why the compiled core does not, when it does not."""
    try:
        chosen = resolve(engine)
    except GameOptionError as error:
        return f"no Ra engine: {error}"
    if chosen == COMPILED:
        return NAMES[COMPILED]
    if not compiled_available():
        return f"{NAMES[PYTHON]} (the compiled core is {why_not_compiled()})"
    return f"{NAMES[PYTHON]} (chosen: the compiled core is built)"


def add_engine_argument(parser: argparse.ArgumentParser) -> None:
    """``--engine`` for a program that plays on a Ra engine (the bundled greedy and mcts):
    a bot process does not see ARENA_RA_ENGINE (its environment is scrubbed)."""
    parser.add_argument("--engine", choices=CHOICES, default=None,
                        help="the Ra engine to search with: compiled (the C core), python "
                             f"or auto (the core where built; default: {ENGINE_VARIABLE}, "
                             "else auto)")
