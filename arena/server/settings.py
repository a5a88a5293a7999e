"""The server folder's ``settings.toml``: read, checked, and written by ``serve init``.

Every problem names the file, the key and what is allowed (one ArenaError)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError, did_you_mean
from arena.tomlinput import TomlProblem, parse_toml

if TYPE_CHECKING:
    from arena.league.config import ClusterSettings

SETTINGS_NAME = "settings.toml"
SECRET_NAME = "secret.key"  # signs session cookies; mode 0600, never in the database
UPLOADS_NAME = "uploads"

DEFAULT_SETTINGS = """\
# Ra Arena server settings (docs/server.md).  Restart `arena serve` after a change.

[server]
database = ""               # "": SQLite in this folder; "postgresql://USER@HOST/DB": PostgreSQL
host = "127.0.0.1"          # loopback by default; another address needs TLS or --insecure
port = 8080
tls_cert = ""               # PEM certificate file (HTTPS); relative to this folder
tls_key = ""                # its private key
approval_required = false   # new accounts wait for an admin's approval
login_per_minute = 10       # attempts per client address (and per account)
register_per_hour = 5       # new accounts per client address
unsandboxed_ok = false      # start even without bubblewrap (uploaded bots then run as you)
idle_seconds = 5            # a connection that sends no whole request in this time is closed
request_seconds = 30        # a request body (an upload) must arrive whole within this time

[uploads]
max_archive_mb = 5          # the .tar.gz or .zip as sent
max_files = 200             # files in the unpacked bot
max_unpacked_mb = 20        # bytes in the unpacked bot
max_ratio = 50              # unpacked bytes / archive bytes (zip bombs)
uploads_per_day = 20        # versions per user per 24 hours
active_bots = 3             # bots per user that are not disabled

[validation]
games = 2                   # conformance games per player count of the ladder
move_seconds = 1.0          # time per decision, in validation and in the ladder

[ladder]
game = "ra"                 # fixed for the server's lifetime (its games are stored)
players = [3]               # player counts of the tables, in turn
concurrency = 2             # games at once
tables_per_minute = 60      # pace (0: as fast as it goes): each table is a few games
house_bots = ["random", "first"]   # bundled bots that always play (as arena/NAME)
rating_bootstrap = 50       # resamples for the leaderboard's 95% intervals
pause_window = 20           # a bot failing (crash, timeout, illegal move) in more than
pause_failures = 0.5        # this share of its last pause_window games is paused (1: never)
# version verdicts (docs/server.md): a new valid version meets its predecessor in two
# sequential tests: "stronger" (at least verdict_elo1 Elo above it rather than at most
# verdict_elo0), "weaker" (the mirror), "no clear difference" when both say "at most"
verdict_elo0 = 0            # Elo, 0 or more
verdict_elo1 = 50           # Elo, above verdict_elo0
verdict_alpha = 0.05        # chance of a false "stronger" (or "weaker"), below 0.5
verdict_beta = 0.05         # chance of missing a real difference of verdict_elo1, below 0.5
verdict_max_games = 1000    # games together without a decision: "inconclusive"

[cluster]                   # optional: the ladder's games on a Dask cluster (docs/cluster.md)
address = ""                # e.g. "tls://scheduler.example:8786"; "" plays on this machine
insecure = false            # allow plain tcp:// to another machine (bots are code: don't)
tls_ca_file = ""            # relative to this folder
tls_cert_file = ""
tls_key_file = ""
"""


@dataclass(frozen=True)
class ServerSettings:
    folder: Path
    database: str = ""  # "" SQLite in the folder, else a postgresql:// address
    host: str = "127.0.0.1"
    port: int = 8080
    tls_cert: str = ""
    tls_key: str = ""
    approval_required: bool = False
    login_per_minute: int = 10
    register_per_hour: int = 5
    unsandboxed_ok: bool = False
    idle_seconds: float = 5
    request_seconds: float = 30
    max_archive_mb: float = 5
    max_files: int = 200
    max_unpacked_mb: float = 20
    max_ratio: float = 50
    uploads_per_day: int = 20
    active_bots: int = 3
    games: int = 2
    move_seconds: float = 1.0
    game: str = "ra"
    players: tuple[int, ...] = (3,)
    concurrency: int = 2
    tables_per_minute: float = 60
    house_bots: tuple[str, ...] = ("random", "first")
    rating_bootstrap: int = 50
    pause_window: int = 20
    pause_failures: float = 0.5
    verdict_elo0: float = 0.0
    verdict_elo1: float = 50.0
    verdict_alpha: float = 0.05
    verdict_beta: float = 0.05
    verdict_max_games: int = 1000
    address: str = ""  # [cluster]
    insecure: bool = False
    tls_ca_file: str = ""
    tls_cert_file: str = ""
    tls_key_file: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def postgres(self) -> bool:
        """Whether the server's tables and games are in PostgreSQL."""
        return bool(self.database)

    @property
    def sqlite_path(self) -> Path:
        """The SQLite file of the server's tables and the ladder's games."""
        from arena.league.store import DB_NAME

        return self.folder / DB_NAME

    @property
    def uploads(self) -> Path:
        return self.folder / UPLOADS_NAME

    @property
    def tls(self) -> tuple[Path, Path] | None:
        if not self.tls_cert and not self.tls_key:
            return None
        return self.folder / self.tls_cert, self.folder / self.tls_key

    def cluster(self, address: str | None = None) -> ClusterSettings | None:
        """Where the ladder plays: the [cluster] table (``address`` overrides it, as
        ``arena serve --cluster`` does); None: on this machine.  The address is checked
        as ``arena run --cluster`` checks it (no plain TCP off this machine)."""
        from arena.league.cluster import check_address
        from arena.league.config import ClusterSettings

        address = address or self.address
        if not address:
            return None

        def path(name: str) -> Path | None:
            return self.folder / name if name else None

        settings = ClusterSettings(address, self.insecure, path(self.tls_ca_file),
                                   path(self.tls_cert_file), path(self.tls_key_file))
        check_address(settings)
        return settings

    @property
    def max_archive_bytes(self) -> int:
        return int(self.max_archive_mb * 1024 * 1024)

    @property
    def max_unpacked_bytes(self) -> int:
        return int(self.max_unpacked_mb * 1024 * 1024)


# section -> key -> (type, minimum)
_KEYS: dict[str, dict[str, tuple[type, float | None]]] = {
    "server": {"database": (str, None), "host": (str, None), "port": (int, 0),
               "tls_cert": (str, None),
               "tls_key": (str, None), "approval_required": (bool, None),
               "login_per_minute": (int, 1), "register_per_hour": (int, 1),
               "unsandboxed_ok": (bool, None), "idle_seconds": (float, 0.1),
               "request_seconds": (float, 0.1)},
    "uploads": {"max_archive_mb": (float, 0.001), "max_files": (int, 1),
                "max_unpacked_mb": (float, 0.001), "max_ratio": (float, 1),
                "uploads_per_day": (int, 0), "active_bots": (int, 0)},
    "validation": {"games": (int, 1), "move_seconds": (float, 0.01)},
    "ladder": {"game": (str, None), "players": (list, None), "concurrency": (int, 1),
               "tables_per_minute": (float, 0),
               "house_bots": (list, None), "rating_bootstrap": (int, 0),
               "pause_window": (int, 1), "pause_failures": (float, 0),
               "verdict_elo0": (float, 0), "verdict_elo1": (float, 0),
               "verdict_alpha": (float, None), "verdict_beta": (float, None),
               "verdict_max_games": (int, 1)},
    "cluster": {"address": (str, None), "insecure": (bool, None), "tls_ca_file": (str, None),
                "tls_cert_file": (str, None), "tls_key_file": (str, None)},
}


def load_settings(folder: Path) -> ServerSettings:
    """The settings of the server folder ``folder`` (ArenaError naming any problem)."""
    path = folder / SETTINGS_NAME
    if not path.is_file():
        raise ArenaError(f"{folder} is not a server folder (no {SETTINGS_NAME}); make one "
                         f"with `arena serve init {folder}`")
    try:
        data = parse_toml(path.read_text(encoding="utf-8"))
    except TomlProblem as problem:
        raise ArenaError(f"{path}: {problem}") from None
    values: dict[str, Any] = {}
    for section, table in data.items():
        if section not in _KEYS or not isinstance(table, dict):
            raise ArenaError(f"{path}: unknown section [{section}]"
                             f"{did_you_mean(section, _KEYS)}; allowed: {', '.join(_KEYS)}")
        for key, value in table.items():
            if key == "public_deals":  # a league's research option, never a contest's
                raise ArenaError(
                    f"{path}: key '{section}.public_deals': a server's deals are always "
                    "secret: with public deals every bot could compute the tiles and dice "
                    "to come (docs/security.md); remove the key")
            if key not in _KEYS[section]:
                raise ArenaError(f"{path}: key '{section}.{key}': unknown key"
                                 f"{did_you_mean(key, _KEYS[section])}; allowed here: "
                                 f"{', '.join(_KEYS[section])}")
            values[key] = _checked(path, f"{section}.{key}", value, *_KEYS[section][key])
    if "players" in values:
        players = values["players"]
        if not players or not all(isinstance(p, int) and 2 <= p <= 6 for p in players):
            raise ArenaError(f"{path}: key 'ladder.players': a list of player counts "
                             f"(2 to 6), not {players!r}")
        values["players"] = tuple(players)
    if "house_bots" in values:
        if not all(isinstance(b, str) for b in values["house_bots"]):
            raise ArenaError(f"{path}: key 'ladder.house_bots': a list of bundled bot names")
        values["house_bots"] = tuple(values["house_bots"])
    if values.get("pause_failures", 0) > 1:
        raise ArenaError(f"{path}: key 'ladder.pause_failures': a share of games from 0 to "
                         f"1 (1: never pause), not {values['pause_failures']!r}")
    settings = ServerSettings(folder=folder.resolve(), **values)
    if not settings.verdict_elo0 < settings.verdict_elo1:
        raise ArenaError(f"{path}: key 'ladder.verdict_elo1': must be above "
                         f"verdict_elo0 ({settings.verdict_elo0:g}), not "
                         f"{settings.verdict_elo1:g}")
    for key in ("verdict_alpha", "verdict_beta"):
        if not 0 < getattr(settings, key) < 0.5:
            raise ArenaError(f"{path}: key 'ladder.{key}': must be between 0 and 0.5 "
                             f"(exclusive), not {getattr(settings, key)!r}")
    if settings.database and not settings.database.startswith(("postgresql://",
                                                                 "postgres://")):
        raise ArenaError(f"{path}: key 'server.database': \"\" (SQLite in the server "
                         "folder) or a postgresql:// address, not "
                         f"{settings.database.split('@')[-1]!r}")
    if bool(settings.tls_cert) != bool(settings.tls_key):
        raise ArenaError(f"{path}: TLS needs both 'server.tls_cert' and 'server.tls_key'")
    return settings


def _checked(path: Path, key: str, value: Any, kind: type, low: float | None) -> Any:
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        ok, value = True, float(value)
    if not ok:
        raise ArenaError(f"{path}: key '{key}': must be {kind.__name__}, not {value!r}")
    if low is not None and value < low:
        raise ArenaError(f"{path}: key '{key}': must be at least {low:g}, not {value!r}")
    return value


def field_names() -> list[str]:
    return [f.name for f in fields(ServerSettings)]


def write_private(path: Path, data: bytes) -> None:
    """Write a new file readable by its owner only (never following a link)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)
