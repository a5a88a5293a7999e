"""``arena submit``: install a checked bot folder into a bots directory, atomically.

The folder is copied into a hidden temporary folder inside the bots directory (same
filesystem), checked against the content hash, then renamed into place; a failure at any
moment leaves either the old bot or the new one, never a half-copied folder.  Hidden
folders are ignored by discovery, so even a leftover of a killed install is harmless.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.errors import ArenaError
from arena.games.base import Game
from arena.plugins.manifest import INSTALL_RECORD_NAME, bot_files, content_hash, load_manifest
from arena.runner.botspec import BotSpec


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
        _copy_bot(source, staged)
        if content_hash(staged) != spec.content_hash:
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
    links = [str(p) for p in bot_files(source) if (source / p).is_symlink()]
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
    destination.mkdir(mode=0o755)
    for relative in bot_files(source):
        (destination / relative).parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        _copy_file(source / relative, destination / relative)


def _copy_file(source: Path, destination: Path) -> None:
    shutil.copy2(source, destination)  # keeps the executable bit of scripts
    # bots never run as their folder's owner (docs/security.md): readable by all
    mode = destination.stat().st_mode
    destination.chmod(mode | 0o444 | (0o111 if mode & 0o100 else 0))


def _same_content(folder: Path, spec: BotSpec) -> bool:
    return folder.is_dir() and content_hash(folder) == spec.content_hash


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
