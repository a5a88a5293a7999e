"""What reaches a person's terminal: text a bot (or an uploader) wrote, made harmless.

A bot's stderr, its malformed lines and the names in its records are shown by many
commands (``arena replay``, ``arena validate``, ``arena submit``, failure details,
progress).  Escape sequences in them would change the user's terminal (its title, its
colours, worse in some terminals), so every control character is shown as a ``\\uXXXX``
escape instead: visible, and inside JSON text the same value (``arena export`` output
stays valid JSON with the same strings).  :func:`guarded_streams` applies it to
everything the ``arena`` command writes, in one place rather than at each print.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides that
# reorder what a line seems to say
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# the arena's own sequences, allowed at the start of a write: the progress line's
# "back to the start of the line and clear it"
OWN_PREFIXES = ("\r\x1b[2K", "\r")


def visible(text: str) -> str:
    """``text`` with every control character as a ``\\uXXXX`` escape."""
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class VisibleStream:
    """A text stream that writes what it is given with control characters made visible
    (:func:`visible`), except the arena's own prefixes (:data:`OWN_PREFIXES`)."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        own = next((prefix for prefix in OWN_PREFIXES if text.startswith(prefix)), "")
        self.inner.write(own + visible(text[len(own):]))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding ...
        return getattr(self.inner, name)


@contextlib.contextmanager
def guarded_streams() -> Iterator[None]:
    """sys.stdout and sys.stderr as :class:`VisibleStream` while the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout = VisibleStream(saved[0])  # type: ignore[assignment]
    sys.stderr = VisibleStream(saved[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
