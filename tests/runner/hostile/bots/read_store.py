"""Reads the league's store: by its path (the test puts it in target.txt) and through
every open file of every process it can see (/proc/PID/fd)."""
import contextlib
import os
import stat

from _hostile import contained, escaped, play


def attack(request):
    with open("target.txt") as handle:
        target = handle.read().strip()
    tried = [target]
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        with contextlib.suppress(OSError):
            tried += [f"/proc/{pid}/fd/{fd}" for fd in os.listdir(f"/proc/{pid}/fd")]
    for path in tried:
        try:
            # only files: a pipe (its own stdin, say) would block the read
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            data = os.read(descriptor, 100) if stat.S_ISREG(os.fstat(descriptor).st_mode) \
                else b""
        except OSError:
            data = b""
        finally:
            os.close(descriptor)
        if data.startswith(b"SQLite format 3"):
            escaped(request, f"read the store through {path}")
            return
    contained(f"tried {len(tried)} paths")


play(attack)
