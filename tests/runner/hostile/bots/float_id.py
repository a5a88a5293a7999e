"""Answers with the request's id as a float (1.0 for 1)."""
from _hostile import play, send


def reply(request):
    send({"type": "reply", "id": float(request["id"]), "index": 0})


play(on_request=reply)
