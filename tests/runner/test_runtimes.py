"""Bots in the runtimes a class writes: a plain Java bot, a Go bot and a Node bot start
under the default limits at every level; whatever a bot reserves or asks for, its real
memory stays bounded (reason ``memory``, by the control group or, without one, the
arena's memory watch); and a bot that dies before its handshake is told why, with the
first lines of its stderr.

The programs are real: the Java and Go bots (tests/runner/runtimes/) are compiled here
into a temporary folder, the failing ones are made from this machine's own files.  A
missing javac, go or node skips a test, and fails it under CI=true (CI installs them)."""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.cli import main
from arena.plugins.conformance import ConformanceReport, check_bot
from arena.runner import cgroups, sandbox
from arena.runner.botspec import BotSpec
from arena.runner.players import random_player
from arena.runner.pool import open_bot_pool
from arena.runner.process import StderrLog
from arena.runner.referee import play_game

from .helpers import BOTS, FAST, SANDBOXES
from .toygame import NIM

SOURCES = Path(__file__).parent / "runtimes"
ROOT = os.geteuid() == 0
IN_CI = os.environ.get("CI") == "true"
# time for a JVM to start and allocate on a loaded machine; a small limit, quickly reached
BOMB_LIMITS = dataclasses.replace(FAST, handshake_seconds=20.0, move_seconds=20.0,
                                  memory_mb=512)
STARTING = dataclasses.replace(FAST, handshake_seconds=20.0)


# program -> the Debian package that has it (.ci/apt-packages lists them for CI)
PACKAGES = {"javac": "default-jdk-headless", "go": "golang-go", "node": "nodejs"}


def tool(name: str) -> str:
    """The path of a program the test needs: skipped without it, failed under CI."""
    found = shutil.which(name)
    if found is None:
        message = f"{name} is not installed (`apt-get install {PACKAGES[name]}`)"
        if IN_CI:
            pytest.fail(f"{message}; CI installs it")
        pytest.skip(message)
    return found


@pytest.fixture(params=["kernel", "watch"])
def accounting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
               ) -> Iterator[str]:
    """Who bounds the bot's memory: its control group ("kernel", where this machine has
    one; CI as root must), or the arena's memory watch (forced here: what a machine
    without usable cgroups gets, e.g. CI's run as nobody)."""
    sandbox.forget_probes()
    if request.param == "kernel":
        if not cgroups.detect().enforced:
            if ROOT and IN_CI:
                pytest.fail(f"CI runs as root with cgroups: {cgroups.detect().why}")
            pytest.skip(f"no per-bot control group here ({cgroups.detect().why})")
    else:
        monkeypatch.setattr(cgroups, "detect", functools.cache(
            lambda: cgroups.Accounting("rlimits", "the memory watch, forced by the test")))
    yield request.param
    sandbox.forget_probes()
    monkeypatch.undo()
    sandbox.forget_probes()


@pytest.fixture(scope="module")
def java_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Bot.class, compiled from tests/runner/runtimes/Bot.java."""
    javac = tool("javac")
    folder = tmp_path_factory.mktemp("java-classes")
    subprocess.run([javac, "-d", str(folder), str(SOURCES / "Bot.java")], check=True)
    return folder


@pytest.fixture(scope="module")
def go_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go bot, built from tests/runner/runtimes/bot.go."""
    go = tool("go")
    folder = tmp_path_factory.mktemp("go-build")
    shutil.copy(SOURCES / "bot.go", folder / "bot.go")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(folder), "GO111MODULE": "off",
           "GOCACHE": str(folder / "cache"), "GOPATH": str(folder / "path")}
    subprocess.run([go, "build", "-o", "bot", "bot.go"], cwd=folder, env=env, check=True)
    return folder / "bot"


def bot_folder(tmp_path: Path, name: str, command: list[str], files: dict[str, Path] | None
               = None, memory_mb: int | None = None) -> Path:
    """A bot folder (bot.toml claiming two-player Ra) readable by all, with ``files``."""
    folder = tmp_path / name
    folder.mkdir()
    for target, source in (files or {}).items():
        shutil.copy(source, folder / target)
    quoted = ", ".join(f'"{part}"' for part in command)
    resources = "" if memory_mb is None else f"\n[resources]\nmemory_mb = {memory_mb}\n"
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\ncommand = [{quoted}]\n'
                                     f"[games]\nra = [2]\n{resources}")
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755)
    return folder


def validate(folder: Path, level: str, capsys: pytest.CaptureFixture[str]) -> str:
    """``arena validate FOLDER`` at ``level`` with its defaults: its output, once passed."""
    code = main(["validate", str(folder), "--games", "1", "--sandbox", level])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "PASSED" in out.splitlines()[-1]
    return out


def java_classes_folder(tmp_path: Path, classes: Path, name: str, *flags: str) -> Path:
    return bot_folder(tmp_path, name, ["java", *flags, "-cp", ".", "Bot"],
                      {"Bot.class": classes / "Bot.class"})


# ------------------------------------------------------------------ runtimes start

@pytest.mark.parametrize("level", SANDBOXES)
def test_a_plain_java_bot_validates_with_no_flag_of_its_own(
        tmp_path: Path, level: str, accounting: str, java_classes: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the JVM reserves about 3.5 GiB of address space for a 1 GiB heap: under the old
    # RLIMIT_AS of 2048 MiB it could not start ("Error occurred during initialization
    # of VM", read as malformed JSON)
    folder = java_classes_folder(tmp_path, java_classes, "java-bot")
    validate(folder, level, capsys)


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_go_bot_and_a_node_bot_start_under_a_small_limit(
        tmp_path: Path, level: str, go_program: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    tool("node")
    go_bot = bot_folder(tmp_path, "go-bot", ["./bot"], {"bot": go_program}, memory_mb=256)
    validate(go_bot, level, capsys)
    # Node reserves about 1 GiB of address space at its start, more than the bot's 256 MiB
    node_bot = bot_folder(tmp_path, "node-bot", ["node", "bot.js"],
                          {"bot.js": BOTS / "random-js" / "bot.js"}, memory_mb=256)
    validate(node_bot, level, capsys)


def test_managed_runtimes_are_sized_by_the_bots_limits() -> None:
    limits = dataclasses.replace(FAST, memory_mb=512, cores=2)
    env = sandbox.runtime_environment(limits)
    assert "-XX:MaxRAM=512m" in env["JAVA_TOOL_OPTIONS"]
    assert "-XX:ActiveProcessorCount=2" in env["JAVA_TOOL_OPTIONS"]
    assert env["GOMEMLIMIT"] == "384MiB" and env["GOMAXPROCS"] == "2"
    assert env["NODE_OPTIONS"] == "--max-old-space-size=256 --v8-pool-size=2"
    # the address-space limit is only a backstop, far above what a bot may use
    assert sandbox.address_space_backstop(limits) == 32 << 30
    assert sandbox.address_space_backstop(dataclasses.replace(limits, memory_mb=4096)) \
        == 64 << 30


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_bots_own_java_flags_override_the_arenas(tmp_path: Path, level: str,
                                                    java_classes: Path) -> None:
    # another collector than the one the JVM picks for one core, and a heap of its own
    folder = java_classes_folder(tmp_path, java_classes, "java-flags", "-XX:+UseParallelGC",
                                 "-Xmx300m")
    report = run_validation(BotSpec(
        name="java-flags", version="1", command=("java", "-XX:+UseParallelGC", "-Xmx300m",
                                                 "-cp", ".", "Bot"),
        folder=folder, games={"nim": (2,)}, source="test"), level)
    assert report.passed, report.violations


# ------------------------------------------------------------------ memory stays bounded

def bomb_spec(tmp_path: Path, runtime: str, java_classes: Path | None = None,
              go_program: Path | None = None) -> BotSpec:
    if runtime == "java":
        assert java_classes is not None
        folder = java_classes_folder(tmp_path, java_classes, "java-bomb")
        command: tuple[str, ...] = ("java", "-Xmx8g", "-cp", ".", "Bot", "bomb")
    elif runtime == "go":
        assert go_program is not None
        folder = bot_folder(tmp_path, "go-bomb", ["./bot"], {"bot": go_program})
        command = ("./bot", "bomb")
    else:
        zoo = Path(__file__).parent / "zoo"
        command = ("{python}", "bot.py")
        folder = bot_folder(tmp_path, "python-bomb", list(command),
                            {"_zoo.py": zoo / "_zoo.py", "bot.py": zoo / "alloc_8gb.py"})
    return BotSpec(name=f"{runtime}-bomb", version="1", command=command, folder=folder,
                   games={"nim": (2,)}, source="test")


def play_one(spec: BotSpec, limits: Any) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with open_bot_pool(limits) as pool, pool.seated([spec]) as (bot,):
            outcome = await play_game(NIM, [bot, random_player()], 1, limits=limits)
        return outcome.playthrough_json()

    return trio.run(main)


@pytest.mark.parametrize("runtime", ["java", "go", "python"])
@pytest.mark.parametrize("level", SANDBOXES)
def test_memory_bombs_are_stopped_with_reason_memory(
        tmp_path: Path, level: str, accounting: str, runtime: str,
        request: pytest.FixtureRequest) -> None:
    # the Java bomb asks for an 8 GiB heap itself; each allocates 8 GiB and uses it
    programs = {"java_classes": request.getfixturevalue("java_classes")} \
        if runtime == "java" else {"go_program": request.getfixturevalue("go_program")} \
        if runtime == "go" else {}
    spec = bomb_spec(tmp_path, runtime, **programs)
    record = play_one(spec, dataclasses.replace(BOMB_LIMITS, sandbox=level))
    (failure,) = record["failures"]
    assert (failure["reason"], failure["phase"]) == ("memory", "decision"), failure
    assert "went over its memory limit of 512 MiB" in failure["detail"]
    if accounting == "watch":
        assert "memory watch" in failure["detail"]
    assert "allocating 8 GiB" in failure["stderr_tail"]


@pytest.mark.parametrize("level", SANDBOXES)
def test_the_memory_watch_finds_a_process_that_left_the_tree(
        tmp_path: Path, level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A setsid double fork: the grandchild's parent is gone, init (or the sandbox's)
    takes it; at none the watch finds it by the bot's uid (root) or user namespace."""
    zoo = Path(__file__).parent / "zoo"
    folder = tmp_path / "runaway"
    folder.mkdir()
    shutil.copy(zoo / "_zoo.py", folder / "_zoo.py")
    (folder / "bot.py").write_text(
        "import os, sys, time\n"
        "from _zoo import reply, serve\n"
        "def on_request(request):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        if os.fork() == 0:\n"
        "            print('allocating in the grandchild', file=sys.stderr, flush=True)\n"
        "            block = bytearray(300 << 20)\n"
        "            time.sleep(60)\n"
        "        os._exit(0)\n"
        "    time.sleep(5)\n"
        "    reply(request, 0)\n"
        "serve(on_request)\n")
    sandbox.forget_probes()
    monkeypatch.setattr(cgroups, "detect", functools.cache(
        lambda: cgroups.Accounting("rlimits", "the memory watch, forced by the test")))
    try:
        record = play_one(spec_in(folder, "{python}", "bot.py"),
                          dataclasses.replace(BOMB_LIMITS, sandbox=level, memory_mb=256))
    finally:
        monkeypatch.undo()
        sandbox.forget_probes()
    (failure,) = record["failures"]
    assert failure["reason"] == "memory", failure
    assert "memory watch" in failure["detail"]


def test_the_memory_watch_never_takes_the_machines_tmp_for_the_bots() -> None:
    """Under bwrap the watch reads the bot's private /tmp through a process inside the
    sandbox; a process still setting it up sees the machine's /tmp, which is not the
    bot's (read as the bot's, a Go bot once went "over" at 29 GiB)."""
    import tempfile

    with tempfile.NamedTemporaryFile(dir="/tmp") as filler:
        filler.write(b"x" * (24 << 20))  # the machine's /tmp holds at least 24 MiB
        filler.flush()
        shell = subprocess.Popen(["sh", "-c", "sleep 30; true"], start_new_session=True)
        try:
            time.sleep(0.2)  # its child, sleep, started
            watch = cgroups.MemoryWatch(16)
            watch.start(shell.pid, private_tmp=True)
            assert not watch.look(), watch.over
            assert len(watch.processes) == 2
        finally:
            os.killpg(shell.pid, 9)
            shell.wait()


@pytest.mark.parametrize("children_files", [True, False])
def test_the_memory_watch_counts_every_process_of_the_bot(
        tmp_path: Path, children_files: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three children of 100 MiB and the parent: the sum is over 400 MiB, each is not;
    pages the children share with the parent (forked, never written) count once.  The
    children are found through /proc/PID/task/TID/children, or without those files (a
    kernel built without them) from every process's parent."""
    monkeypatch.setattr(cgroups, "_CHILDREN_FILES", children_files)
    script = tmp_path / "family.py"
    script.write_text(
        "import os, sys, time\n"
        "shared = bytearray(150 << 20)  # every child has it too, unwritten: counted once\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0:\n"
        "        own = bytearray(100 << 20)\n"
        "        time.sleep(60)\n"
        "        os._exit(0)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n")
    family = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                              start_new_session=True)
    try:
        assert family.stdout is not None and family.stdout.readline() == b"ready\n"
        heavy = cgroups.MemoryWatch(400)
        heavy.start(family.pid)
        for _ in range(100):  # the children may still be filling their blocks
            if heavy.look():
                break
            time.sleep(0.05)
        assert len(heavy.processes) == 4
        assert heavy.over is not None and "memory limit of 400 MiB" in heavy.over
        # resident sizes add up to about 1 GiB (the shared block four times), what the
        # family really uses to about 500 MiB
        shared_once = cgroups.MemoryWatch(800)
        shared_once.start(family.pid)
        assert not shared_once.look()
    finally:
        os.killpg(family.pid, 9)
        family.wait()


# ------------------------------------------------------------------ dying before the handshake

def run_validation(spec: BotSpec, level: str) -> ConformanceReport:
    async def main() -> ConformanceReport:
        return await check_bot(spec, {"nim": NIM}, [], games_per_setting=1,
                               limits=dataclasses.replace(STARTING, sandbox=level),
                               max_violations=1)

    return trio.run(main)


def dies_at_start(spec: BotSpec, level: str) -> tuple[str, str, str]:
    """Validate a bot that cannot start: the handshake's (reason, detail, stderr)."""
    report = run_validation(spec, level)
    (violation,) = report.violations
    assert violation.check == "handshake", violation
    return violation.reason, violation.detail, violation.stderr_tail


def spec_in(folder: Path, *command: str) -> BotSpec:
    """A bot in ``folder`` (made if need be, readable by all) started by ``command``."""
    folder.mkdir(exist_ok=True)
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755)
    return BotSpec(name=folder.name, version="1", command=command, folder=folder,
                   games={"nim": (2,)}, source="test")


def machine_file(tmp_path: Path, name: str, change: Any) -> Path:
    """A copy of this machine's /bin/true, changed by ``change(bytes) -> bytes``."""
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    original = Path(os.path.realpath("/bin/true")).read_bytes()
    changed = change(original)
    assert changed != original, "this machine's /bin/true is not what the test expects"
    (folder / "bot").write_bytes(changed)
    return folder


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_jvm_that_cannot_reserve_its_heap_is_told_so(tmp_path: Path, level: str,
                                                        java_classes: Path) -> None:
    # 64 GiB of heap: more than a bot may reserve (the address-space backstop, 32 GiB)
    folder = java_classes_folder(tmp_path, java_classes, "java-huge", "-Xmx64g")
    reason, detail, stderr = dies_at_start(spec_in(folder, "java", "-Xmx64g", "-cp", ".",
                                                   "Bot"), level)
    assert reason == "crash"
    assert detail.startswith("died before its handshake: the Java VM could not reserve the "
                             "memory it asked for (Could not reserve enough space for ")
    assert detail.endswith("exited with code 1")
    assert "not JSON" not in detail
    # the first lines of its stderr: what the JVM said, and the arena's settings
    assert "Error occurred during initialization of VM" in stderr
    assert "Picked up JAVA_TOOL_OPTIONS: -XX:MaxRAM=2048m" in stderr


def test_validate_prints_the_cause_and_the_first_lines_of_stderr(
        tmp_path: Path, java_classes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = java_classes_folder(tmp_path, java_classes, "java-huge", "-Xmx64g")
    assert main(["validate", str(folder), "--sandbox", "none"]) == 1
    out = capsys.readouterr().out
    assert "  handshake: crash: died before its handshake: the Java VM could not reserve the " \
        "memory it asked for" in out
    shown = [line.strip() for line in out.splitlines() if line.startswith("      stderr: ")]
    assert shown[:3] == ["stderr: Picked up JAVA_TOOL_OPTIONS: -XX:MaxRAM=2048m "
                         "-XX:MaxRAMPercentage=50 -XX:ActiveProcessorCount=1 -XX:-UsePerfData "
                         "-XX:+DisplayVMOutputToStderr -XX:+ErrorFileToStderr",
                         "stderr: Error occurred during initialization of VM",
                         "stderr: Could not reserve enough space for 67108864KB object heap"]


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_missing_interpreter_is_named(tmp_path: Path, level: str) -> None:
    reason, detail, stderr = dies_at_start(
        spec_in(tmp_path / "no-interpreter", "sh", "-c", "exec python9 bot.py"), level)
    assert reason == "crash"
    assert detail.startswith("died before its handshake: a command it runs is not found: "
                             "python9 (the bot's PATH is /usr/local/bin:/usr/bin:/bin)")
    assert "python9: not found" in stderr


@pytest.mark.parametrize("level", SANDBOXES[1:])  # bwrap: what the sandbox does not show
def test_an_interpreter_outside_the_sandbox_is_named(tmp_path: Path, level: str) -> None:
    # installed on the machine (here: a link in a private folder), invisible in the sandbox
    elsewhere = tmp_path / "opt"
    elsewhere.mkdir()
    (elsewhere / "python").symlink_to(sys.executable)
    folder = tmp_path / "hidden-interpreter"
    folder.mkdir()
    (folder / "bot.py").write_text(f"#!{elsewhere / 'python'}\nprint('never')\n")
    reason, detail, _ = dies_at_start(spec_in(folder, "./bot.py"), level)
    assert reason == "crash"
    assert detail.startswith(f"died before its handshake: its interpreter {elsewhere}/python "
                             "is not visible in the sandbox")


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_missing_shared_library_is_named(tmp_path: Path, level: str) -> None:
    # this machine's /bin/true, asking for libz.so.9 instead of the C library
    folder = machine_file(tmp_path, "no-library",
                          lambda data: data.replace(b"libc.so.6\0", b"libz.so.9\0"))
    reason, detail, stderr = dies_at_start(spec_in(folder, "./bot"), level)
    assert reason == "crash"
    assert detail.startswith("died before its handshake: a shared library it needs is "
                             "missing: libz.so.9")
    assert detail.endswith("exited with code 127")
    assert "error while loading shared libraries: libz.so.9" in stderr


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_program_for_another_machine_is_named(tmp_path: Path, level: str) -> None:
    here = int.from_bytes(Path("/proc/self/exe").read_bytes()[18:20], "little")
    other = 183 if here != 183 else 62  # ARM64, or x86-64 on an ARM64 machine

    def built_elsewhere(data: bytes) -> bytes:
        return data[:18] + other.to_bytes(2, "little") + data[20:]

    folder = machine_file(tmp_path, "other-machine", built_elsewhere)
    reason, detail, _ = dies_at_start(spec_in(folder, "./bot"), level)
    assert reason == "crash"
    name = "ARM64 (aarch64)" if other == 183 else "x86-64"
    assert f"its program ./bot is built for {name}, not for this machine" in detail
    # at none the arena itself cannot start it; under bwrap the sandbox starts and fails
    assert detail.startswith("could not start './bot'" if level == "none"
                             else "died before its handshake")


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_crash_before_the_handshake_names_the_signal(tmp_path: Path, level: str) -> None:
    segfault = spec_in(tmp_path / "segfault", "{python}", "-c",
                       "import ctypes; ctypes.string_at(0)")
    reason, detail, _ = dies_at_start(segfault, level)
    assert reason == "crash"
    assert detail == ("died before its handshake: it crashed: SIGSEGV (a segmentation "
                      "fault: an invalid memory access); killed by SIGSEGV")


@pytest.mark.parametrize("level", SANDBOXES)
def test_a_missing_python_module_and_an_early_exit_are_named(tmp_path: Path, level: str
                                                              ) -> None:
    folder = tmp_path / "no-module"
    folder.mkdir()
    (folder / "bot.py").write_text("import numpy_of_the_future\n")
    reason, detail, stderr = dies_at_start(spec_in(folder, "{python}", "bot.py"), level)
    assert detail.startswith("died before its handshake: a Python module it imports is not "
                             "installed for the interpreter it runs: numpy_of_the_future")
    assert stderr.startswith("Traceback (most recent call last):")
    folder = tmp_path / "banner"
    folder.mkdir()
    (folder / "bot.py").write_text("print('Welcome to my bot!')\n")
    reason, detail, _ = dies_at_start(spec_in(folder, "{python}", "bot.py"), level)
    assert detail == ("died before its handshake: it exited (code 0) without answering hello "
                      "(its first line on stdout: 'Welcome to my bot!'): a bot reads its input "
                      "line by line and answers hello with ready; exited with code 0")


def test_an_uncaught_exception_is_named(tmp_path: Path, java_classes: Path) -> None:
    folder = java_classes_folder(tmp_path, java_classes, "java-throws")
    _, detail, _ = dies_at_start(spec_in(folder, "java", "-cp", ".", "Bot", "throw"), "none")
    assert detail == ("died before its handshake: it threw java.lang.IllegalStateException: "
                      "no board yet; exited with code 1")
    tool("node")
    folder = tmp_path / "node-throws"
    folder.mkdir()
    (folder / "bot.js").write_text("const board = undefined;\nboard.tiles;\n")
    _, detail, stderr = dies_at_start(spec_in(folder, "node", "bot.js"), "none")
    assert detail == ("died before its handshake: it raised TypeError: Cannot read properties "
                      "of undefined (reading 'tiles'); exited with code 1")
    assert stderr.rstrip().splitlines()[-1].startswith("Node.js v")


def test_a_bot_that_prints_before_its_ready_and_lives_is_still_malformed(tmp_path: Path
                                                                          ) -> None:
    folder = tmp_path / "chatty"
    folder.mkdir()
    (folder / "bot.py").write_text("import time\nprint('hello there', flush=True)\n"
                                   "time.sleep(30)\n")
    reason, detail, _ = dies_at_start(spec_in(folder, "{python}", "bot.py"), "none")
    assert (reason, detail) == ("malformed", "not JSON: hello there (Expecting value: line "
                                             "1 column 1 (char 0))")


def test_a_game_records_the_diagnosis_of_a_bot_that_cannot_start(tmp_path: Path) -> None:
    folder = tmp_path / "game"
    folder.mkdir()
    record = play_one(spec_in(folder, "sh", "-c", "echo starting >&2; exec python9"),
                      STARTING)
    (failure,) = record["failures"]
    assert (failure["reason"], failure["phase"]) == ("crash", "start")
    assert failure["detail"].startswith("died before its handshake: a command it runs is "
                                        "not found: python9")
    assert failure["stderr_tail"].startswith("starting\n")


def test_the_stderr_excerpt_keeps_the_first_lines_and_the_last() -> None:
    log = StderrLog(None, cap=1 << 20, tail=4096)
    log.add(b"Error occurred during initialization of VM\n")
    log.add(b"x" * 100_000)
    log.add(b"\nthe last line\n")
    excerpt = log.excerpt()
    assert excerpt.startswith("Error occurred during initialization of VM\n")
    assert excerpt.endswith("the last line\n")
    assert "bytes of stderr left out here]" in excerpt
    assert len(excerpt) < 4200
    short = StderrLog(None, cap=1 << 20, tail=4096)
    short.add(b"all of it\n")
    assert short.excerpt() == "all of it\n"


def test_a_leagues_failure_list_and_report_say_why_a_bot_could_not_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    folder = bot_folder(bots, "no-module", ["{python}", "bot.py"])
    (folder / "bot.py").write_text("import sys\nprint('starting up', file=sys.stderr)\n"
                                   "import numpy_of_the_future\n")
    (folder / "bot.py").chmod(0o644)
    league = tmp_path / "league.toml"
    league.write_text('name = "t"\ngame = "ra"\nplayers = 2\nroster = ["first", "no-module"]\n'
                      f'rounds = 1\nresults_dir = "out"\nbot_paths = ["{bots}"]\n'
                      "[time]\nhandshake = 20\n")
    assert main(["run", str(league), "--quiet"]) == 0
    capsys.readouterr()
    cause = ("died before its handshake: a Python module it imports is not installed for "
             "the interpreter it runs")
    assert main(["games", str(league), "--failed"]) == 0
    out = capsys.readouterr().out
    assert out.count(f"no-module: crash: {cause}") == 2  # both games, one line each
    report = tmp_path / "report.html"
    assert main(["report", str(league), "-o", str(report), "--no-replays"]) == 0
    page = report.read_text()
    assert "Why bots could not start" in page
    assert f"crash in 2 games: {cause}: numpy_of_the_future; exited with code 1" in page
    assert "starting up" in page  # the first line of its stderr
