"""Leaves files in the machine's shared temporary folders, then crashes."""
import os

from _hostile import contained, play


def attack(request):
    made = []
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        path = os.path.join(folder, f"hostile-litter-{os.getpid()}")
        try:
            with open(path, "w") as handle:
                handle.write("left behind")
            made.append(path)
        except OSError:
            pass
    contained(f"littered {made}")


play(attack)
