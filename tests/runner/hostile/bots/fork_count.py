"""A fork bomb that counts: forks sleeping children until the system refuses, then says
how many it got in its reply's comment and plays on (the children sleep until the arena
ends the bot)."""
import os
import time

from _hostile import play, send


def attack(request):
    forked = 0
    for _ in range(400):
        try:
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
        except OSError:
            break
        forked += 1
    send({"type": "reply", "id": request["id"], "index": 0, "comment": f"forked {forked}"})


play(attack)
