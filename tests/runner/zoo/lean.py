"""A good bot that asks for lean requests (no observation, no notifications); its comment
on each request lists the keys of that request and how many action notices it got."""

from _zoo import send, serve

actions = 0


def on_request(request):
    send({"type": "reply", "id": request["id"], "index": 0,
          "comment": f"{','.join(sorted(request))} actions={actions}"})


def on_other(message):
    global actions
    if message["type"] == "action":
        actions += 1


serve(on_request, on_other=on_other,
      ready={"type": "ready", "name": "lean", "version": "1", "protocol": "ra-arena/1",
             "wants": {"observation": False, "notifications": False}})
