"""Connects to a server on the host's loopback (its port is in target.txt)."""
import socket

from _hostile import contained, escaped, play


def attack(request):
    with open("target.txt") as handle:
        port = int(handle.read())
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError as error:
        contained(f"connect: {error}")
    escaped(request, "reached the host's loopback")


play(attack)
