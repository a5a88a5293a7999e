"""Writes kernel.core_pattern (code execution as root on the host) and sysrq."""
from _hostile import contained, escaped, play


def attack(request):
    errors = []
    for path in ("/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger"):
        try:
            with open(path, "w") as handle:
                handle.write("|/bin/false")
        except OSError as error:
            errors.append(f"{path}: {error.strerror} ({error.errno})")
        else:
            escaped(request, f"wrote {path}")
            return
    contained("; ".join(errors))


play(attack)
