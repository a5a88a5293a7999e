"""Three children burn 0.6 CPU seconds each (each under a per-process limit of 1 s),
then the bot answers: 1.8 CPU seconds in all."""
import os
import time

from _hostile import answer, play


def attack(request):
    for _ in range(3):
        if os.fork() == 0:
            while time.process_time() < 0.6:
                pass
            os._exit(0)
    for _ in range(3):
        os.wait()
    answer(request)


play(attack)
