"""The JSON API's bodies as Pydantic models: what it accepts, and what it answers (so
that ``/api/v1/openapi.json`` describes every response)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from arena.server import accounts


# -- requests ---------------------------------------------------------------------------
class Credentials(BaseModel):
    name: str = Field(max_length=64)
    password: str = Field(max_length=accounts.MAX_PASSWORD)


class TokenRequest(Credentials):
    token_name: str = Field(default="cli", min_length=1, max_length=64)


# -- answers ----------------------------------------------------------------------------
class Account(BaseModel):
    name: str
    role: str = Field(description="admin or user")
    approved: bool = Field(description="false: waiting for an admin's approval")


class NewToken(BaseModel):
    id: int
    name: str
    token: str = Field(description="the secret, shown this once (kept as a hash)")
    user: str


class TokenInfo(BaseModel):
    id: int
    name: str
    created_at: float
    last_used: float | None
    revoked: bool


class Revoked(BaseModel):
    revoked: int


class Approved(BaseModel):
    name: str
    approved: bool


class Deleted(BaseModel):
    deleted: str


class VerdictInfo(BaseModel):
    """A version against its predecessor (docs/server.md, "Version verdicts")."""

    state: str = Field(description="testing, stronger, weaker, no_difference, "
                                   "inconclusive or superseded")
    elo: float | None = Field(description="the version's Elo over its predecessor")
    low: float | None = Field(description="the 95% interval's low end")
    high: float | None = Field(description="... and its high end")
    games: int = Field(description="games the two played together")
    version: str
    against: str
    text: str = Field(description="the verdict in one sentence")
    started_at: float
    decided_at: float | None


class VersionInfo(BaseModel):
    id: int
    bot: str = Field(description="OWNER/NAME")
    number: int
    ladder_name: str = Field(description="OWNER/NAME@NUMBER: its name in games and ratings")
    state: str = Field(description="pending, valid or rejected")
    manifest_version: str
    archive_bytes: int
    message: str
    report: dict[str, Any] | None = Field(
        description="the conformance report (its owner and admins only)")
    stderr_tail: str = Field(description="the end of its stderr (its owner and admins only)")
    build_log: str = Field(description="the end of its build's log (its owner and admins "
                                       "only)")
    uploaded_at: float
    validated_at: float | None
    paused: str = Field(description="why the ladder left it out ('' if it plays; to others "
                                    "than its owner only 'paused')")
    verdict: VerdictInfo | None


class BotListing(BaseModel):
    bot: str
    disabled: bool


class BotInfo(BaseModel):
    bot: str
    owner: str
    name: str
    disabled: bool
    created_at: float
    verdict: VerdictInfo | None = Field(description="its newest valid version's verdict")
    versions: list[VersionInfo]


class LeaderboardRow(BaseModel):
    """One bot of a leaderboard: the JSON of ``arena leaderboard --json`` (docs/ratings.md)
    and where the bot's page is."""

    model_config = ConfigDict(extra="allow")

    rank: int
    group: int
    bot: str = Field(description="its ladder name, OWNER/NAME@N (arena/NAME@TAG: a house "
                                 "bot)")
    elo: float | None
    low: float | None = Field(description="the 95% interval's low end")
    high: float | None
    games: int
    first_places: int
    average_place: float | None
    average_score: float | None
    failures: dict[str, int]
    failure_rate: dict[str, float]
    ahead_of_next: float | None
    owner: str
    version_id: int | None
    page: str | None
    unsettled: bool = Field(description="more games could swap it with a neighbour")
    shown: str = Field(description="its name on the pages (a house bot's without its tag)")


class LadderGame(BaseModel):
    model_config = ConfigDict(extra="allow")

    game_id: str
    bots: list[str]
    shown: list[str] = Field(description="the seats' names on the pages")


class RecentGame(LadderGame):
    placements: list[int]
    failures: dict[str, str]
    order: list[int] = Field(description="its seats, best placed first")


class Leaderboard(BaseModel):
    model_config = ConfigDict(extra="allow")

    game: str
    num_players: int
    games: int = Field(description="ladder games rated")
    bots: list[LeaderboardRow]
    settled_at: float = Field(description="a place is settled when the chance it is ahead "
                                          "of the next (ahead_of_next) reaches this")
    roster: list[str] = Field(description="the ladder names playing now")
    roster_shown: list[str] = Field(description="the roster's names on the pages")
    in_progress: list[LadderGame]
    recent: list[RecentGame] = Field(description="the newest stored games")


class GameRecordJson(BaseModel):
    """A stored game's record, as ``arena export`` writes it (docs/records.md)."""

    model_config = ConfigDict(extra="allow")

    game_id: str
    sequence: int | None = Field(description="its place in the order games were stored")
    game: str
    table: str
    round: int
    seats: list[str]
    status: str = Field(description="ok, or failed: a seat forfeited")
    scores: list[float]
    placements: list[int] = Field(description="1 is first; tied seats share a place")
    failures: dict[str, str] = Field(description="seat -> why it forfeited")
    timings: dict[str, Any]
    finished_at: float | None
    record: dict[str, Any] = Field(description="the game decision by decision "
                                               "(docs/records.md)")
