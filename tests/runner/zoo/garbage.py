import sys

from _zoo import serve


def on_request(request):
    print("my last words before the garbage", file=sys.stderr, flush=True)
    sys.stdout.write("I choose the second one, obviously!\n")
    sys.stdout.flush()


serve(on_request)
