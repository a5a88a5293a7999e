"""What only admins do: approve and disable accounts, send a version back to validation,
and the admin page's overview.  Every operation checks the role itself (the routes'
dependencies check it too: a service is safe whoever calls it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.server.errors import Refused
from arena.server.store import User, Version

if TYPE_CHECKING:
    from arena.server.core import Server
    from arena.server.services.bots import BotService
    from arena.server.services.ladder import LadderService


def require_admin(user: User) -> User:
    if not user.admin:
        raise Refused("admins only", 403)
    return user


class AdminService:
    def __init__(self, server: Server, bots: BotService, ladder: LadderService) -> None:
        self.server = server
        self.bots = bots
        self.ladder = ladder

    def _user(self, name: str) -> User:
        target = self.server.store.user(name)
        if target is None:
            raise Refused(f"no user {name!r}", 404)
        return target

    def approve(self, admin: User, name: str) -> None:
        require_admin(admin)
        self.server.store.approve(self._user(name).id)

    def disable_user(self, admin: User, name: str) -> None:
        """The account back to unapproved, its sessions ended, its tokens revoked, its
        bots disabled (an admin cannot be disabled here)."""
        require_admin(admin)
        target = self._user(name)
        if target.admin:
            raise Refused("an admin cannot be disabled here", 403)
        self.server.store.disable_user(target.id)
        self.server.roster_changed()

    def revalidate(self, admin: User, version_id: int) -> Version:
        """The version checked again (after a change of the bundled opponents or of the
        sandbox, say); it leaves the ladder until it passes."""
        require_admin(admin)
        version = self.bots.version(version_id)
        if version.state == "pending":
            raise Refused(f"version {version_id} is already waiting for its check", 409)
        self.server.store.set_pending(version_id)
        self.server.queue_version(version_id)
        self.server.roster_changed()
        return version

    def overview(self, admin: User) -> dict[str, Any]:
        """The admin page: accounts, bots, the newest uploads, the leaderboards, the log."""
        require_admin(admin)
        return {"users": self.server.store.users(), "settings": self.server.settings,
                "bots": self.bots.bots(), "versions": self.bots.recent_versions(),
                "boards": self.ladder.boards(), "log": self.server.log_lines[-50:]}
