import sys

from _zoo import reply, serve

LINE = b"flooding stderr " * 4096 + b"\n"  # 64 KiB


def on_request(request):
    for _ in range(80):  # 5 MiB per decision, while playing correctly
        sys.stderr.buffer.write(LINE)
    sys.stderr.flush()
    reply(request, 0)


serve(on_request)
