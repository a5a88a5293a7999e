"""Unpacking an uploaded bot (.tar.gz or .zip) safely, or refusing it in one clear line.

The whole listing is checked before a byte is written: only regular files and folders;
no absolute path, no ``..``, no backslash or NUL, no name twice; no symbolic or hard
link, device, FIFO; at most ``max_files`` files and ``max_bytes`` unpacked; unpacked
bytes at most ``max_ratio`` times the archive's (zip bombs).  The sizes an archive
declares are not trusted: the gzip stream is read through a counter that stops at the
limit, and each file is written through one too.  Files are created with ``O_EXCL |
O_NOFOLLOW`` under a fresh folder, each path checked to stay inside it.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import os
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from arena.errors import ArenaError

TAR_OVERHEAD = 1024  # tar header and padding per member, as read from the gzip stream
CHUNK = 65536


class ArchiveRefused(ArenaError):
    """An archive the server will not unpack; the message is one line for the user."""


@dataclass(frozen=True)
class Limits:
    max_files: int
    max_bytes: int
    max_ratio: float


@dataclass(frozen=True)
class Entry:
    path: PurePosixPath
    is_dir: bool
    size: int
    executable: bool


def unpack(data: bytes, destination: Path, limits: Limits) -> Path:
    """Unpack ``data`` (a .tar.gz or a .zip) into ``destination`` (which must not exist
    yet) and return the bot's folder: ``destination`` or its single top folder when the
    archive holds a folder rather than its contents.  ArchiveRefused says why not;
    nothing is left behind then."""
    if data[:2] == b"\x1f\x8b":
        kind = "tar"
    elif data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        kind = "zip"
    else:
        raise ArchiveRefused("the upload is neither a .tar.gz nor a .zip archive")
    destination.mkdir(mode=0o755)
    try:
        if kind == "tar":
            _unpack_tar(data, destination, limits)
        else:
            _unpack_zip(data, destination, limits)
        return bot_folder(destination)
    except BaseException:
        shutil.rmtree(destination, ignore_errors=True)
        raise


def bot_folder(root: Path) -> Path:
    if (root / "bot.toml").is_file():
        return root
    children = list(root.iterdir())
    if len(children) == 1 and children[0].is_dir() and not children[0].is_symlink() \
            and (children[0] / "bot.toml").is_file():
        return children[0]
    raise ArchiveRefused("the archive has no bot.toml at its top (nor in a single top folder)")


def _checked_path(name: str, seen: set[PurePosixPath]) -> PurePosixPath:
    if "\x00" in name or "\\" in name:
        raise ArchiveRefused(f"refused: the name {name!r} has a backslash or NUL")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveRefused(f"refused: {name!r} is an absolute path")
    path = PurePosixPath(name)
    parts = [part for part in path.parts if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveRefused(f"refused: {name!r} leads outside the bot's folder ('..')")
    if not parts:
        raise ArchiveRefused(f"refused: the empty name {name!r}")
    clean = PurePosixPath(*parts)
    if clean in seen:
        raise ArchiveRefused(f"refused: {name!r} appears twice in the archive")
    seen.add(clean)
    return clean


def _check_totals(entries: list[Entry], archive_bytes: int, limits: Limits) -> None:
    files = [entry for entry in entries if not entry.is_dir]
    if len(files) > limits.max_files:
        raise ArchiveRefused(f"refused: {len(files)} files, more than the server's limit of "
                             f"{limits.max_files}")
    total = sum(entry.size for entry in files)
    if total > limits.max_bytes:
        raise ArchiveRefused(f"refused: {total} bytes unpacked, more than the server's limit "
                             f"of {limits.max_bytes}")
    if total > limits.max_ratio * max(archive_bytes, 1):
        raise ArchiveRefused(
            f"refused: it unpacks to {total / max(archive_bytes, 1):.0f} times its size, more "
            f"than the server's compression-ratio limit of {limits.max_ratio:g}")


class _Counted(io.RawIOBase):
    """A stream that refuses to give more than ``limit`` bytes (a gzip bomb stops here)."""

    def __init__(self, inner: IO[bytes] | gzip.GzipFile, limit: int, what: str) -> None:
        self.inner = inner
        self.left = limit
        self.what = what

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(min(len(buffer), self.left + 1))
        if len(data) > self.left:
            raise ArchiveRefused(f"refused: {self.what}")
        self.left -= len(data)
        buffer[:len(data)] = data
        return len(data)


def _unpack_tar(data: bytes, destination: Path, limits: Limits) -> None:
    stream_limit = limits.max_bytes + TAR_OVERHEAD * (limits.max_files + 64) + 10240
    if stream_limit > limits.max_ratio * len(data) + TAR_OVERHEAD * (limits.max_files + 64):
        stream_limit = int(limits.max_ratio * len(data)) + TAR_OVERHEAD * (limits.max_files + 64)
    counted = io.BufferedReader(_Counted(
        gzip.GzipFile(fileobj=io.BytesIO(data)), stream_limit,
        "the archive unpacks to more than the server's size or compression-ratio limit"))
    seen: set[PurePosixPath] = set()
    entries: list[tuple[Entry, tarfile.TarInfo]] = []
    try:
        with tarfile.open(fileobj=counted, mode="r|") as archive:
            for members, member in enumerate(archive, start=1):
                if members > limits.max_files + 64:
                    raise ArchiveRefused(f"refused: more than {limits.max_files} files")
                entry = _tar_entry(member, seen)
                entries.append((entry, member))
                _check_totals([e for e, _ in entries], len(data), limits)
                if entry.is_dir:
                    _make_dir(destination, entry.path)
                else:
                    source = archive.extractfile(member)
                    assert source is not None
                    _write(destination, entry, source)
    except (tarfile.TarError, EOFError, OSError, zlib_error()) as problem:
        _server_fault(problem)
        raise ArchiveRefused(f"refused: the archive is damaged ({problem})") from None


def _server_fault(problem: BaseException) -> None:
    """A full disk (or quota) is the server's fault, not the archive's: raised as it is
    (the caller says so), never reported as a damaged archive."""
    if isinstance(problem, OSError) and problem.errno in (errno.ENOSPC, errno.EDQUOT):
        raise problem


def zlib_error() -> type[Exception]:
    import zlib

    return zlib.error


def _tar_entry(member: tarfile.TarInfo, seen: set[PurePosixPath]) -> Entry:
    if member.issym():
        raise ArchiveRefused(f"refused: {member.name!r} is a symbolic link")
    if member.islnk():
        raise ArchiveRefused(f"refused: {member.name!r} is a hard link")
    if member.ischr() or member.isblk():
        raise ArchiveRefused(f"refused: {member.name!r} is a device")
    if member.isfifo():
        raise ArchiveRefused(f"refused: {member.name!r} is a FIFO")
    if not (member.isreg() or member.isdir()):
        raise ArchiveRefused(f"refused: {member.name!r} is not a regular file or folder")
    path = _checked_path(member.name, seen)
    return Entry(path, member.isdir(), 0 if member.isdir() else member.size,
                 bool(member.mode & 0o111))


def _unpack_zip(data: bytes, destination: Path, limits: Limits) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as problem:
        raise ArchiveRefused(f"refused: the archive is damaged ({problem})") from None
    seen: set[PurePosixPath] = set()
    entries: list[tuple[Entry, zipfile.ZipInfo]] = []
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_files + 64:
            raise ArchiveRefused(f"refused: more than {limits.max_files} files")
        for info in infos:
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)
            if kind == stat.S_IFLNK:
                raise ArchiveRefused(f"refused: {info.filename!r} is a symbolic link")
            if kind in (stat.S_IFCHR, stat.S_IFBLK):
                raise ArchiveRefused(f"refused: {info.filename!r} is a device")
            if kind in (stat.S_IFIFO, stat.S_IFSOCK):
                raise ArchiveRefused(f"refused: {info.filename!r} is not a regular file")
            if info.flag_bits & 0x1:
                raise ArchiveRefused(f"refused: {info.filename!r} is encrypted")
            path = _checked_path(info.filename, seen)
            entries.append((Entry(path, info.is_dir(), 0 if info.is_dir() else info.file_size,
                                  bool(mode & 0o111)), info))
        _check_totals([entry for entry, _ in entries], len(data), limits)
        left = limits.max_bytes
        try:
            for entry, info in entries:
                if entry.is_dir:
                    _make_dir(destination, entry.path)
                    continue
                with archive.open(info) as source:
                    # the declared size is not trusted: at most the file's share is read
                    limited = io.BufferedReader(_Counted(
                        source, min(entry.size, left),
                        f"{info.filename!r} holds more than it declares"))
                    left -= _write(destination, entry, limited)
        except (zipfile.BadZipFile, OSError, EOFError, zlib_error(), NotImplementedError,
                RuntimeError) as problem:
            _server_fault(problem)
            raise ArchiveRefused(f"refused: the archive is damaged ({problem})") from None


def _inside(destination: Path, path: PurePosixPath) -> Path:
    target = destination.joinpath(*path.parts)
    # every parent must be a real folder of ours (never a link made by an earlier entry)
    current = destination
    for part in path.parts[:-1]:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            raise ArchiveRefused(f"refused: {str(path)!r} goes through a file")
    if not os.path.realpath(target).startswith(os.path.realpath(destination) + os.sep):
        raise ArchiveRefused(f"refused: {str(path)!r} leads outside the bot's folder")
    return target


def _make_dir(destination: Path, path: PurePosixPath) -> None:
    target = _inside(destination, path)
    for parent in reversed(target.relative_to(destination).parents):
        folder = destination / parent
        if not folder.is_dir():
            folder.mkdir(mode=0o755)
    if target.exists() and (target.is_symlink() or not target.is_dir()):
        raise ArchiveRefused(f"refused: {str(path)!r} is both a file and a folder")
    with contextlib.suppress(FileExistsError):
        target.mkdir(mode=0o755)


def _write(destination: Path, entry: Entry, source: IO[bytes]) -> int:
    if len(entry.path.parts) > 1:
        _make_dir(destination, entry.path.parent)
    target = _inside(destination, entry.path)
    mode = 0o755 if entry.executable else 0o644
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                             | os.O_CLOEXEC, mode)
    except FileExistsError:
        raise ArchiveRefused(f"refused: {str(entry.path)!r} appears twice") from None
    written = 0
    with os.fdopen(descriptor, "wb") as out:
        while chunk := source.read(CHUNK):
            written += len(chunk)
            if written > entry.size:
                raise ArchiveRefused(f"refused: {str(entry.path)!r} holds more than it declares")
            out.write(chunk)
    os.chmod(target, mode)  # whatever the umask
    return written


def pack_folder(folder: Path, ignored: frozenset[str] = frozenset()) -> bytes:
    """A bot folder as .tar.gz bytes (``arena upload``): regular files and folders only,
    names relative to the folder, links refused (the server would refuse them too)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if any(part in ignored for part in relative.parts) or path.suffix in (".pyc",
                                                                                  ".pyo"):
                continue
            if path.is_symlink():
                raise ArenaError(f"{path} is a symbolic link: the server refuses links; "
                                 "copy the file it points to instead")
            if not (path.is_file() or path.is_dir()):
                raise ArenaError(f"{path} is neither a file nor a folder")
            info = archive.gettarinfo(str(path), arcname=relative.as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if path.is_file():
                with path.open("rb") as data:
                    archive.addfile(info, data)
            else:
                archive.addfile(info)
    return out.getvalue()
