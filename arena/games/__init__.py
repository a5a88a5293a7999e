"""Game engines.  Each game is a small package exposing ``GAME``, a :class:`Game`, and a
``plugin`` module that registers it through the ``arena_register_games`` hook, the door
every game, bundled or not, comes in by (``arena.plugins.load_game(name)``)."""
