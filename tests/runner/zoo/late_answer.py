import time

from _zoo import reply, serve


def on_request(request):
    time.sleep(1.0)  # the tests allow 0.3 s
    reply(request, 0)


serve(on_request)
