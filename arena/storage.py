"""What a store's failures look like outside it.  Each store (the league's and the
server's, on SQLite or PostgreSQL) translates its database's own errors into these, so
that no other module knows which database it talks to: every one is an ArenaError with
one line saying what happened, and none leaves anything half written (the store's
transaction was rolled back)."""

from __future__ import annotations

import errno

from arena.errors import ArenaError


class StorageError(ArenaError):
    """A store could not do what was asked; nothing was changed."""


class StorageFull(StorageError):
    """The disk (or the database's quota) is full."""


class StorageBusy(StorageError):
    """The database stayed locked by another writer for longer than the store waits."""


class StorageGone(StorageError):
    """The database cannot be reached: a lost connection, a server that stopped, a file
    that went away or an I/O error."""


class StorageDamaged(StorageError):
    """The stored data cannot be read: a damaged file, or a table not as expected."""


class Duplicate(ArenaError):
    """An insert met a row with the same unique key (nothing was changed): the store
    turns it into its own refusal ("the name is taken")."""


def disk_full(problem: BaseException) -> bool:
    """Whether ``problem`` (alone or the one error of a group) is a full disk: an OSError
    ENOSPC/EDQUOT or a store's StorageFull."""
    while isinstance(problem, BaseExceptionGroup) and len(problem.exceptions) == 1:
        problem = problem.exceptions[0]
    if isinstance(problem, OSError):
        return problem.errno in (errno.ENOSPC, errno.EDQUOT)
    return isinstance(problem, StorageFull)
