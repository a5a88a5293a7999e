"""Every Ra engine test runs on both engines: the pure-Python one (the reference) and the
compiled core (skipped where it is not built; failed under CI=true).  Games, scenarios
and replays follow ``ARENA_RA_ENGINE``, which this fixture sets per module (a module
that compares the engines itself overrides it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.games.ra import engines


@pytest.fixture(scope="module", params=[engines.PYTHON, engines.COMPILED], autouse=True)
def ra_engine(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == engines.COMPILED:
        request.getfixturevalue("compiled_ra")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(engines.ENGINE_VARIABLE, request.param)
        yield request.param
