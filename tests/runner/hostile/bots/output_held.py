"""Exits while a child it started keeps its output open."""
import os
import sys
import time

from _hostile import play


def attack(request):
    if os.fork() == 0:
        time.sleep(600)
    sys.exit(7)


play(attack)
