"""Forks until it cannot, then plays on as if nothing happened."""
import os
import time

from _hostile import play


def attack(request):
    for _ in range(500):
        try:
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
        except OSError:
            break
    from _hostile import answer
    answer(request)


play(attack)
