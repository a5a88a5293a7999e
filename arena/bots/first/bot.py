"""Always the first legal choice: it needs neither the observation nor the others'
actions, so it asks for lean requests (protocol feature ``wants``)."""

from arena.sdk import run


def choose(observation: dict | None, legal: list) -> int:
    return 0


if __name__ == "__main__":
    run(choose, name="first", version="1.0.0", observation=False)
