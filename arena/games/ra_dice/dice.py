"""The engine's own dice: a counter-based generator, so the whole random state is two ints.

Roll ``k`` of a game is a pure function of (seed, k): SplitMix64 of the counter, whose 64
bits are read as a fraction in [0, 1) and turned into base-6 digits, one per die rolled.
(The bias of reading 5 digits from 64 bits is below 2**-50: far beyond anything a game
could notice.)  Nothing else in the process can disturb it, and it is trivially saved,
restored and cloned.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def splitmix64(value: int) -> int:
    z = value & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class DiceRoller:
    """Six-sided dice for one game, reproducible from ``seed``."""

    __slots__ = ("key", "counter")

    def __init__(self, seed: int, counter: int = 0) -> None:
        self.key = splitmix64(seed)  # any int, negative or huge, gives a 64-bit key
        self.counter = counter

    def roll(self, faces: list[int], dice: tuple[int, ...]) -> None:
        """Give each die in ``dice`` (indices into ``faces``) a new face 0..5."""
        self.counter += 1
        fraction = splitmix64(self.key + self.counter * _GOLDEN)
        for die in dice:
            fraction *= 6
            faces[die] = fraction >> 64
            fraction &= _MASK

    def clone(self) -> DiceRoller:
        return DiceRoller.__new__(DiceRoller)._set(self.key, self.counter)

    def _set(self, key: int, counter: int) -> DiceRoller:
        self.key, self.counter = key, counter
        return self


class RecordedDice:
    """The dice of a game started from its record: roll ``k`` gives the faces the record
    says roll ``k`` gave (a secret deal's record keeps no seed to roll from)."""

    __slots__ = ("rolls", "counter")

    def __init__(self, rolls: list[list[int]], counter: int = 0) -> None:
        self.rolls = rolls  # per roll, the face of every die after it
        self.counter = counter

    def roll(self, faces: list[int], dice: tuple[int, ...]) -> None:
        from arena.games.base import ReplayError

        if self.counter >= len(self.rolls):
            raise ReplayError("the record's actions roll the dice more often than it recorded")
        after = self.rolls[self.counter]
        self.counter += 1
        for die in dice:
            faces[die] = after[die]

    def clone(self) -> RecordedDice:
        return RecordedDice(self.rolls, self.counter)
