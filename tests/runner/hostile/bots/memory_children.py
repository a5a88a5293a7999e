"""Three children of 200 MB each: under a 256 MB limit per process, 600 MB in all."""
import os
import time

from _hostile import answer, play


def attack(request):
    for _ in range(3):
        if os.fork() == 0:
            block = bytearray(200 << 20)
            for i in range(0, len(block), 4096):  # really use it
                block[i] = 1
            time.sleep(600)
            os._exit(0)
    time.sleep(2)
    answer(request)


play(attack)
