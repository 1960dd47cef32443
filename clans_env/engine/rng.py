"""The game's own seeded random generator.

A splitmix64 stream whose whole state is one int, so cloning a game copies one number and
the same seed always replays the same game (``random.Random`` would copy 625 ints).
"""
from __future__ import annotations

_MASK = (1 << 64) - 1
#: seeds are 0..SEEDS-1: the seed enters the state modulo 2**64, so a seed outside that range
#: would only repeat the game of one inside it (-1 plays as 2**64-1)
SEEDS = 1 << 64


class Rng:
    __slots__ = ("state",)

    def __init__(self, seed: int = 0):
        self.state = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    # randrange and shuffle repeat next64's steps inline: the engine draws in Preparation and
    # the solo / price-dice Market phases, where a method call per draw cost as much as the draw.
    def randrange(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randrange of an empty range")
        z = self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return (z ^ (z >> 31)) % n   # n is tiny (< 100): the modulo bias is below 1e-17

    def shuffle(self, items: list) -> None:
        state = self.state
        for i in range(len(items) - 1, 0, -1):
            z = state = (state + 0x9E3779B97F4A7C15) & _MASK
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            j = (z ^ (z >> 31)) % (i + 1)
            items[i], items[j] = items[j], items[i]
        self.state = state

    def choice(self, items):
        return items[self.randrange(len(items))]

    def copy(self) -> "Rng":
        r = Rng.__new__(Rng)
        r.state = self.state
        return r
