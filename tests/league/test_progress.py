from __future__ import annotations

import io

from arena.league.progress import Progress
from arena.records import GameResult


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def result(bots: tuple[str, ...], placements: tuple[int, ...], failures=None) -> GameResult:
    return GameResult("id", "ra", bots, (0.0,) * len(bots), placements, failures or {})


def test_progress_line_counts_rate_eta_failures_and_leaders() -> None:
    clock, stream = Clock(), io.StringIO()
    progress = Progress(10, done=4, stream=stream, clock=clock)
    clock.now += 2.0
    progress.game_done(result(("a", "b", "c"), (1, 2, 3)))
    clock.now += 2.0
    progress.game_done(result(("a", "b", "c"), (1, 3, 2), {1: "timeout"}))
    line = progress.line()
    assert line.startswith("[############--------] 6/10 games (60%)")
    assert "0.5 games/s" in line and "ETA 8s" in line and "failures 1" in line
    assert "top: a 15" in line and line.endswith("(live Elo)")
    assert line.index(" a ") < line.index(" c ") < line.index(" b ")
    # not a terminal: one line at most every 10 seconds
    assert stream.getvalue().count("\n") == 1
    clock.now += 11
    progress.draw()
    assert stream.getvalue().count("\n") == 2


def test_quiet_writes_nothing() -> None:
    stream = io.StringIO()
    progress = Progress(1, quiet=True, stream=stream)
    progress.game_done(result(("a", "b"), (1, 2)))
    progress.finish()
    assert stream.getvalue() == ""


def test_resumed_leaderboard_includes_earlier_games() -> None:
    progress = Progress(3, done=2, stream=io.StringIO())
    progress.seed_leaderboard([result(("a", "b"), (2, 1)), result(("a", "b"), (2, 1))])
    assert progress.line().split("top: ")[1].startswith("b ")


def test_cluster_workers_get_their_rate_in_the_line_and_a_summary_at_the_end() -> None:
    clock, stream = Clock(), io.StringIO()
    progress = Progress(10, stream=stream, clock=clock)
    clock.now += 2.0
    for worker in ("tcp://10.0.0.2:4001", "tcp://10.0.0.1:4001", "tcp://10.0.0.1:4001"):
        progress.game_done(result(("a", "b"), (1, 2)), worker)
    assert "2 workers: 1.0, 0.5 games/s" in progress.line()
    progress.finish()
    summary = stream.getvalue().split("games per cluster worker this run:\n")[1]
    assert summary.splitlines() == ["  tcp://10.0.0.1:4001: 2 games, 1.0 games/s",
                                    "  tcp://10.0.0.2:4001: 1 games, 0.5 games/s"]
    local = Progress(10, stream=io.StringIO(), clock=clock)
    local.game_done(result(("a", "b"), (1, 2)))
    assert "workers" not in local.line()


def test_progress_keeps_nothing_per_game() -> None:
    """Memory flat over a long league (issue 16 item 5): what the live line keeps grows
    with the bots, the failure reasons and the workers, never with the games."""
    progress = Progress(100_000, stream=io.StringIO(), clock=Clock())

    def held() -> int:
        return (len(progress.ticker.ratings) + len(progress.ticker.games)
                + len(progress.failures) + len(progress.by_worker) + len(vars(progress)))

    bots = ("a", "b", "c", "d")
    sizes = []
    for game in range(3000):
        seats = tuple(bots[(game + k) % 4] for k in range(3))
        failures = {0: "timeout"} if game % 7 == 0 else {}
        progress.game_done(result(seats, (1, 2, 3), failures), f"w{game % 2}")
        if game in (999, 2999):
            sizes.append(held())
    assert sizes[0] == sizes[1] and progress.played == 3000
