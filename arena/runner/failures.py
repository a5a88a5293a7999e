"""Why a bot failed: the reasons are fixed strings that go into game records and ratings."""

from __future__ import annotations

# reason -> what it means (docs/protocol.md has the same table)
REASONS: dict[str, str] = {
    "crash": "the process exited or was killed by a signal, or closed its output",
    "timeout": "no reply within the time allowed for a decision (or for the handshake)",
    "stall": "no pong to a ping between games, or stopped reading its input",
    "malformed": "a line that is not UTF-8 JSON, or a message of the wrong shape",
    "illegal": "a reply whose index is not one of the legal choices",
    "oversize": "a line longer than the maximum line length",
    "protocol": "a well-formed message that is wrong here: wrong id, wrong type, wrong version",
    "memory": "its processes together went over the memory limit (the kernel killed one)",
    "processes": "tried to run more processes at once than the limit allows",
    "cpu": "its processes together used more CPU time than the limit (cpu_seconds)",
    "forbidden": "made a system call the sandbox forbids (mount, ptrace, unshare, ...)",
}


class BotFailure(Exception):
    """A bot broke the rules of the protocol.  ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, detail: str) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown failure reason {reason!r}")
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        # set by the connection for a failure of a fresh bot before its ready: its
        # channel then looks at whether it died, and why (arena/runner/diagnosis.py)
        self.before_handshake = False
        self.output = b""  # the line it wrote instead of its ready, if any
