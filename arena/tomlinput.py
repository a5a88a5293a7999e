"""The one place where TOML a user wrote (league files, bot manifests) becomes values.

``tomllib`` alone lets three kinds of input through as something other than a clear
message: a UTF-8 byte-order mark (editors on Windows write one; it is not TOML, but a
careful reader skips it, as Python's ``utf-8-sig`` codec does), input nested so deeply
that the parser recurses out of the stack (``RecursionError``), and text that is not
UTF-8.  :func:`parse_toml` turns each into :class:`TomlProblem` with a short message.
"""

from __future__ import annotations

import tomllib
from typing import Any

BOM = "\ufeff"


class TomlProblem(ValueError):
    """What is wrong with a TOML document, in a few words (no excerpt of the input
    beyond the parser's own line and column)."""


def decode_toml(data: bytes) -> dict[str, Any]:
    """A TOML document from its bytes (UTF-8, with or without a byte-order mark)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TomlProblem(f"not UTF-8 text (byte {error.start})") from None
    return parse_toml(text)


def parse_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError as error:  # its message carries line and column
        raise TomlProblem(f"not valid TOML: {error}") from None
    except RecursionError:
        raise TomlProblem("not valid here: nested too deeply (arrays or tables inside "
                          "each other hundreds of levels deep)") from None
