"""Compact JSON bytes, fast: orjson where it can, the standard library where it cannot.

One place for the arena's hot JSON encoding (protocol messages, stored records).  orjson
is about 30 times faster than the standard library at encoding a request or a record;
it refuses a few values the standard library takes (an integer beyond 64 bits, say in a
league's options, a lone surrogate, a key that is not a string), and those go through
the standard library exactly as before.  Either way the text means the same values.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_STANDARD = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any, *, newline: bool = False) -> bytes:
    """``value`` as compact UTF-8 JSON (with a ``\\n`` at the end when asked)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE if newline else None)
    except (TypeError, orjson.JSONEncodeError):
        text = _STANDARD.encode(value) + ("\n" if newline else "")
        return text.encode("utf-8", "surrogatepass")
