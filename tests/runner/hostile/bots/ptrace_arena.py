"""Attaches to its parent with ptrace (to read the arena's memory)."""
import ctypes
import os

from _hostile import contained, escaped, libc, play

PTRACE_ATTACH = 16


def attack(request):
    if libc.ptrace(PTRACE_ATTACH, os.getppid(), None, None) != 0:
        contained(f"ptrace errno {ctypes.get_errno()}")
    escaped(request, "attached to its parent")


play(attack)
