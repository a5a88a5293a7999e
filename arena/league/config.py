"""The league file: a TOML document describing one league (see docs/leagues.md).

``load_league(path)`` reads and validates it into a frozen :class:`LeagueConfig`.  Every
problem is an :class:`ArenaError` naming the file, the key and what is allowed, so a user
never sees a traceback for a typo.  Nothing here starts a process or touches the results.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, did_you_mean
from arena.package_data import package_folder
from arena.settings import (
    LIMIT_KEYS,
    MAX_SEED,
    SANDBOX_LEVELS,
    TIME_KEYS,
    Limits,
    from_league_file,
    league_file_limits,
    league_file_time,
    usable_cores,
)
from arena.tomlinput import TomlProblem, decode_toml, parse_toml

# the formats whose schedule is made in advance and that a [stop] test can follow; every
# format, these and Swiss, knockout, ladder or a plugin's, is an object found by name
# through the plugin hook arena_register_formats (arena/league/formats.py)
SCHEDULE_FORMATS = ("round-robin", "gauntlet")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
CLUSTER_KEYS = ("address", "insecure", "tls_ca_file", "tls_cert_file", "tls_key_file",
                "chunk_seconds")
TOP_KEYS = (
    "name", "game", "players", "roster", "format", "challenger", "rounds", "seed",
    "max_games", "concurrency", "workers", "results_dir", "bot_paths", "options", "time",
    "limits", "rating", "cluster", "stop", "public_deals",
)
STOP_TESTS = ("sprt", "gauntlet")


@dataclass(frozen=True)
class ClusterSettings:
    """The ``[cluster]`` table of a league file, or ``--cluster``/``--insecure``."""

    address: str
    insecure: bool = False  # allow a non-loopback address without TLS
    tls_ca_file: Path | None = None
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    chunk_seconds: float = 2.0  # a worker's time per task

    def security(self) -> Any:
        """Dask's own :class:`distributed.security.Security` for these settings."""
        from distributed.security import Security

        if self.tls_ca_file is None and self.tls_cert_file is None:
            return Security()
        return Security(
            tls_ca_file=str(self.tls_ca_file) if self.tls_ca_file else None,
            tls_client_cert=str(self.tls_cert_file) if self.tls_cert_file else None,
            tls_client_key=str(self.tls_key_file) if self.tls_key_file else None,
            require_encryption=True,
        )


@dataclass(frozen=True)
class RatingSettings:
    anchor: str | None = None  # bot pinned at 1500; None: the mean is 1500
    bootstrap: int = 200  # resamples for the 95% intervals
    prior_games: float = 1.0  # virtual draws that keep perfect records finite


@dataclass(frozen=True)
class StopSettings:
    """``[stop]``: end the league as soon as a sequential test decides (arena.league.stop).

    ``sprt``: two bots head to head, hypotheses in Elo of the first over the second;
    ``gauntlet``: the challenger against the field, hypotheses on its finish-ahead share
    (``ahead``) or, with one player count, its expected finishing place (``place``).
    """

    test: str  # "sprt" or "gauntlet"
    measure: str  # "elo", "ahead" or "place": the unit of h0 and h1
    h0: float  # the value under H0 (elo0, ahead0 or place0)
    h1: float
    alpha: float = 0.05
    beta: float = 0.05


@dataclass(frozen=True)
class LeagueConfig:
    path: Path
    name: str
    game: str
    players: tuple[int, ...]
    roster: tuple[str, ...] | None  # None: every discovered bot that plays the game
    format: str = "round-robin"  # a format's name (arena/league/formats.py)
    # the format's own keys, when ``format`` is a table (checked by the format itself)
    format_options: Mapping[str, Any] = field(default_factory=dict)
    challenger: str | None = None  # the gauntlet's bot
    rounds: int = 1
    rounds_given: bool = False  # the file (or --rounds) set rounds (Swiss: else chosen)
    seed: int = 1
    max_games: int | None = None  # cap: above it, a balanced sample
    concurrency: int = field(default_factory=usable_cores)
    workers: int | None = None  # processes playing games; None: min(CPUs, concurrency)
    # the niceness of the processes playing games (and their bots): above 0, games are
    # played in worker processes even with one worker, so that this process keeps its
    # priority (a server's web app answers first; the games get the idle CPU)
    nice: int = 0
    results_dir: Path = Path("results")
    bot_paths: tuple[Path, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    # [time] and [limits]: the time control and the bots' limits (arena/settings.py)
    limits: Limits = Limits()
    rating: RatingSettings = RatingSettings()
    # [cluster]: where to play (a Dask scheduler); None plays on this machine
    cluster: ClusterSettings | None = None
    stop: StopSettings | None = None  # [stop]: None plays the whole schedule
    # deal every game from its seed, which anyone who knows the league file can compute,
    # instead of from the store's secret key (arena/deals.py): research, never a contest
    public_deals: bool = False

    def snapshot(self) -> dict[str, Any]:
        """The whole configuration as JSON data (stored with the results)."""
        data = asdict(self)
        data["path"] = str(self.path)
        data["results_dir"] = str(self.results_dir)
        data["bot_paths"] = [str(p) for p in self.bot_paths]
        data["players"] = list(self.players)
        data["roster"] = None if self.roster is None else list(self.roster)
        data["options"] = dict(self.options)
        data["format_options"] = dict(self.format_options)
        data.pop("limits")
        data["time"] = league_file_time(self.limits)
        data["limits"] = league_file_limits(self.limits)
        if self.cluster is not None:  # where it was played, not what: paths as text
            data["cluster"] = {key: None if value is None else str(value)
                               for key, value in asdict(self.cluster).items()}
        return data

    def worker_count(self, concurrency: int | None = None) -> int:
        games_at_once = concurrency or self.concurrency
        return min(self.workers or usable_cores(), games_at_once)

    def game_settings(self) -> dict[str, Any]:
        """What every game of the league is played under.  Changing any of it would make
        the games already played incomparable with new ones, so a stored league refuses it."""
        return {
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "time": league_file_time(self.limits),
            "limits": league_file_limits(self.limits),
        }


class _Section:
    """Reads one table of the file, remembering which keys were used."""

    def __init__(self, path: Path, data: Mapping[str, Any], prefix: str = "") -> None:
        self.path = path
        self.data = data
        self.prefix = prefix
        self.used: set[str] = set()

    def error(self, key: str, message: str) -> ArenaError:
        return ArenaError(f"{self.path}: key '{self.prefix}{key}': {message}")

    def get(self, key: str, check: Callable[[Any], Any], default: Any = None) -> Any:
        self.used.add(key)
        if key not in self.data:
            return default
        try:
            return check(self.data[key])
        except _Invalid as problem:
            raise self.error(key, f"{problem} (got {toml_value(self.data[key])})") from None

    def section(self, key: str) -> _Section:
        value = self.get(key, _table, {})
        return _Section(self.path, value, f"{self.prefix}{key}.")

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            allowed = ", ".join(sorted(self.used))
            hint = did_you_mean(unknown[0], self.used)
            raise self.error(unknown[0], f"unknown key{hint}; allowed here: {allowed}")


class _Invalid(Exception):
    pass


SHOWN_VALUE = 80  # characters of a value quoted back in a message


def toml_value(value: Any, limit: int = SHOWN_VALUE) -> str:
    """``value`` as it would be written in TOML (true, not Python's True), cut to about
    ``limit`` characters: a message quotes the file back, and that may be huge."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, float) and not math.isfinite(value):
        text = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    elif isinstance(value, list | tuple):
        parts: list[str] = []
        for item in value:
            parts.append(toml_value(item, limit))
            if sum(len(part) + 2 for part in parts) > limit:
                parts.append(f"... ({len(value)} items)")
                break
        text = f"[{', '.join(parts)}]"  # cut below like any text: nesting adds no length
    elif isinstance(value, Mapping):
        text = "{ " + ", ".join(f"{key} = {toml_value(item, limit)}"
                                for key, item in value.items()) + " }"
    else:
        text = str(value)  # integers, dates
    return text if len(text) <= limit + 20 else f"{text[:limit]}... ({len(text)} characters)"


def _table(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid("must be a table")
    return value


def _string(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise _Invalid("must be a non-empty string")
    return value


def _name(value: Any) -> str:
    if not isinstance(value, str) or not NAME_PATTERN.match(value):
        raise _Invalid("must be a name of letters, digits, '_', '.', '-' (at most 64)")
    return value


def _integer(low: int, high: int | None = None) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Invalid("must be a whole number")
        if value < low or (high is not None and value > high):
            raise _Invalid(f"must be between {low} and {high}" if high else f"must be >= {low}")
        return value

    return check


def _seconds(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Invalid("must be a number of seconds")
    if not 0 < value <= 86400:
        raise _Invalid("must be more than 0 and at most 86400 seconds")
    return float(value)


def _non_negative_seconds(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 86400:
        raise _Invalid("must be a number of seconds between 0 and 86400")
    return float(value)


def _prior(value: Any) -> float:
    # more than 0: the prior is what keeps a perfect record's rating finite
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1000:
        raise _Invalid("must be a number of virtual games more than 0 and at most 1000 "
                       "(it keeps a bot that won or lost every game at a finite rating)")
    return float(value)


def _choice(allowed: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in allowed:
            raise _Invalid("must be one of " + ", ".join(repr(a) for a in allowed))
        return str(value)

    return check


def _players(value: Any) -> tuple[int, ...]:
    counts = value if isinstance(value, list) else [value]
    if not counts:
        raise _Invalid("must be a player count or a non-empty list of them")
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, int) or not 2 <= count <= 8:
            raise _Invalid("must be a player count (2-8) or a list of them")
    if len(set(counts)) != len(counts):
        raise _Invalid("lists a player count twice")
    return tuple(sorted(counts))


def _roster(value: Any) -> tuple[str, ...] | None:
    if value == "all":
        return None
    if not isinstance(value, list) or not value:
        raise _Invalid('must be "all" or a non-empty list of bot names')
    names = tuple(_name(v) for v in value)
    duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
    if duplicates:
        raise _Invalid(f"names {', '.join(duplicates)} more than once")
    return names


NAME_MAX = 255  # bytes of one path component on Linux file systems
PATH_MAX = 4096


def _path(text: str) -> str:
    """A path the file system can hold: no component over NAME_MAX bytes, no NUL."""
    if "\0" in text:
        raise _Invalid("must not contain a NUL character")
    if len(text.encode()) >= PATH_MAX:
        raise _Invalid(f"is longer than a path may be ({PATH_MAX} bytes)")
    for part in Path(text).parts:
        if len(part.encode()) > NAME_MAX:
            raise _Invalid(f"has a part longer than a file name may be ({NAME_MAX} bytes): "
                           f"{part[:40]}...")
    return text


def _paths(base: Path) -> Callable[[Any], tuple[Path, ...]]:
    def check(value: Any) -> tuple[Path, ...]:
        items = value if isinstance(value, list) else [value]
        return tuple(base / _path(_string(item)) for item in items)

    return check


def _results(base: Path) -> Callable[[Any], Path]:
    def check(value: Any) -> Path:
        return base / _path(_string(value))

    return check


def _memory(value: Any) -> int:
    return _integer(16, 1 << 20)(value)


# The leagues shipped with Ra Arena: the files of configs/ at the top of a checkout, which
# the package carries as its data folder arena/leagues (a link to configs/, followed when
# the wheel is built).  `arena run NAME` plays one, NAME being its `name` key.
BUNDLED_LEAGUES = package_folder("leagues")
DEFAULT_LEAGUE = "bundled"  # the name of configs/league.toml
LOCAL_LEAGUE = Path("league.toml")  # `arena run` without a league: this, if it is here


def bundled_leagues() -> dict[str, Path]:
    """name -> file of every league shipped with Ra Arena, by the ``name`` key of each
    file (the file's stem if it has none: load_league will say what is wrong)."""
    leagues: dict[str, Path] = {}
    for path in BUNDLED_LEAGUES.glob("*.toml"):
        try:
            name = decode_toml(path.read_bytes()).get("name")
        except (OSError, TomlProblem):
            name = None
        leagues[name if isinstance(name, str) else path.stem] = path
    return dict(sorted(leagues.items()))


def find_league(spec: str | Path | None) -> Path:
    """The league file meant by ``spec``: a path to a file, or the name of a bundled
    league (``arena run dice``); None: ``./league.toml`` if there is one, else the
    bundled default league."""
    if spec is None:
        return LOCAL_LEAGUE if LOCAL_LEAGUE.is_file() else bundled_leagues()[DEFAULT_LEAGUE]
    path = Path(spec)
    try:
        if path.is_file() or path.suffix == ".toml" or len(path.parts) > 1:
            return path  # a file (load_league says what is wrong with it)
    except OSError:  # a name longer than the system allows
        return path
    found = bundled_leagues().get(str(spec))
    if found is None:
        raise ArenaError(
            f"{str(spec)[:80]!r} is neither a league file nor a bundled league; bundled "
            f"leagues: {', '.join(bundled_leagues())} (`arena run` plays {DEFAULT_LEAGUE})"
        )
    return found


def with_overrides(
    config: LeagueConfig,
    *,
    rounds: int | None = None,
    seed: int | None = None,
    results_dir: str | None = None,
    sandbox: str | None = None,
) -> LeagueConfig:
    """``config`` with command-line options in place of the file's keys, each checked as
    the file's key is (a path given on the command line is relative to where you are)."""
    changes: dict[str, Any] = {}

    def checked(option: str, value: Any, check: Callable[[Any], Any]) -> Any:
        try:
            return check(value)
        except _Invalid as problem:
            raise ArenaError(f"--{option}: {problem} (got {str(value)[:80]!r})") from None

    if rounds is not None:
        changes["rounds"] = checked("rounds", rounds, _integer(1, 100_000))
        changes["rounds_given"] = True
    if seed is not None:
        changes["seed"] = checked("seed", seed, _integer(0, MAX_SEED))
    if results_dir is not None:
        changes["results_dir"] = Path(checked("results-dir", results_dir, _path))
    if sandbox is not None:
        level = checked("sandbox", sandbox, _choice(SANDBOX_LEVELS))
        changes["limits"] = replace(config.limits, sandbox=level)
    return replace(config, **changes)


def results_of(target: str | Path | None) -> tuple[Path, dict[str, Any] | None]:
    """Where the results are for what a user named: a results folder, a league file, a
    bundled league's name, or None (the default league); with the league file's
    configuration when there is one."""
    if target is not None:
        path = Path(target)
        try:
            if path.is_dir():
                return path, None
            named = path.is_file() or str(target) in bundled_leagues()
        except OSError as problem:  # e.g. a name too long for the file system
            raise ArenaError(f"{str(target)[:80]}...: {problem.strerror}") from None
        if not named:
            raise ArenaError(
                f"{str(target)[:200]}: no such results folder or league file (nor a bundled "
                f"league: {', '.join(bundled_leagues())})"
            )
    config = load_league(find_league(target))
    return config.results_dir, config.snapshot()


def is_bundled(path: Path) -> bool:
    """Whether ``path`` is one of the leagues shipped with Ra Arena (a file of configs/ in
    a checkout installed with -e, or of the installed package's arena/leagues)."""
    try:
        return path.resolve().parent == BUNDLED_LEAGUES
    except OSError:
        return False


def load_league(path: Path | str) -> LeagueConfig:
    """Read and validate a league file.  Relative paths in it are relative to the file,
    except in a league bundled with the package (which lives where nobody may write):
    there they are relative to the current folder, so results go to ./results/NAME."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ArenaError(f"{path}: no such league file") from None
    except OSError as problem:
        raise ArenaError(f"{path}: cannot read the league file: {problem.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as problem:
        raise ArenaError(f"{path}: not UTF-8 text (byte {problem.start})") from None
    return parse_league(text, path)


def parse_league(text: str, path: Path) -> LeagueConfig:
    try:
        data = parse_toml(text)
    except TomlProblem as problem:
        raise ArenaError(f"{path}: {problem}") from None
    return league_from_data(data, path)


def league_from_data(data: Mapping[str, Any], path: Path) -> LeagueConfig:
    """A league from the tables of a league file, with every check of the file; ``path``
    names it in messages and its folder is where relative paths start (the notebook API,
    arena/notebook.py, passes keyword arguments this way)."""
    base = Path(".") if is_bundled(path) else path.parent
    top = _Section(path, data)
    top.used.update(TOP_KEYS)
    top.finish()  # a misspelt key first: "nmae" should not read as "name is required"
    top.used.clear()
    name = top.get("name", _name)
    if name is None:
        raise top.error("name", "is required: a short name for the league")
    game = top.get("game", _game_name)
    if game is None:
        raise top.error("game", "is required, e.g. game = \"ra\"")
    players = top.get("players", _players)
    if players is None:
        raise top.error("players", "is required: a player count or a list, e.g. [3, 4]")
    roster = top.get("roster", _roster, None)
    # one rule for every path in the file: relative to the file, unless absolute
    default = base / "results" / name
    league_format, format_options = top.get("format", _format, ("round-robin", {}))
    challenger = top.get("challenger", _name)
    if league_format == "gauntlet" and challenger is None:
        raise top.error("challenger", "is required for format = \"gauntlet\": the bot to test")
    if league_format != "gauntlet" and challenger is not None:
        raise top.error("challenger", "is only allowed with format = \"gauntlet\"")
    if challenger is not None and roster is not None and challenger in roster:
        raise top.error("challenger", "must not also be in the roster (the field)")
    config = LeagueConfig(
        path=path,
        name=name,
        game=game,
        players=players,
        roster=roster,
        format=league_format,
        format_options=format_options,
        challenger=challenger,
        rounds=top.get("rounds", _integer(1, 100_000), 1),
        rounds_given="rounds" in data,
        seed=top.get("seed", _integer(0, MAX_SEED), 1),
        max_games=top.get("max_games", _integer(1), None),
        concurrency=top.get("concurrency", _integer(1, 1024), usable_cores()),
        workers=top.get("workers", _integer(1, 256), None),
        # An explicit folder is relative to the file; the default is in the current one.
        results_dir=Path(os.path.normpath(top.get("results_dir", _results(base), default))),
        bot_paths=top.get("bot_paths", _paths(base), ()),
        options=dict(top.get("options", _table, {})),
        limits=_limits(top.section("time"), top.section("limits")),
        rating=_rating(top.section("rating")),
        cluster=_cluster(top.section("cluster"), base),
        stop=_stop(top.section("stop"), league_format, players, roster),
        public_deals=top.get("public_deals", _boolean, False),
    )
    top.finish()
    return config


def _cluster(section: _Section, base: Path) -> ClusterSettings | None:
    if not section.data:
        section.finish()
        return None

    def file(value: Any) -> Path:
        return base / _string(value)

    section.used.update(CLUSTER_KEYS)
    section.finish()  # a misspelt key first: "adress" should not read as "address missing"
    section.used.clear()
    address = section.get("address", _string)
    if address is None:
        raise section.error("address", "is required in [cluster]: the Dask scheduler, e.g. "
                                       "\"tls://scheduler.example:8786\"")
    settings = ClusterSettings(
        address=address,
        insecure=section.get("insecure", _boolean, False),
        tls_ca_file=section.get("tls_ca_file", file),
        tls_cert_file=section.get("tls_cert_file", file),
        tls_key_file=section.get("tls_key_file", file),
        chunk_seconds=section.get("chunk_seconds", _seconds, 2.0),
    )
    section.finish()
    return settings


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Invalid("must be true or false")
    return value


def _format(value: Any) -> tuple[str, dict[str, Any]]:
    """``format = "swiss"``, or a table with the format's ``name`` and its own keys
    (``format = { name = "knockout", games = 4 }``, or a ``[format]`` table).  Only the
    form: the format itself checks its keys when the league runs (like the game)."""
    if isinstance(value, str):
        name, options = value, {}
    elif isinstance(value, dict):
        options = dict(value)
        name = options.pop("name", None)
        if not isinstance(name, str):
            raise _Invalid('as a table, needs name = "FORMAT" beside the format\'s own keys')
    else:
        raise _Invalid('must be a format\'s name, e.g. "swiss", or a table with name = ...')
    if not NAME_PATTERN.match(name):
        raise _Invalid("must name a format: round-robin, gauntlet, swiss, knockout, ladder "
                       "or a plugin's")
    return name, options


class FormatOptions:
    """A format's own keys (``format = { name = ..., KEY = ... }``), read the way the rest
    of the file is: each problem one line naming ``format.KEY`` and what is allowed.  A
    format's ``check`` reads them with these methods, then calls :meth:`finish`, which
    refuses a key no method asked for."""

    def __init__(self, config: LeagueConfig) -> None:
        self.config = config
        self._section = _Section(config.path, config.format_options, "format.")

    def error(self, key: str, message: str) -> ArenaError:
        return self._section.error(key, message)

    def given(self, key: str) -> bool:
        return key in self._section.data

    def integer(self, key: str, low: int, high: int, default: int | None) -> int | None:
        value: int | None = self._section.get(key, _integer(low, high), default)
        return value

    def choice(self, key: str, allowed: tuple[str, ...], default: str) -> str:
        value: str = self._section.get(key, _choice(allowed), default)
        return value

    def path(self, key: str) -> Path | None:
        """A path, relative to the league file (the rule for every path in the file)."""
        base = Path(".") if is_bundled(self.config.path) else self.config.path.parent
        value: Path | None = self._section.get(key, _results(base), None)
        return value

    def finish(self) -> None:
        self._section.finish()


def _game_name(value: Any) -> str:
    """Only the form: whether a game of that name exists, and which player counts and
    options it takes, is checked when the league runs and discovery has found the games
    (arena.league.bots.find_game), the same way for every game."""
    name = _string(value)
    if not NAME_PATTERN.match(name):
        raise _Invalid("must be the name of a game (letters, digits, '.', '-', '_')")
    return name


def _limits(time: _Section, limits: _Section) -> Limits:
    """``[time]`` and ``[limits]``: each key checked here, then one :class:`Limits`."""

    def cores(value: Any) -> float:  # a share of a core is a cgroup CPU quota
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not 0.01 <= value <= 1024:
            raise _Invalid("must be a number of cores between 0.01 and 1024")
        return float(value)

    time_checks: dict[str, Callable[[Any], Any]] = {
        "per_decision": _seconds, "per_game": _seconds, "overage": _non_negative_seconds,
        "handshake": _seconds,
    }
    limit_checks: dict[str, Callable[[Any], Any]] = {
        "memory_mb": _memory,
        "cpu_seconds": _integer(1, 10**7),
        "max_processes": _integer(1, 4096),
        "max_file_mb": _integer(1, 1 << 20),
        "max_open_files": _integer(8, 65536),
        "cores": cores,
        "max_message_kb": _integer(1, 1 << 20),
        "sandbox": _choice(SANDBOX_LEVELS),
    }
    assert set(time_checks) == set(TIME_KEYS) and set(limit_checks) == set(LIMIT_KEYS)
    given_time = {key: time.get(key, check) for key, check in time_checks.items()
                  if key in time.data}
    time.used.update(time_checks)  # what "allowed here" lists
    time.finish()
    given_limits = {key: limits.get(key, check) for key, check in limit_checks.items()
                    if key in limits.data}
    limits.used.update(limit_checks)
    limits.finish()
    try:
        return from_league_file(given_time, given_limits)
    except ArenaError as problem:  # a combination the runner refuses
        raise ArenaError(f"{time.path}: {problem}") from None


def _rating(section: _Section) -> RatingSettings:
    defaults = RatingSettings()
    settings = RatingSettings(
        anchor=section.get("anchor", _name, defaults.anchor),
        bootstrap=section.get("bootstrap", _integer(0, 100_000), defaults.bootstrap),
        prior_games=section.get("prior_games", _prior, defaults.prior_games),
    )
    section.finish()
    return settings


def _error_rate(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 0.5:
        raise _Invalid("must be an error rate between 0 and 0.5, e.g. 0.05")
    return float(value)


def _number(low: float, high: float) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _Invalid("must be a number")
        if not low <= value <= high:
            raise _Invalid(f"must be between {low:g} and {high:g}")
        return float(value)

    return check


# (H0 key, H1 key, check, does a larger value favour the tested bot?)
_MEASURES = {
    "elo": ("elo0", "elo1", _number(-1000, 1000), True),
    "ahead": ("ahead0", "ahead1", _number(0, 1), True),
    "place": ("place0", "place1", _number(1, 8), False),
}


def _stop(
    section: _Section, league_format: str, players: tuple[int, ...], roster: tuple[str, ...] | None
) -> StopSettings | None:
    tests = [name for name in STOP_TESTS if name in section.data]
    for name in STOP_TESTS:
        section.used.add(name)
    section.finish()
    if not tests:
        return None
    if len(tests) > 1:
        raise section.error(tests[1], "one sequential test per league: sprt or gauntlet")
    test = tests[0]
    if league_format not in SCHEDULE_FORMATS:
        raise section.error(test, "a sequential test follows a schedule made in advance: "
                                  f"format \"round-robin\" or \"gauntlet\", not "
                                  f"{league_format!r}")
    table = section.section(test)
    settings = _stop_settings(table, test, players)
    if test == "sprt":
        if players != (2,):
            raise table.error("elo0", "the head-to-head SPRT needs players = 2")
        field_size = 2 if league_format == "round-robin" else 1
        if roster is not None and len(roster) != field_size:
            who = "two bots in the roster" if field_size == 2 else "one bot in the field"
            raise table.error("elo0", f"the head-to-head SPRT needs {who}")
    elif league_format != "gauntlet":
        key = _MEASURES[settings.measure][0]
        raise table.error(key, 'the gauntlet test needs format = "gauntlet"')
    return settings


def _stop_settings(table: _Section, test: str, players: tuple[int, ...]) -> StopSettings:
    allowed = ("elo",) if test == "sprt" else ("ahead", "place")
    given = [m for m in allowed if any(key in table.data for key in _MEASURES[m][:2])]
    for measure in allowed:
        table.used.update(_MEASURES[measure][:2])
    table.used.update(("alpha", "beta"))
    table.finish()
    if len(given) != 1:
        pairs = " or ".join(f"{_MEASURES[m][0]} and {_MEASURES[m][1]}" for m in allowed)
        raise table.error(_MEASURES[allowed[0]][0], f"give {pairs}")
    measure = given[0]
    key0, key1, check, larger_is_better = _MEASURES[measure]
    h0, h1 = table.get(key0, check), table.get(key1, check)
    if h0 is None or h1 is None:
        raise table.error(key0 if h0 is None else key1, f"needs both {key0} and {key1}")
    if (h1 <= h0) if larger_is_better else (h1 >= h0):
        side = "above" if larger_is_better else "below (a better place)"
        raise table.error(key1, f"must be {side} {key0} = {h0:g}")
    if measure == "place":
        if len(players) != 1:
            raise table.error(key0, "an expected place needs a single player count; use ahead0")
        if not (h1 > 1 and h0 < players[0]):
            raise table.error(key0, f"places must lie strictly between 1 and {players[0]}")
    if measure == "ahead" and not (h0 > 0 and h1 < 1):
        raise table.error(key0, "shares must lie strictly between 0 and 1")
    return StopSettings(
        test=test,
        measure=measure,
        h0=h0,
        h1=h1,
        alpha=table.get("alpha", _error_rate, 0.05),
        beta=table.get("beta", _error_rate, 0.05),
    )
