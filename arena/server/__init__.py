"""``arena serve``: a self-hosted competition server (docs/server.md).

One trio program: the web app and JSON API (FastAPI, served by Hypercorn's trio worker),
the validation queue and the ladder (the league engine as a library), over one SQLite
file that holds the ladder's games and the server's own tables.
"""
