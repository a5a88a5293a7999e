"""The pure engine's random games, 100,000 per edition and player count, as fingerprints:
what the compiled core's games must match (test_engines_agree.py).

Game ``s`` (0 <= s < 100,000) of a case is ``RaGame("python").new_game(n, s, {"edition":
e})`` played by ``random.Random(s).choice`` over the legal lists, as
``arena.games.selfplay.random_playout`` and ``arena bench ra`` play.  Its fingerprint
hashes every legal list and choice (``_core.trace_hash``), then everything the final
state's ``to_json`` holds but the setup (``Core.fingerprint`` of the state converted to
the core, which also hashes the generator's position: the same draws from the same
stream); the conversion itself is checked against ``to_json``.  The fingerprints of each
1,000 games make one chunk digest (sha256) in ``pure_engine_digests.json``.

Why a recorded digest: the pure engine needs about 7 minutes of CPU for the 800,000 games,
the compiled core about 15 seconds.  So CI plays every game on the compiled core against
this file, and replays the first chunk of every case on the pure engine, which checks
that the file is still what the pure engine plays (and the conversion to the core that
fingerprints it: writing the file skips that check, a wrong conversion would show as a
difference from the compiled core's own games).

Regenerate when the rules change on purpose (and review why the test failed first):

    .venv/bin/python tests/games/ra/engine_digests.py --write [--jobs N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

GAMES = 100_000
CHUNK = 1_000
EDITIONS = ("classic", "2023")
PLAYERS = (2, 3, 4, 5)
CASES = [(edition, players) for edition in EDITIONS for players in PLAYERS]
DIGESTS = Path(__file__).with_name("pure_engine_digests.json")


def case_name(edition: str, players: int) -> str:
    return f"{edition}-{players}p"


def pure_game(edition: str, players: int, seed: int) -> tuple[object, list[tuple[list[int], int]]]:
    """Game ``seed`` of a case on the pure engine: its final state and its steps."""
    from arena.games.ra import RaGame

    state = RaGame("python").new_game(players, seed, {"edition": edition})
    policy = random.Random(seed)
    steps = []
    while not state.is_terminal():
        legal = state.legal_actions()
        choice = policy.choice(legal)
        steps.append((legal, choice))
        state.apply_action(choice)
    return state, steps


def pure_fingerprints(edition: str, players: int, first: int, count: int,
                      check: bool = True) -> list[int]:
    """The fingerprints of games ``first`` ... ``first + count - 1`` on the pure engine,
    each state's conversion to the core checked against its to_json (``check``)."""
    from arena.games.ra._core import trace_hash
    from arena.games.ra.compiled import CompiledRaState

    fingerprints = []
    for seed in range(first, first + count):
        state, steps = pure_game(edition, players, seed)
        core = CompiledRaState.from_pure(state)  # type: ignore[arg-type]
        if check and core.to_json() != state.to_json():  # type: ignore[attr-defined]
            raise AssertionError(f"{case_name(edition, players)} game {seed}: the state "
                                 "converted to the compiled core differs")
        fingerprints.append(core.fingerprint(trace_hash(steps)))
    return fingerprints


def compiled_fingerprints(edition: str, players: int, first: int, count: int) -> list[int]:
    """The same games played and fingerprinted in C (``_core.random_games``)."""
    from arena.games.ra._core import random_games
    from arena.games.ra.editions import RULES

    return random_games(players, first, count, RULES[edition])[1]


def chunk_digest(fingerprints: Iterable[int]) -> str:
    return hashlib.sha256(b"".join(f.to_bytes(8, "little") for f in fingerprints)
                          ).hexdigest()[:16]


def load() -> dict[str, list[str]]:
    data = json.loads(DIGESTS.read_text())
    if data.get("games") != GAMES or data.get("chunk") != CHUNK:
        raise ValueError(f"{DIGESTS.name} is for {data.get('games')} games in chunks of "
                         f"{data.get('chunk')}: regenerate it (see {Path(__file__).name})")
    return data["cases"]


def _pure_chunk(task: tuple[str, int, int]) -> tuple[str, int, str]:
    edition, players, chunk = task
    return (case_name(edition, players), chunk,
            chunk_digest(pure_fingerprints(edition, players, chunk * CHUNK, CHUNK,
                                           check=False)))


def write(jobs: int) -> None:
    tasks = [(edition, players, chunk) for edition, players in CASES
             for chunk in range(GAMES // CHUNK)]
    cases: dict[str, list[str]] = {case_name(e, p): [""] * (GAMES // CHUNK) for e, p in CASES}
    started = time.monotonic()
    with ProcessPoolExecutor(jobs) as pool:
        for done, (name, chunk, digest) in enumerate(pool.map(_pure_chunk, tasks), 1):
            cases[name][chunk] = digest
            if done % 20 == 0 or done == len(tasks):
                print(f"{done}/{len(tasks)} chunks of {CHUNK} games, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    data = {
        "about": f"the pure-Python Ra engine's random games: see {Path(__file__).name}",
        "games": GAMES, "chunk": CHUNK, "cases": cases,
    }
    DIGESTS.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {DIGESTS}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true",
                        help=f"play every game on the pure engine and write {DIGESTS.name}")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args()
    if not args.write:
        parser.error("nothing to do: --write regenerates the digests")
    write(args.jobs)


if __name__ == "__main__":
    main()
