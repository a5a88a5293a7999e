"""Fills its temporary folder with files (memory, under a sandbox), then lingers."""
import os
import time

from _hostile import answer, play


def attack(request):
    chunk = b"x" * (1 << 20)
    try:
        for n in range(1000):
            with open(os.path.join(os.environ["TMPDIR"], f"fill-{n}"), "wb") as handle:
                for _ in range(16):
                    handle.write(chunk)
    except OSError:
        pass
    time.sleep(2)
    answer(request)


play(attack)
