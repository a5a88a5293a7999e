"""The server's routes, one APIRouter per area (FastAPI's layout for bigger
applications): ``api`` the JSON API, ``pages`` what anybody may read, ``account`` what a
logged-in person does (register, log in, tokens, uploads, their bots), ``admin``."""
