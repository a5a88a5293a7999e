"""A bot server for the TCP transport tests: serves one bot script over TCP on loopback.

    python tcp_bot_server.py SCRIPT PORT_FILE

Listens on 127.0.0.1 (a free port, written to PORT_FILE); for every connection it starts
``SCRIPT`` with the socket as its stdin and stdout, so any bot (a zoo bot, a bundled bot)
speaks exactly as it would over pipes.  Runs until killed."""

import os
import socket
import subprocess
import sys
from pathlib import Path

script, port_file = Path(sys.argv[1]), Path(sys.argv[2])
server = socket.create_server(("127.0.0.1", 0))
temporary = port_file.with_suffix(".part")
temporary.write_text(str(server.getsockname()[1]))
os.replace(temporary, port_file)
children = []
while True:
    connection, _ = server.accept()
    children.append(subprocess.Popen([sys.executable, script.name], cwd=script.parent,
                                     stdin=connection.fileno(), stdout=connection.fileno()))
    connection.close()  # the child holds its own copy
    children = [child for child in children if child.poll() is None]
