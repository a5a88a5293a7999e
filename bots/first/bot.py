"""Always the first legal choice."""

from arena.sdk import run


def choose(observation: dict, legal: list) -> int:
    return 0


if __name__ == "__main__":
    run(choose, name="first", version="1.0.0")
