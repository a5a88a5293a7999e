"""Speed measurements (``arena bench TARGET``), kept out of the unit tests and out of the
runtime packages: nothing under ``arena/`` outside this package imports it.

One module per target, each defining ``run_benchmark(args) -> dict`` (a "title", "rows"
for a table and optional "notes"); :mod:`arena.bench.commands` maps targets to modules.
Every figure that is compared against something is compared against a baseline measured
in the same run, and the notes say which.

* :mod:`arena.bench.games`: a game engine, random playouts in-process (``arena bench ra``);
* :mod:`arena.bench.protocol`: one decision through the whole bot stack;
* :mod:`arena.bench.league`: a league of trivial subprocess bots against its bound;
* :mod:`arena.bench.rating`: the Bradley–Terry fit on synthetic leagues
  (:mod:`arena.bench.synthetic`, which the rating tests use too);
* :mod:`arena.bench.strategies`: how fast the bundled Ra strategies think.
"""
