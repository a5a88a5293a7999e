"""Errors meant for the person at the keyboard: the CLI prints them without a traceback."""

from collections.abc import Iterable


class ArenaError(Exception):
    """A problem the user can fix (bad config, unknown bot, ...). The message says how."""

    exit_code = 2


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'rounds'?)`` for the closest of ``known`` to a mistyped ``name``
    (a key, a bot, a game, a page, an option), or "" when none is close."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


LONGEST_WORD = 100  # characters of one word of a message (a path, a value) shown whole
LONGEST_MESSAGE = 2000


def excerpt(message: str) -> str:
    """``message`` with every over-long word cut to an excerpt, and the whole capped: a
    message quotes what the user gave, and that may be a 100 KB line or a 300-character
    file name."""
    def cut(word: str) -> str:
        if len(word) <= LONGEST_WORD:
            return word
        return f"{word[:60]}...({len(word)} characters)"

    lines = [" ".join(cut(word) for word in line.split(" ")) for line in message.splitlines()]
    text = "\n".join(lines)
    if len(text) > LONGEST_MESSAGE:
        text = text[:LONGEST_MESSAGE] + f"... ({len(message)} characters in all)"
    return text
