from _zoo import reply, serve

count = 0


def on_request(request):
    global count
    count += 1
    if count == 2:
        raise RuntimeError("boom in the middle of the game")
    reply(request, 0)


serve(on_request)
