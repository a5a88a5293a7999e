"""Errors meant for the person at the keyboard: the CLI prints them without a traceback."""


class ArenaError(Exception):
    """A problem the user can fix (bad config, unknown bot, ...). The message says how."""

    exit_code = 2
