"""Running bots: protocol "ra-arena/1", bot processes, sandbox, referee.

Where to look:

- :mod:`arena.runner.referee` - ``play_game(game, players, seed, options, limits)``: one
  game, the only place where a reply becomes an engine action; forfeits and fallback.
- :mod:`arena.runner.pool` - ``open_bot_pool(limits, log_dir)``: warm bot processes,
  checked out per game (``pool.seated(specs)``).
- :mod:`arena.runner.players` - the ``Player`` interface and in-process Python players.
- :mod:`arena.runner.bot_player` - a player backed by a bot process.
- :mod:`arena.runner.protocol` - the messages and their JSON Schemas (``schemas/``).
- :mod:`arena.runner.limits` - every limit and its default, in one place.
- :mod:`arena.runner.sandbox` - how a process is launched (rlimits, environment, bwrap).
- :mod:`arena.runner.process`, :mod:`~arena.runner.pipes`, :mod:`~arena.runner.lines` -
  the process itself and the bounded reading of its output.
- :mod:`arena.runner.failures` - the failure reasons.

docs/protocol.md describes the protocol for bot authors.
"""
