"""Deals: how a game's seed becomes the hidden order of its draws, and the bots' seeds.

A game's *seed* is public: the schedule derives it from the league file (or the ladder
from a counter), the record keeps it, and a table's seat rotations share it (duplicate
format).  What a bot must not know, the order of Ra's bag or the dice game's rolls, comes
from the **deal seed**, an HMAC of the game seed under a **deal key** that bots never see:
a league's random key kept in its store, a server's derived from its secret.  Without the
key, the seeds of every other game, the league file, the ladder's counter, a bot's own
seed and every record of a finished game say nothing about a deal (HMAC-SHA256 is a
pseudo-random function of the key).  Records keep the draws themselves, so a replay needs
no key (``Game.start_from_record``).

:data:`PUBLIC` (the empty key) is a league's choice of *public deals* (``public_deals =
true``): the deal seed is the game seed itself, as every game was dealt before deal keys
existed, so other tools can deal the same games from the same seeds; any bot that knows
the league's seed can then compute every draw.

The seeds a bot and a forfeited seat's fallback policy get (:func:`derived_seed`) are
HMACs under the same key.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from arena.errors import ArenaError

PUBLIC = ""  # the key of public deals: the game seed is the deal seed
KEY_BYTES = 32


def new_deal_key() -> str:
    """A fresh random deal key (64 hexadecimal digits)."""
    return secrets.token_hex(KEY_BYTES)


def _mac(key: str, text: str) -> int:
    digest = hmac.new(key.encode(), text.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # 63 bits: a seed as leagues take it


def deal_seed(seed: int, key: str) -> int:
    """The seed the engine deals game ``seed`` from: ``seed`` itself for public deals,
    else a 63-bit HMAC of it under ``key``."""
    return seed if key == PUBLIC else _mac(key, f"deal:{seed}")


def derived_seed(seed: int, seat: int, purpose: str, key: str = PUBLIC) -> int:
    """A 63-bit seed for ``purpose`` ("bot" or "fallback") at ``seat`` of game ``seed``.

    Even under public deals a bot's seed does not give the game's seed away directly;
    under a deal key it reveals nothing at all."""
    return _mac(key, f"{purpose}:{seed}:{seat}")


def server_deal_key(server_secret: str) -> str:
    """A server's deal key, derived from its own secret (``secret.key`` in its folder) so
    that the key signing cookies is never used for anything else."""
    return hmac.new(server_secret.encode(), b"ra-arena deals", hashlib.sha256).hexdigest()


def is_deal_key(text: str) -> bool:
    return len(text) == 2 * KEY_BYTES and all(c in "0123456789abcdef" for c in text)


def deal_key_file(path: Path) -> str:
    """The deal key in ``path``, made there (mode 0600) when the file does not exist: one
    key for the shards of a league played on several machines (``--deal-key``)."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return _make_key_file(path)
    except (OSError, UnicodeDecodeError) as error:
        raise ArenaError(f"cannot read the deal key file {path}: "
                         f"{getattr(error, 'strerror', None) or error}") from None
    if not is_deal_key(text):
        raise ArenaError(f"{path} is not a deal key file (64 hexadecimal digits, made by "
                         "--deal-key on first use)")
    return text


def _make_key_file(path: Path) -> str:
    """A new key written whole beside ``path``, then linked to it: another process making
    it at the same moment finds either no file or the whole key, never a part."""
    key = new_deal_key()
    staging = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as file:
            file.write(key + "\n")
        try:
            os.link(staging, path)
        except FileExistsError:  # made by another shard a moment ago: theirs counts
            return deal_key_file(path)
    except OSError as error:
        raise ArenaError(f"cannot create the deal key file {path}: "
                         f"{error.strerror or error}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(staging)
    return key
