"""Fixtures of the templates' tests: one workspace per session with a bot of every
language made by ``arena new-bot``, and each built once by hand as its README says.

A compiled language needs its toolchain (.ci/apt-packages installs them): in CI
(CI=true) a missing one fails the tests that need it, elsewhere they are skipped saying
which package to install."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.workspace import LANGUAGES, missing_tools
from tests.conftest import enterable

CONVERSATION_TIMEOUT = 60  # seconds: a JVM's start on a loaded machine is the slow part
BUILD_TIMEOUT = 300


def require_toolchain(language: str) -> None:
    """Fail (CI) or skip unless the tools of ``language`` are installed."""
    missing = missing_tools(language)
    if missing:
        packages = LANGUAGES[language].packages
        message = (f"{' and '.join(missing)} not installed: on Debian or Ubuntu "
                   f"`apt install {packages}` (.ci/apt-packages has it for CI)")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def bot_name(language: str) -> str:
    return f"t-{language}"


@pytest.fixture(scope="session")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose ``bots/`` holds ``t-LANG``, made by ``arena new-bot`` for every
    language and left as made (the bots to validate, play and upload)."""
    folder = enterable(tmp_path_factory.mktemp("templates"), tmp_path_factory)
    for language in LANGUAGES:
        assert main(["new-bot", bot_name(language), "--lang", language,
                     "--dir", str(folder / "bots")]) == 0
    return folder


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's own cache of built bots ($XDG_CACHE_HOME of the arena commands run in
    these tests): the league finds what validate built, and the user's cache is untouched."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def arena_cache(build_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(build_cache))
    return build_cache


def readme_blocks(folder: Path) -> list[str]:
    """The ``sh`` code blocks of a bot's README, in order."""
    return re.findall(r"```sh\n(.*?)```", (folder / "README.md").read_text(), re.S)


def build_environment(scratch: Path) -> dict[str, str]:
    """The user's environment for a build by hand, with the Go and Cargo settings the
    arena's builds use (offline, caches in ``scratch``) and this Python first on PATH (its
    ``python3`` has the arena's SDK)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, "GOCACHE": str(scratch / "go-cache"),
            "GOPATH": str(scratch / "go-path"), "GOPROXY": "off", "GOTOOLCHAIN": "local",
            "GOFLAGS": "", "CARGO_NET_OFFLINE": "true"}


class HandBuilt:
    """A copy of a made bot, built and run by hand with its README's first ``sh`` block
    (for a compiled language: the build, then the piped conversation)."""

    def __init__(self, folder: Path, output: str, environment: dict[str, str]) -> None:
        self.folder = folder
        self.output = output  # what the README's conversation printed
        self.environment = environment

    @property
    def command(self) -> list[str]:
        """The manifest's command, as the runner resolves it (in this folder)."""
        manifest = tomllib.loads((self.folder / "bot.toml").read_text())
        return [sys.executable if part == "{python}" else part for part in manifest["command"]]

    def converse(self, *lines: str, raw: bytes | None = None) -> tuple[list[dict], str, int]:
        """Run the bot on ``lines`` (or ``raw`` bytes): its stdout lines as JSON, its
        stderr and its exit code."""
        data = raw if raw is not None else "".join(f"{line}\n" for line in lines).encode()
        done = subprocess.run(self.command, cwd=self.folder, input=data, capture_output=True,
                              env=self.environment, timeout=CONVERSATION_TIMEOUT)
        out = [json.loads(line) for line in done.stdout.decode().splitlines()]
        return out, done.stderr.decode(errors="replace"), done.returncode


@pytest.fixture(scope="session")
def hand_built(workspace: Path, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[Callable[[str], HandBuilt]]:
    """``hand_built(language)``: the made bot of ``language`` built by hand as its README
    says, once per session (a failed build fails every test that asks for it)."""
    built: dict[str, HandBuilt | str] = {}
    scratch = tmp_path_factory.mktemp("hand-built")

    def build(language: str) -> HandBuilt:
        require_toolchain(language)
        if language not in built:
            folder = scratch / language
            shutil.copytree(workspace / "bots" / bot_name(language), folder)
            environment = build_environment(scratch)
            block = readme_blocks(folder)[0]
            done = subprocess.run(["bash", "-e", "-c", block], cwd=folder, env=environment,
                                  capture_output=True, text=True, timeout=BUILD_TIMEOUT)
            built[language] = (HandBuilt(folder, done.stdout, environment)
                               if done.returncode == 0 else
                               f"the README's block failed ({done.returncode}):\n{block}\n"
                               f"{done.stdout}{done.stderr}")
        result = built[language]
        if isinstance(result, str):
            pytest.fail(result)
        return result

    yield build
