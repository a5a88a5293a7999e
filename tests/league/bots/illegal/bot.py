"""Answers with an index that is never in the legal list."""

from arena.sdk import run


def choose(observation: dict, legal: list) -> int:
    return len(legal) + 1000


if __name__ == "__main__":
    run(choose, name="illegal", version="1.0.0")
