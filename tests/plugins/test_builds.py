"""A manifest's build step with real toolchains: built once per content of the sources
and cached, built again when they change, a failed build's log shown and no cache entry
left, the sources never touched (validate, submit, a league), a missing build program
named in one line, ``arena build``; the contract the language templates rely on (javac,
go, rustc offline, in the sandbox).

Each test needs its toolchain: locally it is skipped, saying what to install; under
CI=true it fails instead (.ci/apt-packages lists them)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.plugins.builds import (
    BuildFailed,
    BuildReporter,
    ensure_built,
    find_built,
    is_built,
)
from arena.plugins.discovery import game_registry
from arena.plugins.manifest import load_manifest
from arena.runner.botspec import BotSpec

C_FIRST = Path(__file__).parent / "build_bots" / "c-first"
CI = os.environ.get("CI") == "true"


def needs(program: str, package: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(shutil.which(program) is None and not CI,
                              reason=f"{program} is not installed (apt-get install {package}; "
                              "under CI=true this fails instead)")


needs_gcc = needs("gcc", "gcc")


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The command line's build cache in this test's folder (XDG_CACHE_HOME)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "ra-arena" / "builds"


class Counting(BuildReporter):
    def __init__(self) -> None:
        self.builds = 0

    def building(self, *_args: object) -> None:
        self.builds += 1


def c_bot(where: Path, *, source: str | None = None, build: str | None = None) -> Path:
    folder = where / "c-first"
    shutil.copytree(C_FIRST, folder)
    if source is not None:
        (folder / "bot.c").write_text(source)
    if build is not None:
        manifest = folder / "bot.toml"
        manifest.write_text("\n".join(build if line.startswith("build =") else line
                                      for line in manifest.read_text().splitlines()) + "\n")
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def spec_of(folder: Path) -> BotSpec:
    return load_manifest(folder, game_registry().games)


def snapshot(folder: Path) -> dict[str, tuple[bytes | None, int, int]]:
    """Every entry of a folder: its bytes (None for a folder), mode and mtime."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        found[str(path.relative_to(folder))] = (
            None if path.is_dir() else path.read_bytes(), info.st_mode, info.st_mtime_ns)
    return found


@needs_gcc
def test_a_build_is_cached_and_a_second_run_builds_nothing(tmp_path: Path,
                                                           own_cache: Path) -> None:
    spec = spec_of(c_bot(tmp_path))
    assert spec.needs_build and not is_built(spec)
    reporter = Counting()
    built = ensure_built(spec, reporter=reporter)
    assert reporter.builds == 1
    assert built.folder == (own_cache / str(spec.content_hash) / "bot").resolve()
    assert built.content_hash == spec.content_hash and built.built_hash is not None
    assert os.access(built.folder / "bot", os.X_OK) and is_built(spec)
    again = ensure_built(spec, reporter=reporter)
    assert reporter.builds == 1  # nothing was built the second time
    assert again == built
    # the built copy belongs to the arena's user and no one may write it
    for path in [built.folder, *built.folder.rglob("*")]:
        info = path.lstat()
        assert info.st_uid == os.geteuid() and not info.st_mode & 0o222, path


@needs_gcc
def test_a_change_of_the_sources_builds_again(tmp_path: Path, own_cache: Path) -> None:
    folder = c_bot(tmp_path)
    reporter = Counting()
    first = ensure_built(spec_of(folder), reporter=reporter)
    (folder / "bot.c").write_text((folder / "bot.c").read_text() + "/* one more line */\n")
    second = ensure_built(spec_of(folder), reporter=reporter)
    assert reporter.builds == 2 and first.folder != second.folder
    assert first.content_hash != second.content_hash
    assert sorted(p.name for p in own_cache.iterdir() if len(p.name) == 64) == sorted(
        [str(first.content_hash), str(second.content_hash)])


@needs_gcc
def test_a_failed_build_shows_its_log_and_leaves_no_entry(tmp_path: Path,
                                                          own_cache: Path) -> None:
    spec = spec_of(c_bot(tmp_path, source="int main(void) { return nothing_here; }\n"))
    with pytest.raises(BuildFailed) as raised:
        ensure_built(spec)
    failure = raised.value
    assert failure.reason == "exited with code 1"
    assert str(failure).startswith("c-first: the build `gcc -O2 -o bot bot.c` failed: ")
    assert "nothing_here" in failure.log_tail and "error" in failure.log_tail
    assert failure.log_path is not None and "nothing_here" in failure.log_path.read_text()
    assert not (own_cache / str(spec.content_hash)).exists() and find_built(spec, own_cache) \
        is None
    assert not [p for p in own_cache.iterdir() if p.name.startswith(".staging")]


@needs_gcc
def test_a_build_that_does_not_make_what_the_command_runs_fails(tmp_path: Path,
                                                                own_cache: Path) -> None:
    spec = spec_of(c_bot(tmp_path, build='build = ["gcc", "-O2", "-o", "other", "bot.c"]'))
    with pytest.raises(BuildFailed) as raised:
        ensure_built(spec)
    assert raised.value.reason == ("it ended well but the bot cannot start: key 'command': "
                                   "executable './bot' not found (or not executable)")
    assert not (own_cache / str(spec.content_hash)).exists()


@needs_gcc
def test_a_damaged_cache_entry_is_built_again(tmp_path: Path) -> None:
    spec = spec_of(c_bot(tmp_path))
    reporter = Counting()
    built = ensure_built(spec, reporter=reporter)
    assert built.folder is not None
    program = built.folder / "bot"
    program.chmod(0o755)
    program.write_bytes(b"#!/bin/sh\necho tampered\n")
    assert find_built(spec, built.folder.parent.parent) is None  # its hash no longer fits
    rebuilt = ensure_built(spec, reporter=reporter)
    assert reporter.builds == 2 and rebuilt.built_hash == built.built_hash
    assert b"tampered" not in (rebuilt.folder / "bot").read_bytes()  # type: ignore[operator]


@needs_gcc
def test_two_processes_build_the_same_sources_once(tmp_path: Path) -> None:
    folder = c_bot(tmp_path, build='build = ["sh", "-c", "sleep 1 && gcc -O2 -o bot bot.c"]')
    script = ("import sys\nfrom pathlib import Path\n"
              "from arena.plugins.builds import BuildReporter, ensure_built\n"
              "from arena.plugins.discovery import game_registry\n"
              "from arena.plugins.manifest import load_manifest\n"
              "class Said(BuildReporter):\n"
              "    def building(self, *args): print('building', flush=True)\n"
              "spec = load_manifest(Path(sys.argv[1]), game_registry().games)\n"
              "print(ensure_built(spec, reporter=Said()).folder)\n")
    runs = [subprocess.Popen([sys.executable, "-c", script, str(folder)],
                             stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0]
    assert sum(output.count("building") for output in outputs) == 1, outputs
    assert len({output.splitlines()[-1] for output in outputs}) == 1  # the same copy


@needs_gcc
def test_validate_submit_and_a_league_never_change_the_sources(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = c_bot(tmp_path)
    before = snapshot(folder)
    assert main(["validate", str(folder), "--games", "1", "--game", "ra"]) == 0
    validated = capsys.readouterr()
    assert "building c-first 1.0.0: gcc -O2 -o bot bot.c" in validated.err
    assert "PASSED: c-first" in validated.out
    bots = tmp_path / "bots"
    assert main(["submit", str(folder), "--to", str(bots)]) == 0
    submitted = capsys.readouterr()
    assert "building" not in submitted.err  # validate built these very sources
    assert "installed c-first 1.0.0" in submitted.out
    league = tmp_path / "league.toml"
    league.write_text('name = "built"\ngame = "ra"\nplayers = 2\nresults_dir = "out"\n'
                      'roster = ["c-first", "random"]\nrounds = 1\n')
    monkeypatch.chdir(tmp_path)  # ./bots is where submit installed it
    assert main(["run", str(league), "--quiet"]) == 0
    played = capsys.readouterr()
    assert "building" not in played.err
    assert snapshot(folder) == before
    assert not (bots / "c-first" / "bot").exists()  # the installed copy is sources only


@needs_gcc
def test_a_league_builds_a_bot_that_has_no_current_build(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], own_cache: Path) -> None:
    folder = c_bot(tmp_path / "mine")
    before = snapshot(folder)
    league = tmp_path / "league.toml"
    league.write_text('name = "built"\ngame = "ra"\nplayers = 2\nresults_dir = "out"\n'
                      f'roster = ["c-first", "first"]\nrounds = 1\nbot_paths = ["{folder}"]\n')
    assert main(["run", str(league)]) == 0
    output = capsys.readouterr()
    assert "building c-first 1.0.0: gcc -O2 -o bot bot.c (sandbox " in output.err
    assert "built c-first in " in output.err
    assert "2 games of ra" in output.out + output.err
    assert is_built(spec_of(folder)) and snapshot(folder) == before
    from arena.league.store import open_store

    store = open_store(tmp_path / "out")
    try:  # the store knows the bot by its sources
        assert store.bots()["c-first"].content_hash == spec_of(folder).content_hash
        assert all(not result.failures for result in store.results())
    finally:
        store.close()


def test_arena_bots_names_a_missing_build_program_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = c_bot(tmp_path, build='build = ["no-such-compiler-8d1f", "bot.c"]')
    assert main(["bots", "--path", str(folder)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "c-first" in line)
    # (the table wraps its status column: the reason starts on the bot's own row)
    assert "key 'build': executable 'no-such-compiler-8d1f' not found" in row
    assert main(["bots", "--path", str(folder), "--json"]) == 0
    entry = next(bot for bot in json.loads(capsys.readouterr().out)["bots"]
                 if bot["name"] == "c-first")
    assert entry["ready"] is False and len(entry["problems"]) == 1
    assert entry["problems"][0] == (
        "key 'build': executable 'no-such-compiler-8d1f' not found on the bots' PATH "
        "(/usr/local/bin:/usr/bin:/bin)")


def test_a_known_toolchain_missing_is_named_with_its_package(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    from arena.plugins import manifest

    monkeypatch.setattr(manifest, "SAFE_PATH", str(tmp_path / "empty"))
    folder = c_bot(tmp_path, build='build = ["javac", "Bot.java"]')
    with pytest.raises(manifest.ManifestError) as raised:
        spec_of(folder)
    assert raised.value.problems == [
        f"key 'build': executable 'javac' not found on the bots' PATH ({tmp_path / 'empty'}): "
        "is it installed? (Debian: apt-get install default-jdk-headless)"]


def test_build_must_be_an_argv(tmp_path: Path) -> None:
    from arena.plugins.manifest import ManifestError

    for value, problem in (('"make"', "must be a list of strings"), ("[]", "empty")):
        folder = c_bot(tmp_path / value.strip('"[]') / "x", build=f"build = {value}")
        with pytest.raises(ManifestError) as raised:
            spec_of(folder)
        assert any(p.startswith("key 'build': ") and problem in p
                   for p in raised.value.problems), raised.value.problems


@needs_gcc
def test_arena_bots_says_whether_a_bot_is_built(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    folder = c_bot(tmp_path)
    assert main(["bots", "--path", str(folder)]) == 0
    assert "ready; not built yet" in capsys.readouterr().out
    ensure_built(spec_of(folder))
    assert main(["bots", "--path", str(folder)]) == 0
    assert "ready; built" in capsys.readouterr().out


@needs_gcc
def test_the_build_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = c_bot(tmp_path, build='build = ["sh", "-c", "echo compiling; gcc -o bot bot.c"]')
    assert main(["build", str(folder)]) == 0
    output = capsys.readouterr()
    assert "compiling" in output.err and "built c-first in" in output.err
    assert "built copy in" in output.out and "its sources are unchanged" in output.out
    assert main(["build", str(folder), "--log"]) == 0
    assert "compiling" in capsys.readouterr().out
    broken = c_bot(tmp_path / "broken", source="syntax error here\n")
    assert main(["build", str(broken)]) == 1
    said = capsys.readouterr().err
    assert "the build of c-first failed: exited with code 1" in said
    assert "syntax error" in said and "its whole log: " in said
    assert main(["build", str(broken), "--log"]) == 0  # the failed build's log is kept
    assert "syntax error" in capsys.readouterr().out


# --- the languages the templates use: their build contract, offline in the sandbox ----

def language_bot(where: Path, files: dict[str, str], build: str, command: str) -> Path:
    folder = where / "lang"
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (folder / "bot.toml").write_text(f'name = "lang"\nversion = "1"\nbuild = {build}\n'
                                     f'command = {command}\n\n[games]\nra = [2]\n')
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def built_and_runs(folder: Path, argv: list[str]) -> str:
    """Build the bot, check its sources are unchanged, run ``argv`` in its built copy."""
    before = snapshot(folder)
    built = ensure_built(spec_of(folder))
    assert snapshot(folder) == before
    assert built.folder is not None
    return subprocess.run(argv, cwd=built.folder, capture_output=True, text=True,
                          check=True, timeout=60).stdout


@needs("javac", "default-jdk-headless")
def test_java_builds_with_javac(tmp_path: Path) -> None:
    folder = language_bot(tmp_path, {"Bot.java": 'public class Bot { public static void '
                                     'main(String[] a) { System.out.println("java ok"); } }\n'},
                          '["javac", "-d", "classes", "Bot.java"]',
                          '["java", "-cp", "classes", "Bot"]')
    assert built_and_runs(folder, ["java", "-cp", "classes", "Bot"]) == "java ok\n"


@needs("go", "golang-go")
def test_go_builds_offline_with_its_caches_in_the_sandbox(tmp_path: Path) -> None:
    folder = language_bot(tmp_path, {
        "go.mod": "module bot\n\ngo 1.19\n",
        "main.go": 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("go ok") }\n'},
        '["go", "build", "-o", "bot", "."]', '["./bot"]')
    assert built_and_runs(folder, ["./bot"]) == "go ok\n"


@needs("go", "golang-go")
def test_go_cannot_download_a_module(tmp_path: Path) -> None:
    folder = language_bot(tmp_path, {
        "go.mod": "module bot\n\ngo 1.19\n",
        "main.go": 'package main\n\nfunc main() {}\n'},
        '["go", "mod", "download", "golang.org/x/text@v0.3.0"]', '["./bot"]')
    with pytest.raises(BuildFailed) as raised:
        ensure_built(spec_of(folder))
    assert "disabled by GOPROXY=off" in raised.value.log_tail, raised.value.log_tail


@needs("rustc", "rustc")
def test_rust_builds_with_rustc(tmp_path: Path) -> None:
    folder = language_bot(tmp_path, {"src/main.rs": 'fn main() { println!("rust ok"); }\n'},
                          '["rustc", "-O", "-o", "bot", "src/main.rs"]', '["./bot"]')
    assert built_and_runs(folder, ["./bot"]) == "rust ok\n"
    assert stat.S_IMODE((folder / "src" / "main.rs").stat().st_mode) == 0o644


@needs_gcc
def test_a_cluster_ships_the_built_copy_named_by_its_own_hash(tmp_path: Path) -> None:
    from arena.league.cluster_worker import pack_bot, unpack_bot
    from arena.plugins.manifest import content_hash

    built = ensure_built(spec_of(c_bot(tmp_path)))
    pack = pack_bot(built)
    assert pack.content_hash == built.built_hash != built.content_hash
    unpacked = unpack_bot(pack, tmp_path / "worker")  # checked against the hash there
    assert content_hash(unpacked) == built.built_hash and (unpacked / "bot").is_file()
