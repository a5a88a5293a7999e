"""Keeps four processes busy for a second of wall time, then says how much CPU time they
used together (and whether it could widen its CPU affinity) in its reply's comment."""
import json
import os
import time

from _hostile import play, send


def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def attack(request):
    facts = {"affinity": len(os.sched_getaffinity(0))}
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
        facts["widened"] = len(os.sched_getaffinity(0))
    except OSError as error:
        facts["widened"] = f"refused: {error.errno}"
    before = os.times()
    started = time.monotonic()
    children = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            spin(1.0)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    after = os.times()
    facts["wall"] = time.monotonic() - started
    facts["cpu"] = (after.children_user - before.children_user
                    + after.children_system - before.children_system)
    send({"type": "reply", "id": request["id"], "index": 0, "comment": json.dumps(facts)})


play(attack)
