"""Makes a user and mount namespace of its own, to regain capabilities in it."""
import ctypes

from _hostile import contained, escaped, libc, play

CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000


def attack(request):
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        contained(f"unshare errno {ctypes.get_errno()}")
    escaped(request, "made a user namespace")


play(attack)
