"""Safe unpacking of uploaded bots: every hostile archive refused in one line, with
nothing written outside the version's folder (nor left inside it)."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.server.archives import ArchiveRefused, Limits, pack_folder, unpack
from tests.server.conftest import bot_archive, bot_folder, tar_gz

pytestmark = pytest.mark.no_store  # (no server folder: run once)

LIMITS = Limits(max_files=20, max_bytes=1 << 20, max_ratio=50)


def zip_bytes(files: dict[str, bytes], *, attrs: dict[str, int] | None = None,
              method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            if attrs and name in attrs:
                info.external_attr = attrs[name] << 16
            archive.writestr(info, data)
    return out.getvalue()


def refused(data: bytes, tmp_path: Path, match: str, limits: Limits = LIMITS) -> None:
    destination = tmp_path / "version"
    with pytest.raises(ArchiveRefused, match=match) as caught:
        unpack(data, destination, limits)
    assert "\n" not in str(caught.value)  # one clear line
    assert not destination.exists()  # nothing left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written beside it


def test_a_bot_as_tar_gz_or_zip_unpacks_to_its_folder(tmp_path: Path) -> None:
    folder = unpack(bot_archive("mine"), tmp_path / "a", LIMITS)
    assert folder == tmp_path / "a" and (folder / "bot.toml").is_file()
    zipped = zip_bytes({"mine/bot.toml": b'name = "mine"\n', "mine/bot.py": b"print()\n",
                        "mine/lib/": b"", "mine/lib/x.py": b"\n"})
    folder = unpack(zipped, tmp_path / "b", LIMITS)
    assert folder == tmp_path / "b" / "mine"  # an archive of the folder itself
    assert (folder / "lib" / "x.py").is_file()
    assert stat.S_IMODE(os.stat(folder / "bot.py").st_mode) == 0o644


def test_pack_folder_round_trips_and_refuses_links(tmp_path: Path) -> None:
    source = bot_folder(tmp_path, "mine")
    (source / "__pycache__").mkdir()
    (source / "__pycache__" / "x.pyc").write_bytes(b"x")
    data = pack_folder(source, frozenset({"__pycache__"}))
    folder = unpack(data, tmp_path / "out", LIMITS)
    assert sorted(p.name for p in folder.iterdir()) == ["bot.py", "bot.toml"]
    (source / "link").symlink_to("/etc/passwd")
    with pytest.raises(Exception, match="symbolic link"):
        pack_folder(source)


@pytest.mark.parametrize("name", ["../evil.py", "a/../../evil.py", "ok/../../../tmp/x"])
def test_dot_dot_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "inner").mkdir()
    refused(tar_gz({"bot.toml": b"", name: b"x"}), tmp_path / "inner", r"\.\.")
    refused(zip_bytes({"bot.toml": b"", name: b"x"}), tmp_path / "inner", r"\.\.")
    assert not (tmp_path / "evil.py").exists()


def test_an_absolute_path_is_refused(tmp_path: Path) -> None:
    refused(tar_gz({"/tmp/evil.py": b"x"}), tmp_path, "absolute")
    refused(zip_bytes({"/tmp/evil.py": b"x"}), tmp_path, "absolute")


def test_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    def link(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("bot.py")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        archive.addfile(info)

    refused(tar_gz({"bot.toml": b""}, link), tmp_path, "symbolic link")
    refused(zip_bytes({"bot.toml": b"", "bot.py": b"/etc/passwd"},
                      attrs={"bot.py": stat.S_IFLNK | 0o777}), tmp_path, "symbolic link")


def test_a_hard_link_is_refused(tmp_path: Path) -> None:
    def link(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("copy")
        info.type = tarfile.LNKTYPE
        info.linkname = "/etc/shadow"
        archive.addfile(info)

    refused(tar_gz({"bot.toml": b""}, link), tmp_path, "hard link")


@pytest.mark.parametrize("kind, words", [(tarfile.CHRTYPE, "device"),
                                         (tarfile.BLKTYPE, "device"),
                                         (tarfile.FIFOTYPE, "FIFO")])
def test_devices_and_fifos_are_refused(tmp_path: Path, kind: bytes, words: str) -> None:
    def device(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("null")
        info.type = kind
        info.devmajor, info.devminor = 1, 3
        archive.addfile(info)

    refused(tar_gz({"bot.toml": b""}, device), tmp_path, words)
    refused(zip_bytes({"bot.toml": b"", "null": b""}, attrs={"null": stat.S_IFCHR | 0o666}),
            tmp_path, "device")


def test_too_many_files_are_refused(tmp_path: Path) -> None:
    files = {f"f{i}.py": b"" for i in range(21)}
    refused(tar_gz(files), tmp_path, "21 files")
    refused(zip_bytes(files), tmp_path, "21 files")


def test_too_many_bytes_are_refused(tmp_path: Path) -> None:
    big = os.urandom(1 << 20) + b"x"  # incompressible, over the 1 MiB limit
    refused(tar_gz({"bot.toml": b"", "big": big}), tmp_path, "more than the server's limit")
    refused(zip_bytes({"bot.toml": b"", "big": big}), tmp_path,
            "more than the server's limit")


def test_a_zip_bomb_is_refused_by_its_compression_ratio(tmp_path: Path) -> None:
    zeros = bytes(900_000)  # within the size limit, but compresses ~1000 times
    refused(zip_bytes({"bot.toml": b"", "zeros": zeros}), tmp_path, "compression-ratio")
    refused(tar_gz({"bot.toml": b"", "zeros": zeros}), tmp_path, "compression-ratio|ratio")


def test_a_gzip_bomb_is_stopped_while_reading(tmp_path: Path) -> None:
    # a 50 MB GNU long name: tarfile would read it whole before any member is seen; the
    # counted stream stops it at the limit
    def long_name(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("././@LongLink")
        info.type = tarfile.GNUTYPE_LONGNAME
        info.size = 50 << 20
        archive.addfile(info, io.BytesIO(bytes(info.size)))

    refused(tar_gz({}, long_name), tmp_path, "size or compression-ratio limit")


def test_a_zip_entry_holding_more_than_it_declares_is_refused(tmp_path: Path) -> None:
    data = zip_bytes({"bot.toml": b"", "a": b"x" * 1000}, method=zipfile.ZIP_STORED)
    # lower the declared size in both headers: the reader must not trust it
    data = data.replace((1000).to_bytes(4, "little"), (10).to_bytes(4, "little"))
    with pytest.raises(ArchiveRefused):
        unpack(data, tmp_path / "v", LIMITS)
    assert not (tmp_path / "v").exists()


def test_a_name_twice_and_a_file_as_a_folder_are_refused(tmp_path: Path) -> None:
    def twice(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("bot.toml")
        info.size = 0
        archive.addfile(info, io.BytesIO(b""))

    refused(tar_gz({"bot.toml": b""}, twice), tmp_path, "twice")
    refused(tar_gz({"bot.toml": b"", "a": b"x", "a/b": b"y"}), tmp_path,
            "through a file|both a file and a folder")


def test_not_an_archive_and_no_manifest_are_refused(tmp_path: Path) -> None:
    refused(b"#!/bin/sh\nrm -rf /\n", tmp_path, "neither a .tar.gz nor a .zip")
    refused(tar_gz({"readme.txt": b"hi"}), tmp_path, "no bot.toml")
    refused(b"\x1f\x8b\x08\x00garbage", tmp_path, "damaged")
