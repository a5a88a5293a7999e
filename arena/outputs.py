"""Where a command's ``-o``/``--output`` writes, the same rules for every command.

* ``-`` is standard output;
* a regular file, or a path where nothing is yet, is written *atomically*: into a temporary
  file in the same folder, renamed over the file at the end, so that a crash never leaves
  half a file behind.  A symbolic link is followed first: the link stays, the file it
  points at gets the content (and keeps its permission bits when it is replaced);
* anything else the path leads to, a character device, a FIFO, a socket (``/dev/null``,
  ``/dev/stdout``, a named pipe), is opened and written directly, streamed, never renamed
  over: ``/dev/stdout`` stays the system's link.  So is a file reached through a link in
  ``/proc`` (``/dev/stdout`` -> ``/proc/self/fd/1`` when standard output is a file):
  writing there means writing into the open file, as a shell's redirection does;
* a folder is an error (one line).

A low module: it imports nothing of the arena but its errors, so that any command may use
it (report, replay, export, merge).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.errors import ArenaError

STDOUT = "-"  # the name that means standard output
MAX_LINKS = 40  # links followed before giving up (the kernel's own limit)

# what an output is
TO_STDOUT = "stdout"
SPECIAL = "special"  # written directly: a device, a FIFO, a socket, an open file in /proc
FILE = "file"  # written atomically (a regular file, or a new one)


@dataclass(frozen=True)
class Output:
    """An ``-o`` target: what the user named (``given``), its kind and, for a file, the
    path the content lands at once links are followed (``path``)."""

    given: str
    kind: str  # TO_STDOUT, SPECIAL or FILE
    path: Path

    @property
    def is_file(self) -> bool:
        return self.kind == FILE

    @property
    def notes(self) -> TextIO:
        """Where a command says what it wrote: standard output, unless the output itself
        is a stream (then standard error, so that the note does not land in the data)."""
        return sys.stdout if self.kind == FILE else sys.stderr

    def __str__(self) -> str:
        return "standard output" if self.kind == TO_STDOUT else self.given


def output_target(path: Path | str) -> Output:
    """Classify ``path`` (see the module docstring); a folder, or a file in a folder that
    does not exist, is an :class:`ArenaError`."""
    given = str(path)
    if given == STDOUT:
        return Output(given, TO_STDOUT, Path(STDOUT))
    final, through_proc = _follow_links(Path(given))
    try:
        info = os.stat(final)
    except FileNotFoundError:
        info = None
    except OSError as problem:
        raise ArenaError(f"cannot write {given}: {problem.strerror or problem}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ArenaError(f"cannot write {given}: it is a folder; name a file")
    if through_proc or (info is not None and not stat.S_ISREG(info.st_mode)):
        return Output(given, SPECIAL, Path(given))
    if final == Path(os.path.abspath(given)):
        final = Path(given)  # no link on the way: the path as given (relative stays so)
    folder = final.parent
    if not folder.is_dir():
        raise ArenaError(f"cannot write {given}: the folder {folder} does not exist")
    return Output(given, FILE, final)


def _follow_links(path: Path) -> tuple[Path, bool]:
    """The path ``path`` leads to once every link on the way is followed (its folders'
    too), and whether a link in ``/proc`` was on the way (``/proc/self/fd/1``: a magic
    link to an open file, whose name on its own may not even be that file's)."""
    current = Path(os.path.abspath(path))
    for _ in range(MAX_LINKS):
        current = Path(os.path.realpath(current.parent)) / current.name
        if current.parts[1:2] == ("proc",):
            return current, True
        if not current.is_symlink():
            return current, False
        current = Path(os.path.abspath(current.parent / os.readlink(current)))
    raise ArenaError(f"cannot write {path}: too many levels of symbolic links")


@contextmanager
def open_output(target: Output | Path | str) -> Iterator[TextIO]:
    """A text stream into the output (see the module docstring).  A file is complete only
    once the block ends without an error; an error in the block leaves the file as it
    was.  Writing problems come out as :class:`ArenaError` naming the output."""
    output = target if isinstance(target, Output) else output_target(target)
    if output.kind == TO_STDOUT:
        yield sys.stdout
        sys.stdout.flush()
        return
    if output.kind == SPECIAL:
        try:
            stream = open(output.path, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
        except OSError as problem:
            raise _cannot(output, problem) from None
        try:
            with stream:
                yield stream
        except OSError as problem:
            raise _cannot(output, problem) from None
        return
    yield from _atomic(output)


def _atomic(output: Output) -> Iterator[TextIO]:
    path = output.path
    try:
        old: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        old = None
    except OSError as problem:
        raise _cannot(output, problem) from None
    # replacing a file: keep its bits; a new one: as open() would (mkstemp makes it 0600)
    mode = stat.S_IMODE(old.st_mode) if old is not None else 0o666 & ~_umask()
    temporary: str | None = None
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp")
        if old is not None and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
            # root replacing another user's file: it stays theirs (not allowed: the file
            # becomes ours, as any new file would)
            with suppress(OSError):
                os.fchown(handle, old.st_uid, old.st_gid)
        os.fchmod(handle, mode)  # after the owner: a chown clears set-id bits
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            yield out
        os.replace(temporary, path)
        temporary = None
    except OSError as problem:
        raise _cannot(output, problem) from None
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


def _cannot(output: Output, problem: OSError) -> ArenaError:
    return ArenaError(f"cannot write {output}: {problem.strerror or problem}")


def write_output(target: Output | Path | str, text: str) -> Output:
    """Write ``text`` whole to the output (see :func:`open_output`); returns the output."""
    output = target if isinstance(target, Output) else output_target(target)
    with open_output(output) as out:
        out.write(text)
    return output


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
