"""Answers its first request, closes its input and waits: the arena's next request has
no reader (under bwrap, bubblewrap's own processes still hold a copy of the pipe)."""
import os
import time

from _hostile import answer, play


def attack(request):
    answer(request)
    os.close(0)
    time.sleep(600)


play(attack)
