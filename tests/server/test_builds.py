"""Uploads with a build step: built before their check (in the sandbox, into the server's
build cache), a failed build is a rejected version whose log's end only its owner sees,
and a missing build program is refused at upload in one line.  Needs gcc: locally the
tests are skipped without it, under CI=true they fail."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.server.conftest import PASSWORD, csrf_of, in_process, tar_gz

C_FIRST = Path(__file__).parent.parent / "plugins" / "build_bots" / "c-first"
pytestmark = [pytest.mark.anyio, pytest.mark.skipif(
    shutil.which("gcc") is None and os.environ.get("CI") != "true",
    reason="gcc is not installed (apt-get install gcc; under CI=true this fails instead)")]


def c_archive(name: str, *, source: str | None = None, build: str | None = None) -> bytes:
    manifest = (C_FIRST / "bot.toml").read_text().replace('name = "c-first"',
                                                          f'name = "{name}"')
    if build is not None:
        manifest = "\n".join(build if line.startswith("build =") else line
                             for line in manifest.splitlines()) + "\n"
    code = (C_FIRST / "bot.c").read_text() if source is None else source
    return tar_gz({"bot.toml": manifest.encode(), "bot.c": code.encode()})


async def test_a_missing_build_program_is_refused_at_upload_in_one_line(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0]) as api:
        ada = await api.account("ada")
        answer = await api.upload(ada, "ada", "cee", c_archive(
            "cee", build='build = ["no-such-compiler-8d1f", "bot.c"]'))
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert "\n" not in error and error.endswith(
            "key 'build': executable 'no-such-compiler-8d1f' not found on the bots' PATH "
            "(/usr/local/bin:/usr/bin:/bin)"), error
        assert str(api.server.settings.folder) not in error
        assert (await api.client.get("/api/v1/bots/ada/cee")).status_code == 404


async def test_a_build_that_fails_is_a_rejected_version_whose_log_its_owner_sees(
        server_folder: tuple[Path, str]) -> None:
    async with in_process(server_folder[0], background=True) as api:
        client = api.client
        page = await client.get("/register")  # ada, in the browser
        await client.post("/register", data={"name": "ada", "password": PASSWORD,
                                             "csrf": csrf_of(page.text)})
        ada = await api.token("ada")
        bob = await api.account("bob")
        broken = await api.upload(ada, "ada", "cee", c_archive(
            "cee", source="int main(void) { return undeclared_thing; }\n"))
        assert broken.status_code == 202, broken.text
        rejected = await api.wait_state(broken.json()["id"], ada)
        assert rejected["state"] == "rejected"
        assert rejected["message"] == "the build failed: exited with code 1", rejected
        assert "undeclared_thing" in rejected["build_log"] and rejected["report"] is None
        for headers in ({}, {"Authorization": f"Bearer {bob}"}):
            seen = (await client.get(f"/api/v1/versions/{broken.json()['id']}",
                                     headers=headers)).json()
            assert seen["state"] == "rejected" and seen["build_log"] == ""
        mine = await client.get("/bots/ada/cee")
        assert "build log" in mine.text and "undeclared_thing" in mine.text
        client.cookies.clear()
        theirs = await client.get("/bots/ada/cee")
        assert theirs.status_code == 200 and "undeclared_thing" not in theirs.text
        # nothing of the failed build is kept as built
        cache = api.server.build_cache()
        assert [p.name for p in cache.iterdir() if len(p.name) == 64] == []

        # the next version builds, passes its check and plays its built copy
        good = await api.upload(ada, "ada", "cee", c_archive(
            "cee", build='build = ["sh", "-c", "echo compiling bot.c && gcc -o bot bot.c"]'))
        valid = await api.wait_state(good.json()["id"], ada)
        assert valid["state"] == "valid", valid
        assert "compiling bot.c" in valid["build_log"]
        built = [spec for spec in api.server.ladder.specs() if spec.name == "ada/cee@2"]
        assert len(built) == 1 and built[0].folder is not None
        assert built[0].folder.is_relative_to(cache) and (built[0].folder / "bot").is_file()
        uploaded = api.server.settings.folder / "uploads" / "ada" / "cee" / "2"
        assert not (uploaded / "bot").exists()  # the upload's own folder: sources only
