import sys

from _zoo import serve


def on_request(request):
    sys.stdout.write("I choose the second one, obviously!\n")
    sys.stdout.flush()


serve(on_request)
