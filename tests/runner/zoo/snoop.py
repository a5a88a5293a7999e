"""Reports in its reply comment what it can see and do: for the sandbox tests."""

import json
import os
import socket

from _zoo import send, serve


def probe():
    facts = {
        "cwd": os.getcwd(),
        "home": os.environ.get("HOME"),
        "env": sorted(os.environ),
        "sees_parent": os.path.exists("../toygame.py"),  # beside the zoo folder
        "sees_root_home": os.path.exists("/root/.bashrc"),
    }
    try:  # only the test markers: a busy /tmp would not fit in one stderr tail
        facts["tmp_list"] = sorted(n for n in os.listdir("/tmp")
                                   if n.startswith("arena-host-marker-"))
    except OSError:  # Landlock at level none
        facts["tmp_list"] = None
    try:
        with open("written-by-bot.txt", "w") as handle:
            handle.write("x")
        facts["writes_own_folder"] = True
        os.remove("written-by-bot.txt")
    except OSError:
        facts["writes_own_folder"] = False
    with open(os.path.join(os.environ["HOME"], "scratch.txt"), "w") as handle:
        facts["writes_home"] = handle.write("x") == 1
    # Any interface besides loopback means a network: checked without sending a packet
    # (tests never send traffic off this machine).
    facts["network"] = any(name != "lo" for _, name in socket.if_nameindex())
    return facts


def on_request(request):
    send({"type": "reply", "id": request["id"], "index": 0, "comment": json.dumps(probe())})


serve(on_request)
