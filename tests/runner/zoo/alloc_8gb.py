"""Asked to decide, allocates 8 GiB in 64 MiB blocks, every page used (a bytearray is
zero-filled): far over its memory limit, whatever the machine lets a process reserve."""
import sys

from _zoo import reply, serve


def on_request(request):
    print("allocating 8 GiB", file=sys.stderr, flush=True)
    hoard = [bytearray(64 << 20) for _ in range(128)]
    reply(request, len(hoard) % 1)


serve(on_request)
