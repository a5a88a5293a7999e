"""The server's logic as the routes call it, one service per area: accounts (sign-up,
logins, sessions, tokens), bots (uploads, versions, owners' actions, friendly games),
the ladder's views (leaderboards, a bot's results, stored games) and administration.
Routes translate HTTP to these calls and back; only services reach the store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.server.services.accounts import AccountService
from arena.server.services.admin import AdminService
from arena.server.services.bots import BotService
from arena.server.services.ladder import LadderService

if TYPE_CHECKING:
    from arena.server.core import Server
    from arena.server.settings import ServerSettings


@dataclass(frozen=True)
class Services:
    accounts: AccountService
    bots: BotService
    ladder: LadderService
    admin: AdminService

    @property
    def settings(self) -> ServerSettings:
        return self.accounts.server.settings

    @classmethod
    def of(cls, server: Server) -> Services:
        ladder = LadderService(server)
        bots = BotService(server, ladder)
        return cls(AccountService(server), bots, ladder, AdminService(server, bots, ladder))
