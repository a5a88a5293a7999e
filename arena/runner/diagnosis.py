"""Why a bot died before its handshake, in one line: the one place that reads what a dead
bot left behind (how it ended, what it wrote on stdout and the start of its stderr, the
program it was asked to run) and names the likely cause.

A bot that never answers ``hello`` is most often one that cannot start here: a runtime
that cannot reserve its memory, an interpreter or a shared library that is not
installed (or not visible in the sandbox), a program built for another machine, a crash.
Without this the arena reported what it saw last ("malformed: not JSON: Error occurred
during initialization of VM"), which says nothing of the cause.  The process channel
(:mod:`arena.runner.process`) calls :func:`died_before_handshake` once the process has
ended, and :func:`could_not_start` when it could not even be started; ``arena
validate``, a league's failures and the server's pages show the detail they return.
"""

from __future__ import annotations

import errno
import os
import re
import signal
from collections.abc import Callable, Sequence
from pathlib import Path

# how a failure's detail begins when the bot died before its handshake (or could not be
# started at all): its stderr is then shown from its first lines
DIED = "died before its handshake"
NOT_STARTED = "could not start"
# the first lines of such a bot's stderr that are shown (then its last ones)
FIRST_STDERR_LINES = 6
# what a signal that ended a bot's process most likely means
SIGNAL_MEANINGS = {
    "SIGSEGV": "a segmentation fault: an invalid memory access",
    "SIGBUS": "a bus error: an invalid memory access",
    "SIGILL": "an illegal instruction: built for a newer processor?",
    "SIGFPE": "an arithmetic error, such as an integer division by zero",
    "SIGABRT": "it aborted: a failed assertion, or an uncaught C++ exception",
    "SIGKILL": "killed from outside: by the kernel, out of memory?",
    "SIGXCPU": "its CPU time ran out (cpu_seconds)",
    "SIGXFSZ": "it wrote a file larger than max_file_mb",
}
# ELF e_machine -> name (the common ones)
ELF_MACHINES = {3: "x86 (32-bit)", 40: "ARM (32-bit)", 62: "x86-64", 183: "ARM64 (aarch64)",
                243: "RISC-V"}
# a runtime's words when it cannot get memory it asked for (not the arena's limit
# stopping it: that is reason "memory"), and the runtime that says them
_NO_MEMORY = [
    ("the Java VM", re.compile(
        r"Could not reserve enough space for[^\n]*|Could not allocate compressed class "
        r"space[^\n]*|There is insufficient memory for the Java Runtime Environment[^\n]*"
        r"|Native memory allocation \(mmap\) failed[^\n]*|Failed to map memory[^\n]*")),
    ("Go's runtime", re.compile(r"runtime: cannot reserve arena virtual address space"
                                r"|fatal error: runtime: out of memory|runtime: out of "
                                r"memory[^\n]*")),
    ("Node.js", re.compile(r"Fatal process out of memory[^\n]*|JavaScript heap out of "
                           r"memory|Failed to reserve virtual memory[^\n]*")),
    ("Python", re.compile(r"^MemoryError\b[^\n]*", re.MULTILINE)),
    ("the C++ runtime", re.compile(r"std::bad_alloc")),
    ("Rust", re.compile(r"memory allocation of \d+ bytes failed")),
]
# what the sandbox's own launchers say when the bot's program cannot be run
_EXEC_FAILED = re.compile(r"(?:bwrap: execvp|setpriv: failed to execute|prlimit: failed to "
                          r"execute) (\S+): ([^\n]+)")
_ENV_MISSING = re.compile(r"env: [‘'\"]?([^’'\"\n]+?)[’'\"]?: No such file or directory")
_SHARED_LIBRARY = re.compile(r"error while loading shared libraries: ([^:\s]+): ([^\n]+)")
_PYTHON_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")
_NODE_MODULE = re.compile(r"Cannot find module '([^']+)'")
_JAVA_CLASS = re.compile(r"Could not find or load main class (\S+)")
_JAVA_VERSION = re.compile(r"UnsupportedClassVersionError[^\n]*?class file version "
                           r"([\d.]+)[^\n]*?up to ([\d.]+)")
_COMMAND_MISSING = re.compile(r"^\S+: (?:\d+: |line \d+: )?(?:exec: )?(\S+): (?:command )?not "
                              r"found$", re.MULTILINE)
_JVM_INIT = re.compile(r"Error occurred during initialization of VM\n([^\n]+)")
# an uncaught exception: Java's (its root cause last), else Python's or Node's last line
_JAVA_THROWN = re.compile(r'^(?:Exception in thread "main"|Caused by:) ([^\n]+)', re.MULTILINE)
_RAISED = re.compile(r"^((?:[A-Za-z_][\w.]*)?(?:Error|Exception)(?: \[\w+\])?: [^\n]+)$",
                     re.MULTILINE)
# a last line that says nothing of the failure (Node ends its report with its version)
_TRAILER = re.compile(r"^Node\.js v[\d.]+$")


def died_before_handshake(command: Sequence[str], folder: Path | None, path: str,
                          exit_code: int | None, signal_number: int, output: str,
                          stderr: str, memory_mb: int, address_space_mb: int) -> str:
    """The failure's detail for a bot process that ended before its handshake: the
    likely cause, then how it ended.  ``command`` is the bot's own argv (no sandbox
    prefix), run in ``folder`` with ``path`` as PATH; ``signal_number`` 0 when it
    exited; ``output`` what it wrote on stdout, ``stderr`` the start of its stderr."""
    ending = (f"killed by {_signal_name(signal_number)}" if signal_number
              else f"exited with code {exit_code}")
    cause = _cause(command, folder, path, exit_code, signal_number, output, stderr,
                   memory_mb, address_space_mb)
    return f"{DIED}: {cause}; {ending}"


def could_not_start(command: Sequence[str], folder: Path | None, path: str,
                    error: OSError) -> str:
    """The failure's detail for a bot whose program the arena could not start
    (level none: the exec itself failed)."""
    program = command[0] if command else "?"
    if error.errno == errno.ENOENT:
        cause = _missing_program(program, folder, path)
    elif error.errno == errno.ENOEXEC:
        cause = _not_runnable(program, folder, path)
    elif error.errno == errno.EACCES:
        cause = _not_permitted(program)
    else:
        cause = str(error)
    return f"{NOT_STARTED} {program!r}: {cause}"


def died_at_start(detail: str) -> bool:
    """Does this failure's detail (or a message quoting it) say the bot died before its
    handshake, or could not be started?"""
    return f"{DIED}: " in detail or detail.startswith(f"{NOT_STARTED} ") or \
        f": {NOT_STARTED} " in detail


def stderr_to_show(stderr: str, detail: str, last: int) -> list[str]:
    """The lines of a failure's stderr worth printing: for a bot that died before its
    handshake its first lines (a runtime says first why it cannot start) and, when
    there are more, its last ones; for any other failure its ``last`` lines."""
    lines = stderr.strip().splitlines()
    if not died_at_start(detail):
        return lines[-last:]
    if len(lines) <= FIRST_STDERR_LINES + last:
        return lines
    return [*lines[:FIRST_STDERR_LINES], "...", *lines[-last:]]


def _cause(command: Sequence[str], folder: Path | None, path: str, exit_code: int | None,
           signal_number: int, output: str, stderr: str, memory_mb: int,
           address_space_mb: int) -> str:
    text = f"{output}\n{stderr}"
    program = command[0] if command else "?"
    for runtime, words in _NO_MEMORY:
        if (found := words.search(text)) is not None:
            return (f"{runtime} could not reserve the memory it asked for ({found[0].strip()}):"
                    f" a bot may use {memory_mb} MiB and reserve {address_space_mb >> 10} GiB"
                    " of address space; leave the heap's size to the arena, which sizes it"
                    " from memory_mb")
    if (found := _SHARED_LIBRARY.search(text)) is not None:
        return (f"a shared library it needs is missing: {found[1]} ({found[2].strip()}); "
                "the bot sees this machine's /usr and /lib and its own folder: install the "
                "library, or link the program statically")
    if (found := _EXEC_FAILED.search(text)) is not None:
        what, problem = found[1], found[2]
        if "No such file" in problem:
            return _missing_program(what, folder, path, sandboxed=True)
        if "Permission denied" in problem:
            return _not_permitted(what)
        if "Exec format" in problem:
            return _not_runnable(what, folder, path)
    if (found := _ENV_MISSING.search(text)) is not None:
        return (f"its interpreter {found[1]} (named by a #!/usr/bin/env line) is not "
                f"installed, or not on the bot's PATH ({path})")
    if re.search(rf"^{re.escape(program)}: \d+: ", text, re.MULTILINE) and \
            not _runnable_here(_resolve(program, folder, path)):
        # the launcher's execvp ran a file it could not execute with /bin/sh
        return _not_runnable(program, folder, path)
    checks: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
        (_PYTHON_MODULE, lambda m: f"a Python module it imports is not installed for the "
                                   f"interpreter it runs: {m[1]}"),
        (_NODE_MODULE, lambda m: f"a Node.js module it requires is not found: {m[1]} (put "
                                 "node_modules in the bot's folder)"),
        (_JAVA_CLASS, lambda m: f"the Java VM finds no class {m[1]}: compile it with javac "
                                "and check that -cp names the folder of its .class files"),
        (_JAVA_VERSION, lambda m: f"its classes were compiled for a newer Java (class file "
                                  f"version {m[1]}) than this machine's (up to {m[2]}): "
                                  "compile with javac --release for this Java"),
        (_JVM_INIT, lambda m: f"the Java VM could not start: {m[1].strip()}"),
        (_COMMAND_MISSING, lambda m: f"a command it runs is not found: {m[1]} (the bot's "
                                     f"PATH is {path})"),
    ]
    for pattern, say in checks:
        if (found := pattern.search(text)) is not None:
            return say(found)
    if thrown := _JAVA_THROWN.findall(text):
        return f"it threw {thrown[-1].strip()[:200]}"
    if raised := _RAISED.findall(text):
        return f"it raised {raised[-1].strip()[:200]}"
    if not signal_number and exit_code is not None and 128 < exit_code < 160:
        signal_number = exit_code - 128  # a shell reports its child's signal so
        return f"a process it ran was killed by {_signal_words(signal_number)}"
    if signal_number:
        return f"it crashed: {_signal_words(signal_number)}"
    if exit_code == 0:
        said = _first_line(output)
        return ("it exited (code 0) without answering hello"
                + (f" (its first line on stdout: {said!r})" if said else "")
                + ": a bot reads its input line by line and answers hello with ready")
    if exit_code == 127:
        return "a command it runs was not found (exit code 127)"
    if exit_code == 126:
        return "a command it runs could not be run (exit code 126: not executable?)"
    last = _last_line(stderr) or _last_line(output)
    return f"its stderr ends: {last}" if last else "nothing on its stderr says why"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _signal_words(number: int) -> str:
    name = _signal_name(number)
    meaning = SIGNAL_MEANINGS.get(name)
    return f"{name} ({meaning})" if meaning else name


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:200] if lines else ""


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not _TRAILER.match(line.strip())]
    return lines[-1][:200] if lines else ""


def _resolve(program: str, folder: Path | None, path: str) -> Path | None:
    """The file ``program`` names, as the bot's launcher finds it (on this machine)."""
    if "/" in program:
        candidate = Path(program)
        if not candidate.is_absolute() and folder is not None:
            candidate = folder / candidate
        return candidate if candidate.exists() else None
    for directory in path.split(":"):
        candidate = Path(directory) / program
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _first_bytes(found: Path | None, count: int) -> bytes | None:
    """The first ``count`` bytes of a file (None: none there, or unreadable)."""
    if found is None:
        return None
    try:
        with open(found, "rb") as handle:
            return handle.read(count)
    except OSError:
        return None


def _file_kind(found: Path | None) -> str:
    """"elf", "script" (a #! line), "binary" (neither, not text), "text" or "missing"."""
    start = _first_bytes(found, 512)
    if start is None:
        return "missing"
    if start.startswith(b"\x7fELF"):
        return "elf"
    if start.startswith(b"#!"):
        return "script"
    return "binary" if b"\0" in start else "text"


def _runnable_here(found: Path | None) -> bool:
    """Could ``found`` be a program of this machine (text may be a shell script: yes)?
    No for an ELF file of another machine or cut short, or another binary file."""
    kind = _file_kind(found)
    header = _first_bytes(found, 64)
    if kind != "elf" or found is None or header is None:
        return kind != "binary"
    try:
        size = found.stat().st_size
    except OSError:
        return True
    wide = header[4:5] == b"\x02"  # ELFCLASS64
    if len(header) < (64 if wide else 52):
        return False

    def number(start: int, end: int) -> int:
        return int.from_bytes(header[start:end], "little" if header[5] == 1 else "big")

    offset = number(32, 40) if wide else number(28, 32)
    entry = number(54, 56) if wide else number(42, 44)
    count = number(56, 58) if wide else number(44, 46)
    machine, here = _elf_machine(found), _elf_machine(Path("/proc/self/exe"))
    return (machine == here or (here, machine) == (62, 3)) and offset + count * entry <= size


def _interpreter(found: Path) -> str | None:
    """The interpreter a script's #! line names, if any."""
    first = (_first_bytes(found, 512) or b"").split(b"\n", 1)[0]
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode(errors="replace").split()
    return parts[0] if parts else None


def _missing_program(program: str, folder: Path | None, path: str,
                     sandboxed: bool = False) -> str:
    found = _resolve(program, folder, path)
    if found is None:
        where = ("a program of its own folder is named ./NAME" if "/" not in program
                 else "it is not in the bot's folder")
        return (f"its program {program} is not found (not installed, or not on the bot's "
                f"PATH {path}; {where})")
    interpreter = _interpreter(found)
    if interpreter is not None and not os.path.exists(interpreter):
        return f"its interpreter {interpreter} (the #! line of {program}) is not installed"
    if sandboxed:
        what = f"its interpreter {interpreter}" if interpreter else f"its program {program}"
        return (f"{what} is not visible in the sandbox: a bot sees only /usr, /bin, /lib, "
                "the arena's Python and its own folder; install it under /usr")
    return f"its program {program} is not found"


def _not_runnable(program: str, folder: Path | None, path: str) -> str:
    found = _resolve(program, folder, path)
    kind = _file_kind(found)
    if kind == "elf" and found is not None:
        built_for = _elf_machine(found)
        here = ELF_MACHINES.get(_elf_machine(Path("/proc/self/exe")) or -1, os.uname().machine)
        if built_for is not None and built_for != _elf_machine(Path("/proc/self/exe")):
            return (f"its program {program} is built for "
                    f"{ELF_MACHINES.get(built_for, f'machine {built_for}')}, not for this "
                    f"machine ({here}): build it here")
        return (f"its program {program} is not a program this machine can run (Exec format "
                "error): damaged, or not built for Linux; build it here")
    if kind in ("text", "binary"):
        return (f"its program {program} is neither a program for this machine nor a script "
                "with a #! line (Exec format error): build it here, or start its first "
                "line with #! and its interpreter")
    return f"its program {program} cannot be run here (Exec format error)"


def _not_permitted(program: str) -> str:
    return (f"its program {program} may not be run (Permission denied): make it executable "
            "and readable by all (chmod a+rx)")


def _elf_machine(found: Path) -> int | None:
    header = _first_bytes(found, 20)
    if header is None or len(header) < 20 or not header.startswith(b"\x7fELF"):
        return None
    return int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")
