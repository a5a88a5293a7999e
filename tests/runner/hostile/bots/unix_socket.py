"""Connects to a Unix socket of the machine (its path in target.txt), as a bot would to
the D-Bus session bus, an ssh-agent or X11; a socketpair of its own must still work."""
import socket

from _hostile import contained, escaped, play


def attack(request):
    left, right = socket.socketpair()
    left.sendall(b"x")
    assert right.recv(1) == b"x"
    with open("target.txt") as handle:
        path = handle.read().strip()
    try:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(path)
    except OSError as error:
        contained(f"unix socket: {error}")
    client.sendall(b"hello from a bot\n")
    escaped(request, f"connected to {path}")


play(attack)
