from _zoo import reply, serve


def on_request(request):
    hoard = bytearray(8 << 30)  # 8 GiB: far above the address-space limit
    reply(request, len(hoard) % 1)


serve(on_request)
