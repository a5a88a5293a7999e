"""Protocol helpers for the hostile bots: each makes its attack, then either reports
that it was contained (exit 1 with "contained: ..." on stderr) or that it escaped
("ESCAPED: ..." in a reply comment, which the tests look for)."""

import ctypes
import json
import sys

libc = ctypes.CDLL(None, use_errno=True)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def contained(what):
    print(f"contained: {what}", file=sys.stderr, flush=True)
    sys.exit(1)


def escaped(request, what):
    send({"type": "reply", "id": request["id"], "index": 0, "comment": f"ESCAPED: {what}"})


def play(attack=None, on_request=None):
    """Speak the protocol; ``attack(request)`` runs at the first request (it must
    not return normally unless it escaped); ``on_request`` answers the others."""
    attacked = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "ready", "name": "hostile", "version": "1",
                  "protocol": "ra-arena/1"})
        elif kind == "ping":
            send({"type": "pong", "id": message["id"]})
        elif kind == "request":
            if attack is not None and not attacked:
                attacked = True
                attack(message)
            else:
                (on_request or answer)(message)
        elif kind == "quit":
            return


def answer(request):
    send({"type": "reply", "id": request["id"], "index": 0})
