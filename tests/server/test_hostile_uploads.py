"""Hostile uploaders (issue 33 item 2): what test_archives.py and test_app.py do not
already cover.  Covered there: ``..``, absolute paths, symbolic and hard links, devices
and FIFOs, a name twice, too many files and bytes, a zip bomb by ratio, a gzip bomb by
stream, a zip entry holding more than it declares (test_archives.py); a manifest naming
another bot, a broken manifest, a hostile archive through the API, an archive over the
size limit, the daily and active-bot quotas one upload after another (test_app.py)."""

from __future__ import annotations

import io
import re
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest
import trio

from arena.server.archives import ArchiveRefused, Limits, unpack
from tests.server.conftest import (
    PASSWORD,
    bot_archive,
    in_process,
    make_server_folder,
    tar_gz,
)

pytestmark = pytest.mark.anyio

# the default settings' limits (settings.toml as `arena serve init` writes it)
SERVER_LIMITS = Limits(max_files=200, max_bytes=20 << 20, max_ratio=50)
TEN_GB = 10 << 30


def refused_leaving_nothing(data: bytes, tmp_path: Path, match: str) -> str:
    destination = tmp_path / "version"
    with pytest.raises(ArchiveRefused, match=match) as caught:
        unpack(data, destination, SERVER_LIMITS)
    assert "\n" not in str(caught.value)
    assert not destination.exists() and list(tmp_path.iterdir()) == []
    return str(caught.value)


@pytest.mark.no_store
def test_a_hundred_thousand_small_files_are_refused_before_most_are_read(
        tmp_path: Path) -> None:
    """tar.gz: the stream is refused at the limit's member (no 100,000 files written);
    zip: the central directory is counted before a byte is written."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", compresslevel=1) as archive:
        info = tarfile.TarInfo("bot.toml")
        archive.addfile(info, io.BytesIO(b""))
        for number in range(100_000):
            info = tarfile.TarInfo(f"f/{number}")
            info.size = 1
            archive.addfile(info, io.BytesIO(b"x"))
    refused_leaving_nothing(out.getvalue(), tmp_path, "more than 200 files|201 files")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("bot.toml", b"")
        for number in range(100_000):
            archive.writestr(f"f/{number}", b"x")
    refused_leaving_nothing(out.getvalue(), tmp_path, "more than 200 files")


def _gzip(chunks: list[bytes], zeros: int) -> bytes:
    """A gzip stream of ``chunks`` then ``zeros`` zero bytes, made a megabyte at a time
    (nothing large is ever held or written)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [compressor.compress(chunk) for chunk in chunks]
    block = bytes(1 << 20)
    for _ in range(zeros >> 20):
        parts.append(compressor.compress(block))
    parts.append(compressor.flush())
    return b"".join(parts)


@pytest.mark.no_store
def test_a_10_kb_archive_that_unpacks_to_10_gb_is_refused(tmp_path: Path) -> None:
    # tar.gz: a header declaring a 10 GB file, then 10 MB of zeros (a ~10 KB stream, as
    # far as it goes: the reader must stop on the declaration, not on the end)
    info = tarfile.TarInfo("bot.toml")
    head = info.tobuf(format=tarfile.GNU_FORMAT)
    big = tarfile.TarInfo("zeros")
    big.size = TEN_GB
    data = _gzip([head, big.tobuf(format=tarfile.GNU_FORMAT)], 10 << 20)
    assert len(data) < 12_000
    refused_leaving_nothing(data, tmp_path, "more than the server's limit")
    # the same stream with a header declaring 1000 bytes: the file gets its 1000, and the
    # zeros after it read as the end of the archive; the other 10 MB are never read
    small = tarfile.TarInfo("zeros")
    small.size = 1000
    data = _gzip([head, small.tobuf(format=tarfile.GNU_FORMAT)], 10 << 20)
    unpacked = unpack(data, tmp_path / "small", SERVER_LIMITS)
    assert sum(p.stat().st_size for p in unpacked.rglob("*")) == 1000
    import shutil

    shutil.rmtree(tmp_path / "small")
    # zip: one entry whose deflated 10 MB of zeros declares (zip64) 10 GB
    kernel = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = b"".join(kernel.compress(bytes(1 << 20)) for _ in range(10)) + kernel.flush()
    data = _zip64_one_entry("zeros", body, TEN_GB)
    assert len(data) < 12_000
    refused_leaving_nothing(data, tmp_path, "more than the server's limit")
    # and one that lies the other way: declares 100 bytes, holds 10 MB: 100 are read
    # (zipfile stops at the declared size; archives.py counts besides), no more
    data = _zip64_one_entry("zeros", body, 100)
    refused_leaving_nothing(data, tmp_path, "no bot.toml")


def _zip64_one_entry(name: str, deflated: bytes, declared: int) -> bytes:
    """A zip of one deflated entry whose sizes say ``declared`` bytes (in zip64 fields)."""
    encoded = name.encode()
    crc = zlib.crc32(bytes(min(declared, 1 << 20)))
    extra = struct.pack("<HHQQ", 1, 16, declared, len(deflated))
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0, crc, 0xFFFFFFFF,
                        0xFFFFFFFF, len(encoded), len(extra)) + encoded + extra
    central_extra = struct.pack("<HHQQ", 1, 16, declared, len(deflated))
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, 0, 0, crc,
                          0xFFFFFFFF, 0xFFFFFFFF, len(encoded), len(central_extra), 0, 0, 0,
                          0o644 << 16, 0) + encoded + central_extra
    start = len(local) + len(deflated)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), start, 0)
    return local + deflated + central + end


async def test_a_manifest_naming_another_users_bot_is_refused(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        ada = await api.account("ada")
        bob = await api.account("bob")
        assert (await api.upload(bob, "bob", "mine", bot_archive("mine"))).status_code == 202
        for claimed in ("bob/mine", "../bob/mine", "bob:mine"):
            files = {"bot.toml": f'name = "{claimed}"\nversion = "1"\n'
                                 'command = ["{{python}}", "bot.py"]\n[games]\nra = [2]\n'
                                 .encode(), "bot.py": b""}
            answer = await api.upload(ada, "ada", "mine", tar_gz(files))
            assert answer.status_code == 400, answer.text
            assert f"key 'name': {claimed!r} is not allowed" in answer.json()["error"]
        # and through the URL: the owner is checked before anything is read
        answer = await api.upload(ada, "bob", "mine", bot_archive("mine"))
        assert answer.status_code == 403
        bob_versions = (await api.client.get("/api/v1/bots/bob/mine")).json()["versions"]
        assert [v["number"] for v in bob_versions] == [1]
        assert (await api.client.get("/api/v1/bots/ada/mine")).status_code == 404
        assert not (api.server.settings.uploads / "ada" / "mine").exists() or not [
            p for p in (api.server.settings.uploads / "ada" / "mine").iterdir()]


async def test_uploads_sent_at_once_never_pass_the_quota(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Twenty uploads at the same moment, with a quota of five a day: the quotas are
    checked again after the unpacking (which lets the others in), so at most five are
    taken; the rest are refused with 429 and leave nothing behind."""
    folder = tmp_path / "server"
    make_server_folder(folder, capsys)
    async with in_process(folder) as api:
        ada = await api.account("ada")
        archive = bot_archive("mine")
        codes: list[int] = []
        errors: list[str] = []

        async def one() -> None:
            answer = await api.upload(ada, "ada", "mine", archive)
            codes.append(answer.status_code)
            if answer.status_code != 202:
                errors.append(answer.json()["error"])

        for _ in range(2):  # two waves of ten at once
            async with trio.open_nursery() as nursery:
                for _ in range(10):
                    nursery.start_soon(one)
        assert codes.count(202) <= 5 and set(codes) <= {202, 429}, codes
        assert all(error.startswith("quota") for error in errors)
        versions = (await api.client.get("/api/v1/bots/ada/mine")).json()["versions"]
        assert len(versions) == codes.count(202)
        bot_uploads = api.server.settings.uploads / "ada" / "mine"
        assert sorted(p.name for p in bot_uploads.iterdir()) == [
            str(n) for n in sorted(v["number"] for v in versions)]  # no staging left
        # and a second user's bots at once never pass the active-bot quota (2)
        bob = await api.account("bob")
        answers: list[int] = []

        async def new_bot(name: str) -> None:
            answers.append((await api.upload(bob, "bob", name, bot_archive(name))).status_code)

        async with trio.open_nursery() as nursery:
            for name in ("one", "two", "three", "four"):
                nursery.start_soon(new_bot, name)
        bots = (await api.client.get("/api/v1/bots")).json()
        assert len([b for b in bots if b["bot"].startswith("bob/")]) <= 2, (answers, bots)


HOSTILE_TEXT = "<script>alert(1)</script><img src=x onerror=alert(2)>\x1b]0;owned\x07\x1b[2J"


async def test_user_text_never_becomes_a_script_nor_a_terminal_escape(
        server_folder: tuple[Path, str]) -> None:
    """A token's name, a manifest's fields and a bot's output carrying HTML, JavaScript and
    terminal escape sequences: every page and every API answer that shows them has them
    escaped (no ``<script`` nor ``<img`` tag from user text), and no control
    character reaches a page, an answer, the events or the server's log."""
    folder, admin_password = server_folder
    async with in_process(folder, background=True) as api:
        ada = await api.account("ada")
        auth = {"Authorization": f"Bearer {ada}"}
        # a bot that writes the hostile text on stdout (a protocol violation, whose
        # detail is public) and on stderr (its owner's), with it in its manifest too
        files = {path.name: path.read_bytes() for path in
                 (Path(__file__).parents[2] / "arena" / "bots" / "random").iterdir()
                 if path.is_file()}
        manifest = files["bot.toml"].decode().replace('name = "random"', 'name = "evil"')
        manifest = "\n".join(line for line in manifest.splitlines()
                             if not line.startswith(("entry_point", "description")))
        manifest = manifest.replace('version = "1.0.0"', 'version = "1.0.0"\ndescription = '
                                    + _toml_string(HOSTILE_TEXT))
        files["bot.toml"] = manifest.encode() + b"\n"
        files["bot.py"] = ("import sys\ntext = " + repr(HOSTILE_TEXT) + "\n"
                           "sys.stderr.write(text + '\\n'); sys.stderr.flush()\n"
                           "for line in sys.stdin:\n"
                           "    print(text, flush=True)\n").encode()
        answer = await api.upload(ada, "ada", "evil", tar_gz(files))
        assert answer.status_code == 202, answer.text
        events = api.server.events.subscribe()
        done = await api.wait_state(answer.json()["id"], ada, seconds=180)
        assert done["state"] == "rejected"
        # a manifest whose error quotes the hostile text: refused in one line
        bad = tar_gz({"bot.toml": ('name = "bad"\nversion = ' + _toml_string(HOSTILE_TEXT)
                                   + '\ncommand = ' + _toml_string(HOSTILE_TEXT)
                                   + '\n[games]\nra = [2]\n').encode()})
        refusal = await api.upload(ada, "ada", "bad", bad)
        assert refusal.status_code == 400 and "\x1b" not in refusal.json()["error"]
        # the account page, with a token named with it
        page = await api.client.get("/login")
        await api.client.post("/login", data={"csrf": _csrf(page.text), "name": "ada",
                                              "password": PASSWORD})
        account = await api.client.get("/account")
        made = await api.client.post("/account/tokens", data={
            "csrf": _csrf(account.text), "token_name": HOSTILE_TEXT[:64]})
        shown = [made.text, (await api.client.get("/account")).text,
                 (await api.client.get("/bots/ada/evil")).text,
                 (await api.client.get("/")).text]
        # the web form's refusal page
        account = await api.client.get("/account")
        form = await api.client.post("/upload", data={"csrf": _csrf(account.text),
                                                      "name": "bad"},
                                     files={"archive": ("x.tar.gz", bad, "application/gzip")})
        assert form.status_code == 400
        shown.append(form.text)
        # the admin's pages (the log, the users)
        api.client.cookies.clear()
        page = await api.client.get("/login")
        await api.client.post("/login", data={"csrf": _csrf(page.text), "name": "root",
                                              "password": admin_password})
        shown += [(await api.client.get("/admin")).text,
                  (await api.client.get("/bots/ada/evil")).text]
        own_script = re.compile(r'<script src="/static/[a-z0-9_.-]+\.js"></script>')
        for html in shown:
            # the server's own script files at most; no other script tag, no image tag
            text = own_script.sub("", html)
            assert "<script" not in text.lower()
            assert "<img" not in html.lower()
            assert "\x1b" not in html and "\x07" not in html
            assert "&lt;script&gt;" in text or "script" not in text  # shown, escaped
        apis = [await api.client.get(path, headers=auth) for path in (
            "/api/v1/bots/ada/evil", f"/api/v1/versions/{done['id']}", "/api/v1/tokens")]
        for reply in [*apis, refusal]:
            assert reply.headers["content-type"].startswith("application/json")
            assert "x-content-type-options" in reply.headers
            assert "\x1b" not in str(reply.json()) and "\\u001b" not in reply.text
        version = apis[1].json()
        assert "script" in version["message"] + version["stderr_tail"]  # kept, as text
        while True:
            try:
                text = events.receive_nowait()
            except trio.WouldBlock:
                break
            assert "\x1b" not in text and "\\u001b" not in text
        assert not any("\x1b" in line for line in api.server.log_lines)
        # and an injected inline script would not run anyway: the policy allows none
        csp = (await api.client.get("/")).headers["content-security-policy"]
        assert "default-src 'none'" in csp and "unsafe-inline" not in csp
        assert "unsafe-eval" not in csp


def _toml_string(text: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}"
                         for c in text) + '"'


def _csrf(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, html
    return match.group(1)
