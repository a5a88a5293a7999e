"""Errors meant for the person at the keyboard: the CLI prints them without a traceback."""


class ArenaError(Exception):
    """A problem the user can fix (bad config, unknown bot, ...). The message says how."""

    exit_code = 2


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
