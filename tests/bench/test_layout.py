"""Benchmarks live in arena/bench/ only, and no runtime module depends on them."""

from __future__ import annotations

import ast
from pathlib import Path

import arena

PACKAGE = Path(arena.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_benchmark_module_outside_arena_bench() -> None:
    stray = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*bench*.py")
             if p.parent != PACKAGE / "bench"]
    assert stray == []


def test_runtime_modules_do_not_import_the_benchmarks() -> None:
    importers = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if PACKAGE / "bench" not in path.parents
        and any(m == "arena.bench" or m.startswith("arena.bench.")
                for m in _imported_modules(path))
    ]
    assert importers == []  # the CLI names arena.bench.commands as a string, lazily
