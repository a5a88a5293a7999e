"""Leaves a grandchild in a session of its own (a setsid double fork) at start, then
plays normally: what is left when the arena is killed with -9 must be swept."""
import os
import time

from _hostile import play

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        time.sleep(600)
    os._exit(0)
play()
