"""Writes 4 MiB to stderr, then its last words, then crashes."""
import sys

from _hostile import play


def attack(request):
    line = "noise " * 100 + "\n"
    for _ in range((4 << 20) // len(line)):
        sys.stderr.write(line)
    sys.stderr.write("the last words of the flood\n")
    sys.stderr.flush()
    sys.exit(5)


play(attack)
