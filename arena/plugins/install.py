"""``arena submit``: install a checked bot folder into a bots directory, atomically.

The folder is read as every bot folder is (``scan_bot_folder``: regular files, folders and
symbolic links only, within the caps of ``arena.settings.FolderLimits``, never blocking)
and copied into a hidden temporary folder inside the bots directory (same filesystem),
checked against the content hash, then renamed into place; a failure at any moment leaves
either the old bot or the new one, never a half-copied folder.  Hidden folders are ignored
by discovery, so even a leftover of a killed install is harmless.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.errors import ArenaError
from arena.games.base import Game
from arena.plugins.manifest import (
    INSTALL_RECORD_NAME,
    FolderRefused,
    content_hash,
    load_manifest,
    open_regular,
    scan_bot_folder,
)
from arena.runner.botspec import BotSpec
from arena.settings import FolderLimits, folder_limits


@dataclass(frozen=True)
class Installed:
    spec: BotSpec  # the bot as installed (folder = its new home)
    folder: Path
    action: str  # "installed", "replaced" or "unchanged"


def install_bot(
    source: Path, bots_dir: Path, games: Mapping[str, Game], *, replace: bool = False
) -> Installed:
    """Copy the bot folder ``source`` to ``bots_dir/<name>``; see the module docstring."""
    if not source.is_dir():
        raise ArenaError(f"{source} is not a directory (give the bot's folder)")
    spec = load_manifest(source, games)
    action = planned_action(spec, source, bots_dir, replace=replace)
    target = bots_dir / spec.name
    if action == "unchanged":
        return Installed(load_manifest(target, games), target, action)
    bots_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{spec.name}.installing-", dir=bots_dir))
    try:
        staged = staging / spec.name
        try:
            _copy_bot(source, staged)
            copied = content_hash(staged)
        except FolderRefused as refused:  # the folder changed since it was checked
            raise ArenaError(f"{source}: bot folder refused: {refused}") from None
        if copied != spec.content_hash:
            raise ArenaError(f"{source} changed while it was being copied; submit it again")
        _write_install_record(staged, spec, source)
        if action == "replaced":
            _swap_into_place(staged, target)
        else:
            # fails (rather than merging) if someone installed the same name meanwhile
            os.rename(staged, target)
    except OSError as error:
        raise ArenaError(f"cannot install {spec.name!r} into {bots_dir}: {error}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Installed(load_manifest(target, games), target, action)


def planned_action(spec: BotSpec, source: Path, bots_dir: Path, *, replace: bool) -> str:
    """What installing ``spec`` (from ``source``) would do: "installed", "replaced" or
    "unchanged"; an ArenaError if it must not be done."""
    try:
        entries = scan_bot_folder(source)
    except FolderRefused as refused:
        raise ArenaError(f"{source}: bot folder refused: {refused}") from None
    links = [str(entry.relative) for entry in entries if entry.link is not None]
    if links:
        raise ArenaError(f"{source}: symbolic links cannot be submitted: {', '.join(links)}")
    if bots_dir.exists() and not bots_dir.is_dir():
        raise ArenaError(f"{bots_dir} is not a directory")
    if bots_dir.resolve().is_relative_to(source.resolve()):
        raise ArenaError(f"cannot install {source} into {bots_dir}, a folder inside itself")
    target = bots_dir / spec.name
    from arena.plugins.discovery import BUNDLED_BOTS

    if bots_dir.resolve() == BUNDLED_BOTS.resolve():
        raise ArenaError(
            f"{bots_dir} holds the bots bundled with Ra Arena; install into your own folder "
            f"(the default ./bots): a bot there named {spec.name!r} is used instead of a "
            "bundled one of the same name"
        )
    if not (target.exists() or target.is_symlink()):
        return "installed"
    if target.resolve() == source.resolve() or _same_content(target, spec):
        return "unchanged"
    if not replace:
        raise ArenaError(
            f"a different bot {spec.name!r} is already installed in {target} "
            f"({_describe_installed(target)}); use --replace to overwrite it"
        )
    return "replaced"


def _swap_into_place(staged: Path, target: Path) -> None:
    """Put ``staged`` at ``target``; the previous ``target`` ends up at ``staged``."""
    if _exchange(staged, target):
        return
    # No atomic exchange here: two renames, undoing the first if the second fails.
    previous = staged.with_name("previous")
    os.rename(target, previous)
    try:
        os.rename(staged, target)
    except BaseException:
        os.rename(previous, target)
        raise


def _exchange(first: Path, second: Path) -> bool:
    """Atomically swap two paths with Linux's renameat2(RENAME_EXCHANGE); False if the
    system cannot (another OS, an old kernel or filesystem)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(
        at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange
    )
    return bool(result == 0)


def _copy_bot(source: Path, destination: Path) -> None:
    copy_bot_folder(source, destination)


def copy_bot_folder(source: Path, destination: Path, *, links: bool = False,
                    limits: FolderLimits | None = None) -> None:
    """A copy of the bot folder ``source`` at ``destination`` (which must not exist),
    read as every bot folder is (``scan_bot_folder`` within ``limits``): regular files
    with their permission bits (readable by all), and with ``links`` symbolic links as
    links (else a link is refused).  Every entry of the copy is new, owned by this
    process's user; nothing is followed."""
    destination.mkdir(mode=0o755)
    for entry in scan_bot_folder(source, limits):
        target = destination / entry.relative
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        if entry.link is None:
            _copy_file(source / entry.relative, target, limits)
        elif links:
            os.symlink(entry.link, target)
        else:  # planned_action refused them: the folder changed
            raise FolderRefused(f"{entry.relative} became a symbolic link")


def _copy_file(source: Path, destination: Path, limits: FolderLimits | None = None
               ) -> None:
    """A regular file's bytes, permission bits (the executable bit of scripts) and time.
    Opened as the scan opens files (never blocking, never a link, a pipe or a device) and
    never more than the cap per file (a sparse file was refused by its apparent size):
    the content hash of the copy, checked after, says whether it is what was checked."""
    limit = (folder_limits() if limits is None else limits).file_bytes
    with open_regular(source) as original, open(destination, "xb") as copy:
        info = os.fstat(original.fileno())
        left = limit + 1
        while left > 0 and (chunk := original.read(min(1 << 20, left))):
            copy.write(chunk)
            left -= len(chunk)
        if left <= 0:
            raise FolderRefused(f"{source} grew over the cap of {limit >> 20} MiB per file "
                                "while it was copied")
    # bots never run as their folder's owner (docs/security.md): readable by all; never
    # set-user-ID, set-group-ID or sticky (the copy belongs to whoever installs it)
    mode = stat.S_IMODE(info.st_mode) & 0o777
    destination.chmod(mode | 0o444 | (0o111 if mode & 0o100 else 0))
    os.utime(destination, ns=(info.st_atime_ns, info.st_mtime_ns))


def _same_content(folder: Path, spec: BotSpec) -> bool:
    try:
        return folder.is_dir() and content_hash(folder) == spec.content_hash
    except (OSError, FolderRefused):  # what is installed there cannot be read: not the same
        return False


def _describe_installed(folder: Path) -> str:
    try:
        record = json.loads((folder / INSTALL_RECORD_NAME).read_text())
        return f"version {record['version']}, content {record['content_hash'][:12]}"
    except (OSError, ValueError, KeyError, TypeError):
        return "not installed by arena submit"


def _write_install_record(folder: Path, spec: BotSpec, source: Path) -> None:
    record = {
        "name": spec.name,
        "version": spec.version,
        "content_hash": spec.content_hash,
        "source": str(source.resolve()),
        "installed_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    (folder / INSTALL_RECORD_NAME).write_text(json.dumps(record, indent=2) + "\n")
