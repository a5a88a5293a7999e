"""A setsid double fork: a grandchild in a session of its own, outside the process
group; it says its pid on stderr, and the bot then crashes."""
import os
import sys
import time

from _hostile import contained, play


def attack(request):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            print(f"grandchild {os.getpid()}", file=sys.stderr, flush=True)
            for fd in (0, 1, 2):
                os.close(fd)
            time.sleep(600)
        os._exit(0)
    time.sleep(0.3)
    contained("the parent leaves")


play(attack)
