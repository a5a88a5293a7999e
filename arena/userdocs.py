"""``arena docs [TOPIC]``: the user documentation, shipped inside the package.

The Markdown files of the checkout's ``docs/`` folder are the one copy: ``arena/docs`` is
a link to it, and building the wheel copies the files (as for the bundled leagues), so
``pip install ra-arena`` users read the same pages as a checkout."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.errors import ArenaError
from arena.package_data import package_folder


def topics() -> dict[str, Path]:
    """topic -> page: every Markdown page shipped, by file name without ``.md``."""
    return {path.stem: path for path in sorted(package_folder("docs").glob("*.md"))}


def _title(page: Path) -> str:
    """The page's first heading (outside code blocks, where "# " is a comment)."""
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif line.startswith(("# ", "## ")) and not in_code:
            return line.lstrip("#").strip()
    return ""


def docs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("topic", nargs="?", metavar="TOPIC",
                        help="a page to print (without TOPIC: the list of pages)")
    parser.add_argument("--path", action="store_true",
                        help="print where the page is instead (to open it in an editor)")


def docs_command(args: argparse.Namespace) -> int:
    pages = topics()
    if args.topic is None:
        width = max(map(len, pages), default=0)
        for name, path in pages.items():
            print(f"{name.ljust(width)}  {_title(path)}")
        print("\n`arena docs TOPIC` prints one, e.g. `arena docs leagues`")
        return 0
    topic = args.topic.removesuffix(".md")
    page = pages.get(topic)
    if page is None:
        raise ArenaError(f"no page {args.topic[:60]!r}; the pages: {', '.join(pages)}")
    if args.path:
        print(page)
    else:
        print(page.read_text(encoding="utf-8"), end="")
    return 0
