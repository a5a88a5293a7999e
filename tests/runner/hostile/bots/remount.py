"""Remounts its read-only folder read-write and writes into it."""
import ctypes
import os

from _hostile import contained, escaped, libc, play

MS_REMOUNT, MS_BIND = 32, 4096


def attack(request):
    folder = os.getcwd().encode()
    result = libc.mount(None, folder, None, MS_REMOUNT | MS_BIND, None)
    error = ctypes.get_errno()
    try:
        with open("written-by-hostile-bot", "w") as handle:
            handle.write("x")
    except OSError as write_error:
        contained(f"mount {result} errno {error}; write: {write_error}")
    escaped(request, "wrote into its own read-only folder")


play(attack)
