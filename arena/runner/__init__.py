"""Running bots: protocol "ra-arena/1" over channels, transports, sandbox, referee.

Where to look:

- :mod:`arena.runner.referee` - ``play_game(game, players, seed, options, limits)``: one
  game, the only place where a reply becomes an engine action; forfeits and fallback.
- :mod:`arena.runner.pool` - ``open_bot_pool(limits, log_dir)``: warm bots, checked out
  per game (``pool.seated(specs)``).
- :mod:`arena.runner.players` - the ``Player`` interface and in-process Python players.
- :mod:`arena.runner.connection` - ``BotConnection``: the protocol as a conversation over
  a channel (handshake, requests, pings, failure reasons), whatever the transport.
- :mod:`arena.runner.channel` - the ``BotChannel`` interface and ``StreamChannel``.
- :mod:`arena.runner.transports` - the bundled transports (local process, bwrap, TCP),
  ``open_bot_channel`` and the seam where the plugins layer puts the ``arena_open_bot``
  hook (the runner imports nothing of arena.plugins).
- :mod:`arena.runner.protocol` - the messages and their JSON Schemas (``schemas/``).
- :mod:`arena.settings` - every limit and its default, in one place.
- :mod:`arena.runner.sandbox` - how a process is launched (rlimits, environment, bwrap).
- :mod:`arena.runner.process`, :mod:`~arena.runner.pipes`, :mod:`~arena.runner.lines` -
  the process transport itself and the bounded reading of a bot's output.
- :mod:`arena.runner.failures` - the failure reasons.

docs/protocol.md describes the protocol for bot authors.
"""
