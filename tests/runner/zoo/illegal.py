from _zoo import reply, serve

serve(lambda request: reply(request, len(request["legal"]) + 5))
