"""Which Ra engine plays (arena/games/ra/engines.py): the compiled core where it is built,
the pure-Python engine where it is not (an install without a C compiler) or where
ARENA_RA_ENGINE=python says so; and every place says which."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.games.base import GameOptionError
from arena.games.ra import GAME, RaGame, RaState, engines
from arena.games.ra.scenario import build_state
from arena.strategies.greedy import GreedyStrategy
from arena.strategies.mcts import MctsStrategy

# Python that runs the arena as if the core had not been built: its import fails
HIDE_CORE = "import sys; sys.modules['arena.games.ra._core'] = None; "


@pytest.fixture(scope="module", autouse=True)
def ra_engine() -> str:
    """This module chooses the engines itself: it runs once."""
    return "chosen per test"


@pytest.fixture
def no_core(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process as an installation without the compiled core."""
    monkeypatch.delenv(engines.ENGINE_VARIABLE, raising=False)
    monkeypatch.setitem(sys.modules, "arena.games.ra._core", None)  # import fails
    monkeypatch.delitem(sys.modules, "arena.games.ra.compiled", raising=False)
    engines._compiled.cache_clear()
    yield
    engines._compiled.cache_clear()


def test_without_the_core_the_pure_engine_plays_and_says_why(no_core: None) -> None:
    assert not engines.compiled_available()
    assert engines.why_not_compiled().startswith("not built here: ")
    assert "_core" in engines.why_not_compiled()
    assert engines.resolve() == engines.PYTHON
    assert type(GAME.new_game(3, 1)) is RaState
    assert type(build_state(3)) is RaState
    assert type(GAME.state_from_json(GAME.new_game(4, 2).to_json())) is RaState
    line = engines.describe()
    assert line.startswith("the pure-Python Ra engine (the compiled core is not built here")
    assert "C compiler" in line
    # asking for the core is an error that says why, not a silent fall-back
    with pytest.raises(GameOptionError, match="the compiled Ra core is not built here: .*; "
                                              "pip install with a C compiler builds it"):
        engines.resolve(engines.COMPILED)
    with pytest.raises(GameOptionError, match="not built"):
        RaGame(engines.COMPILED)


def test_without_the_core_the_bots_search_on_the_pure_engine(no_core: None) -> None:
    state = GAME.new_game(3, 4)
    observation = state.observation(state.current_player())
    legal = [state.action_to_json(a) for a in state.legal_actions()]
    greedy = GreedyStrategy()
    mcts = MctsStrategy(iterations=30)
    assert greedy.engine == mcts.engine == engines.PYTHON
    assert 0 <= greedy.choose(observation, legal) < len(legal)
    assert 0 <= mcts.choose(observation, legal) < len(legal)


def test_the_variable_forces_the_pure_engine(compiled_ra: type,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "python")
    assert type(GAME.new_game(2, 1)) is RaState
    assert GreedyStrategy().engine == engines.PYTHON
    assert engines.describe() == "the pure-Python Ra engine (chosen: the compiled core is built)"
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "auto")
    assert type(GAME.new_game(2, 1)) is compiled_ra
    monkeypatch.delenv(engines.ENGINE_VARIABLE)
    assert type(GAME.new_game(2, 1)) is compiled_ra  # the core by default, where built
    assert engines.describe() == "the compiled Ra core"
    # the game, an option of its own, whatever the variable says
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "compiled")
    assert type(RaGame("python").new_game(2, 1)) is RaState


def test_a_wrong_choice_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "fast")
    with pytest.raises(GameOptionError, match=r"ARENA_RA_ENGINE='fast' is not a Ra engine; "
                                              r"choose auto, compiled, python"):
        GAME.new_game(3, 1)
    with pytest.raises(GameOptionError, match="'turbo' is not a Ra engine"):
        RaGame("turbo")


def test_states_convert_between_engines(compiled_ra: type) -> None:
    pure = RaGame("python").new_game(4, 8)
    policy = random.Random(3)
    for _ in range(50):
        pure.apply_action(policy.choice(pure.legal_actions()))
    core = engines.as_engine(pure, engines.COMPILED)
    assert type(core) is compiled_ra and engines.engine_of(core) == engines.COMPILED
    assert core.rng is not pure.rng  # its own copy of the generator
    back = engines.as_engine(core, engines.PYTHON)
    assert type(back) is RaState and back.to_json() == pure.to_json()
    assert engines.as_engine(pure, engines.PYTHON) is pure
    assert engines.as_engine(core, engines.COMPILED) is core


def run_arena(*args: str, hide_core: bool = False) -> str:
    """``arena ARGS`` in a fresh interpreter (optionally one where the core is missing)."""
    code = (HIDE_CORE if hide_core else "") + (
        "from arena.cli import main; sys.exit(main(sys.argv[1:]))")
    if not hide_core:
        code = "import sys; " + code
    env = {key: value for key, value in os.environ.items() if key != engines.ENGINE_VARIABLE}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_arena_bots_says_which_engine_the_bots_run_on(compiled_ra: type) -> None:
    assert "Ra engine: greedy, mcts on the compiled Ra core" in run_arena("bots", "--game", "ra")
    listed = {bot["name"]: bot["ra_engine"] for bot in
              json.loads(run_arena("bots", "--json"))["bots"]}
    assert listed["mcts"] == listed["greedy"] == "compiled"
    assert listed["random"] is None and listed["dice-mcts"] is None


def test_arena_bots_says_why_the_pure_engine_without_the_core() -> None:
    out = run_arena("bots", "--game", "ra", hide_core=True)
    assert ("Ra engine: greedy, mcts on the pure-Python Ra engine (the compiled core is not "
            "built here") in out
    listed = {bot["name"]: bot["ra_engine"] for bot in
              json.loads(run_arena("bots", "--json", hide_core=True))["bots"]}
    assert listed["mcts"] == "python"


def test_a_core_built_from_another_source_is_not_used(compiled_ra: type, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """An editable install whose _core.pyx was edited but not rebuilt: its C would play the
    old rules, so the pure engine plays, saying so."""
    source = tmp_path / "_core.pyx"
    source.write_text("the rules")
    module = str(tmp_path / "_core.cpython-311-x86_64-linux-gnu.so")
    built_from = hashlib.sha256(b"the rules").hexdigest()
    assert engines._stale(module, built_from) == ""
    assert engines._stale(module, "") == ""  # not built by setup.py: nothing to compare
    assert engines._stale(module, "?") == engines._stale(module, "0" * 64) == (
        "out of date here: built from another _core.pyx than the one beside it; "
        "pip install -e . rebuilds it")
    source.unlink()
    assert engines._stale(module, "?") == ""  # a wheel: no source beside the module
    # this installation's core: the source beside it (a checkout) is the one it was built from
    from arena.games.ra import _core

    monkeypatch.setattr(_core, "SOURCE_SHA256", "0" * 64)
    engines._compiled.cache_clear()
    try:
        if Path(_core.__file__).with_name("_core.pyx").is_file():
            assert engines.resolve() == engines.PYTHON
            assert engines.describe().startswith(
                "the pure-Python Ra engine (the compiled core is out of date here")
    finally:
        monkeypatch.undo()
        engines._compiled.cache_clear()
    assert engines.compiled_available()
