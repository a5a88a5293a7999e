"""Hostile bot folders (issue 30 item 5): reading a bot folder never blocks, only regular
files, folders and symbolic links are read, within caps per file, per folder and in number;
a bot that breaks them is not ready (arena bots), refused (arena submit), left alone by a
league that does not name it and stops a league that does, each with one line.

Every test that could hang on a regression has a guard: the commands run in a subprocess
with a timeout, the functions in a daemon thread given a few seconds."""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import stat
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ArenaError
from arena.league.cluster_worker import pack_bot
from arena.plugins import discover
from arena.plugins.discovery import game_registry
from arena.plugins.install import install_bot
from arena.plugins.manifest import (
    FolderRefused,
    ManifestError,
    content_hash,
    load_manifest,
    scan_bot_folder,
)
from arena.settings import FolderLimits, folder_limits

from .conftest import TOY_GAMES, write_bot

GUARD_SECONDS = 20  # a folder of a few files is read in milliseconds
COMMAND_SECONDS = 120  # a command in a subprocess: imports, and a league's games

RA_BOT = """\
name = "{name}"
version = "1.0.0"
command = ["{{python}}", "bot.py"]
[games]
ra = [2, 3]
"""


def within(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, failing the test if it does not return in time (the
    thread is left blocked; it is a daemon, the test run still ends)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GUARD_SECONDS)
    if thread.is_alive():
        pytest.fail(f"{function.__name__} did not return within {GUARD_SECONDS} s: reading "
                    "a bot folder blocked")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def arena(*args: str, cwd: Path, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in a subprocess, killed (and the test failed) if it hangs."""
    try:
        return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, text=True,
                              capture_output=True, timeout=COMMAND_SECONDS,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        pytest.fail(f"arena {' '.join(args)} did not end within {COMMAND_SECONDS} s")


def ra_bot(folder: Path, name: str) -> Path:
    return write_bot(folder / name, manifest=RA_BOT.format(name=name))


def make_fifo(path: Path) -> None:
    os.mkfifo(path)


def make_char_device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # like /dev/zero: endless
    except PermissionError:
        pytest.skip("making a character device needs root (CI runs the tests as root)")


def make_socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    here = Path.cwd()
    os.chdir(path.parent)  # a socket's path is at most 107 bytes: bind a short relative one
    try:
        server.bind(path.name)
    finally:
        os.chdir(here)
        server.close()  # the socket file stays


def make_sparse(path: Path) -> None:
    with open(path, "wb") as file:
        file.truncate(2 << 30)  # 2 GiB of apparent size, no real block


HOSTILE: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (make_fifo, "pipe is a named pipe (FIFO)"),
    "device": (make_char_device, "pipe is a character device"),
    "socket": (make_socket, "pipe is a socket"),
    "sparse": (make_sparse, "pipe is 2.0 GiB, sparse: its apparent size counts, over the "
                            "cap of 20 MiB per file (ARENA_BOT_FILE_MB raises it)"),
}


@pytest.fixture(params=sorted(HOSTILE))
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A bot folder ``bots/evil`` holding ``data/pipe``, one hostile entry, beside a good
    bot ``bots/good``; yields (the evil folder, what the one line must say)."""
    make, says = HOSTILE[request.param]
    ra_bot(tmp_path / "bots", "good")
    evil = ra_bot(tmp_path / "bots", "evil")
    (evil / "data").mkdir()
    make(evil / "data" / "pipe")
    yield evil, says.replace("pipe is", "data/pipe is")


# --- the walker ---------------------------------------------------------------------------


def test_hostile_entries_are_refused_without_blocking(hostile: tuple[Path, str]) -> None:
    evil, says = hostile
    with pytest.raises(FolderRefused) as refused:
        within(scan_bot_folder, evil)
    assert str(refused.value).startswith(says)
    assert "\n" not in str(refused.value)
    with pytest.raises(FolderRefused):
        within(content_hash, evil)
    with pytest.raises(ManifestError) as error:
        within(load_manifest, evil, game_registry().games)
    assert str(error.value) == f"{evil / 'bot.toml'}: bot folder refused: {refused.value}"


def test_a_hostile_folder_is_not_packed_for_a_cluster(hostile: tuple[Path, str]) -> None:
    evil, says = hostile
    spec = load_manifest(evil.parent / "good", game_registry().games)
    changed = dataclasses.replace(spec, name="evil", folder=evil, content_hash=None)
    with pytest.raises(ArenaError) as error:  # (the folder changed since discovery)
        within(pack_bot, changed)
    assert str(error.value).startswith(f"bot 'evil': bot folder refused: {says}")


def test_a_file_over_the_cap_per_file(tmp_path: Path) -> None:
    folder = write_bot(tmp_path / "big")
    (folder / "weights.bin").write_bytes(b"\1" * ((1 << 20) + 1))
    with pytest.raises(FolderRefused, match=r"^weights.bin is 1.0 MiB, over the cap of 1 MiB "
                                            r"per file \(ARENA_BOT_FILE_MB raises it\)$"):
        within(scan_bot_folder, folder, FolderLimits(file_mb=1))
    assert len(within(scan_bot_folder, folder, FolderLimits(file_mb=2))) == 3


def test_files_over_the_cap_per_folder(tmp_path: Path) -> None:
    folder = write_bot(tmp_path / "heavy")
    for index in range(3):
        (folder / f"part{index}.bin").write_bytes(b"\1" * 400_000)
    with pytest.raises(FolderRefused, match=r"^its files add up to more than 1 MiB, the cap "
                                            r"per bot folder \(ARENA_BOT_FOLDER_MB raises it\)$"):
        within(scan_bot_folder, folder, FolderLimits(folder_mb=1))


def test_too_many_files(tmp_path: Path) -> None:
    folder = write_bot(tmp_path / "crowd")
    (folder / "lib").mkdir()
    for index in range(60):
        (folder / "lib" / f"m{index}.py").write_text("")
    with pytest.raises(FolderRefused, match=r"^more than 50 files, folders and links, the cap "
                                            r"per bot folder \(ARENA_BOT_FILES raises it\)$"):
        within(scan_bot_folder, folder, FolderLimits(files=50))
    assert len(within(scan_bot_folder, folder, FolderLimits(files=63))) == 62


def test_the_caps_are_settings_raised_in_the_environment() -> None:
    assert folder_limits({}) == FolderLimits(file_mb=20, folder_mb=100, files=10_000)
    raised = folder_limits({"ARENA_BOT_FILE_MB": "64", "ARENA_BOT_FOLDER_MB": "512",
                            "ARENA_BOT_FILES": "50000"})
    assert raised == FolderLimits(file_mb=64, folder_mb=512, files=50_000)
    assert raised.file_bytes == 64 << 20
    for bad in ("0", "-3", "1.5", "lots"):
        with pytest.raises(ArenaError, match=f"environment variable ARENA_BOT_FILES: a whole "
                                             f"number above 0, not '{bad}'"):
            folder_limits({"ARENA_BOT_FILES": bad})


def test_symbolic_links_are_listed_never_followed(tmp_path: Path) -> None:
    """As before: a link is an entry (its target text is hashed), even one to a pipe or a
    device; only `arena submit` refuses links."""
    outside = tmp_path / "outside.fifo"
    os.mkfifo(outside)
    folder = write_bot(tmp_path / "linked")
    (folder / "to-pipe").symlink_to(outside)
    (folder / "to-zero").symlink_to("/dev/zero")
    (folder / "to-dir").symlink_to(tmp_path)
    entries = {str(entry.relative): entry.link for entry in within(scan_bot_folder, folder)}
    assert entries == {"bot.py": None, "bot.toml": None, "to-dir": str(tmp_path),
                       "to-pipe": str(outside), "to-zero": "/dev/zero"}
    assert len(within(content_hash, folder)) == 64
    with pytest.raises(ArenaError, match="symbolic links cannot be submitted"):
        within(install_bot, folder, tmp_path / "bots", TOY_GAMES)


def test_a_bot_toml_that_is_a_pipe_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "bots" / "pipe-manifest"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "bot.toml")
    registry = within(discover, [tmp_path / "bots"], include_bundled=False)
    (entry,) = registry.entries
    assert entry.name == "pipe-manifest" and not entry.ready
    assert entry.status == "is a named pipe (FIFO), not a regular file"


def test_the_copy_keeps_no_set_user_id_bit(tmp_path: Path) -> None:
    source = write_bot(tmp_path / "src", "setuid")
    (source / "tool").write_text("#!/bin/sh\n")
    (source / "tool").chmod(0o4755)
    installed = within(install_bot, source, tmp_path / "bots", TOY_GAMES)
    assert stat.S_IMODE((installed.folder / "tool").stat().st_mode) == 0o755
    assert installed.spec.content_hash == content_hash(source)


# --- the commands -------------------------------------------------------------------------


def test_arena_bots_lists_the_hostile_bot_as_not_ready(
    hostile: tuple[Path, str], tmp_path: Path
) -> None:
    done = arena("bots", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    bots = {bot["name"]: bot for bot in json.loads(done.stdout)["bots"]}
    assert bots["good"]["ready"]
    assert not bots["evil"]["ready"]
    (problem,) = bots["evil"]["problems"]
    _evil, says = hostile
    assert problem.startswith(f"bot folder refused: {says}") and "\n" not in problem


def test_arena_submit_refuses_the_hostile_bot_in_one_line(
    hostile: tuple[Path, str], tmp_path: Path
) -> None:
    evil, says = hostile
    done = arena("submit", str(evil), "--to", "installed", "--no-check", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"arena: error: {evil / 'bot.toml'}: bot folder refused: "
                                  f"{says}")
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "installed").exists()


def test_the_caps_are_raised_for_every_command_alike(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    heavy = ra_bot(bots, "heavy")
    (heavy / "weights.bin").write_bytes(b"\1" * ((20 << 20) + 1))
    refused = arena("submit", str(heavy), "--to", "installed", "--no-check", cwd=tmp_path)
    assert refused.returncode == 2 and "over the cap of 20 MiB per file" in refused.stderr
    raised = {"ARENA_BOT_FILE_MB": "21"}
    done = arena("submit", str(heavy), "--to", "installed", "--no-check", cwd=tmp_path,
                 env=raised)
    assert done.returncode == 0, done.stderr
    listed = arena("bots", "--json", "--path", "installed", cwd=tmp_path, env=raised)
    bots_found = {bot["name"]: bot for bot in json.loads(listed.stdout)["bots"]}
    assert bots_found["heavy"]["ready"]
    bad = arena("bots", cwd=tmp_path, env={"ARENA_BOT_FILES": "many"})
    assert bad.returncode == 2
    assert bad.stderr == ("arena: error: environment variable ARENA_BOT_FILES: a whole number "
                          "above 0, not 'many'\n")


def test_a_league_without_the_hostile_bot_plays_one_with_it_stops(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    ra_bot(bots, "good")
    evil = ra_bot(bots, "evil")
    os.mkfifo(evil / "pipe")
    league = ['game = "ra"', "players = 2", "rounds = 1", "seed = 7", 'bot_paths = ["bots"]',
              "[limits]", 'sandbox = "none"']
    (tmp_path / "fine.toml").write_text("\n".join(
        ['name = "fine"', 'roster = ["random", "first"]', *league]) + "\n")
    (tmp_path / "evil.toml").write_text("\n".join(
        ['name = "evil"', 'roster = ["random", "evil"]', *league]) + "\n")
    played = arena("run", "fine.toml", "--quiet", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert (tmp_path / "results" / "fine" / "league.sqlite").is_file()
    stopped = arena("run", "evil.toml", "--quiet", cwd=tmp_path)
    assert stopped.returncode == 2
    assert stopped.stderr == (
        "arena: error: evil.toml: key 'roster': bot 'evil' cannot be used: folder bots/evil: "
        "bot folder refused: pipe is a named pipe (FIFO): a bot folder may hold only regular "
        "files, folders and symbolic links\n")
    assert not (tmp_path / "results" / "evil").exists()  # stopped before the first game


# --- a command that cannot run (issue 31 item 4) ------------------------------------------

ELF_64_LE = b"\x7fELF\x02\x01\x01" + bytes(9)


def elf(machine: int, kind: int = 2, interpreter: bytes | None = None) -> bytes:
    """A 64-bit little-endian ELF header (and a PT_INTERP naming ``interpreter``)."""
    header = ELF_64_LE + struct.pack("<HHIQQQIHHHHHH", kind, machine, 1, 0, 64, 0, 0, 64,
                                     56, 1 if interpreter else 0, 64, 0, 0)
    if interpreter is None:
        return header
    path = interpreter + b"\0"
    program = struct.pack("<IIQQQQQQ", 3, 4, 64 + 56, 0, 0, len(path), len(path), 1)
    return header + program + path


def host_machine() -> int:
    with open(os.path.realpath(sys.executable), "rb") as file:
        head = file.read(20)
    if not head.startswith(b"\x7fELF") or head[4:6] != b"\x02\x01":
        pytest.skip("the ELF checks are for 64-bit little-endian ELF systems")
    return int.from_bytes(head[18:20], "little")


def command_status(tmp_path: Path, content: bytes, name: str = "prog") -> list[str]:
    folder = write_bot(tmp_path / name, manifest=RA_BOT.format(name=name).replace(
        '["{python}", "bot.py"]', '["./prog"]'))
    (folder / "prog").write_bytes(content)
    (folder / "prog").chmod(0o755)
    registry = within(discover, [folder], include_bundled=False)
    (entry,) = registry.entries
    return entry.problems


CANNOT_RUN = "key 'command': './prog' cannot run here: "


def test_a_data_file_marked_executable_is_not_ready(tmp_path: Path) -> None:
    host_machine()
    assert command_status(tmp_path, b"\x00\x01binary data, not a program\xff" * 10) == [
        CANNOT_RUN + "it is neither a program for this machine (no ELF header) nor a script "
                     "(no '#!' line)"]


def test_a_program_for_another_machine_is_not_ready(tmp_path: Path) -> None:
    other = 183 if host_machine() != 183 else 62  # AArch64 here, else x86-64
    (problem,) = command_status(tmp_path, elf(other))
    assert problem.startswith(CANNOT_RUN + "it is a program for ")
    assert "this machine is" in problem


def test_a_program_whose_loader_is_missing_is_not_ready(tmp_path: Path) -> None:
    machine = host_machine()
    assert command_status(tmp_path, elf(machine, interpreter=b"/no/such/ld-musl.so.1")) == [
        CANNOT_RUN + "it needs the loader /no/such/ld-musl.so.1, which this machine does not "
                     "have"]
    assert command_status(tmp_path, elf(machine, kind=1), name="object") == [
        CANNOT_RUN + "it is an ELF file but not a program (an object file or a core dump?)"]


def test_programs_and_scripts_that_run_are_ready(tmp_path: Path) -> None:
    with open(os.path.realpath(sys.executable), "rb") as file:
        assert command_status(tmp_path, file.read()) == []  # a copy of this Python
    assert command_status(tmp_path, b"#!/bin/sh\necho hi\n", name="script") == []
    assert command_status(tmp_path, b"#! /usr/bin/env sh\n", name="env-script") == []


def test_a_script_whose_interpreter_is_missing_is_not_ready(tmp_path: Path) -> None:
    host_machine()
    assert command_status(tmp_path, b"#!/no/such/interpreter -x\n") == [
        CANNOT_RUN + "it is a script for '/no/such/interpreter' (its '#!' line), which this "
                     "machine does not have (or is not executable)"]
    (problem,) = command_status(tmp_path, b"#!/usr/bin/env no-such-runtime-x\n", name="env")
    assert problem.startswith(CANNOT_RUN + "it is a script for 'no-such-runtime-x' (its "
                              "'#!/usr/bin/env' line), which is not on the bots' PATH")
    assert command_status(tmp_path, b"#!\n", name="empty") == [
        CANNOT_RUN + "its '#!' line names no interpreter"]
