"""Asks for something the protocol does not offer: a misspelt key in its wants."""

from _zoo import reply, serve

serve(lambda request: reply(request, 0),
      ready={"type": "ready", "name": "bad_wants", "version": "1", "protocol": "ra-arena/1",
             "wants": {"observations": False}})
