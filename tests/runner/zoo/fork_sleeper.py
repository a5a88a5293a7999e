import os
import sys
import time

from _zoo import serve

child = os.fork()
if child == 0:  # the child sleeps forever with the pipes closed
    os.close(0)
    os.close(1)
    os.close(2)
    while True:
        time.sleep(60)
print(f"forked child {child}", file=sys.stderr, flush=True)


def on_request(request):
    sys.exit(1)  # the parent dies at its first decision; the child must not survive


serve(on_request)
