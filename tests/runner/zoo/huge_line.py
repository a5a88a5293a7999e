import sys

from _zoo import serve

CHUNK = b"x" * (1 << 20)


def on_request(request):
    for _ in range(100):  # 100 MB without a newline, then one
        sys.stdout.buffer.write(CHUNK)
    sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()


serve(on_request)
