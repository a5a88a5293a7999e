"""The server's house rules, read from its code: the app only assembles, no function is
long, routes reach the store only through services, and only the store modules know
which database they talk to."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import arena
from arena.server import app

pytestmark = pytest.mark.no_store  # (no server folder: run once)

PACKAGE = Path(arena.__file__).parent
SERVER = PACKAGE / "server"
# the only modules that may speak to a database's driver
DRIVERS = {"sqlite3": {"league/store.py", "server/sqlite_store.py"},
           "psycopg": {"league/pg_store.py", "server/pg_store.py", "server/pg.py"}}


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_create_app_only_assembles() -> None:
    tree = ast.parse(Path(app.__file__).read_text())
    (create,) = [f for f in _functions(tree) if f.name == "create_app"]
    assert create.end_lineno is not None
    assert create.end_lineno - create.lineno + 1 <= 60
    assert len(_functions(tree)) == 1  # no route, handler or helper defined in it


def test_no_function_of_the_server_is_over_100_lines() -> None:
    long = [f"{path.relative_to(PACKAGE)}:{f.lineno} {f.name} ({f.end_lineno - f.lineno + 1})"
            for path in SERVER.rglob("*.py")
            for f in _functions(ast.parse(path.read_text()))
            if f.end_lineno is not None and f.end_lineno - f.lineno + 1 > 100]
    assert long == []


def test_routes_reach_the_store_only_through_services() -> None:
    for path in [*(SERVER / "routers").glob("*.py"), SERVER / "dependencies.py"]:
        tree = ast.parse(path.read_text())
        names = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        names |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        assert not names & {"store", "league_store", "server"}, path.name


def test_only_the_store_modules_import_a_database_driver() -> None:
    found: dict[str, set[str]] = {driver: set() for driver in DRIVERS}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for module in modules:
                driver = module.split(".")[0]
                if driver in found:
                    found[driver].add(path.relative_to(PACKAGE).as_posix())
    for driver, allowed in DRIVERS.items():
        assert found[driver] <= allowed, driver
