"""Run a league with the fake player in a separate process (crash and Ctrl-C tests).

usage: python league_script.py LEAGUE.toml BOTS SLEEP [child]
BOTS is a comma-separated roster of fake bots.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.errors import ArenaError  # noqa: E402
from arena.league.backends import FunctionBackend  # noqa: E402
from arena.league.config import load_league  # noqa: E402
from arena.league.run import run_league  # noqa: E402
from tests.league.fakes import FakePlay, bots  # noqa: E402


def main() -> int:
    league, names, sleep = sys.argv[1], sys.argv[2].split(","), float(sys.argv[3])
    child = len(sys.argv) > 4 and sys.argv[4] == "child"
    play = FakePlay(sleep=sleep, child=child)
    try:
        return run_league(load_league(Path(league)), quiet=True,
                          backend=FunctionBackend(play), bots=bots(names))
    except ArenaError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return error.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
