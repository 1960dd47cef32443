"""The game's generator (engine/rng.py): a splitmix64 stream, so the same seed replays the same game.
``randrange`` and ``shuffle`` repeat ``next64``'s steps inline for speed; they must draw exactly what
``next64`` gives (saved games and shipped models replay these draws)."""
from __future__ import annotations

import random

from clans_env.engine.rng import Rng

#: splitmix64's published first outputs for state 0 (Vigna's reference splitmix64.c)
SPLITMIX64_FROM_ZERO = (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F)


def test_next64_is_splitmix64():
    r = Rng()
    r.state = 0
    assert tuple(r.next64() for _ in range(3)) == SPLITMIX64_FROM_ZERO


def test_randrange_and_shuffle_draw_next64():
    """Each draw is ``next64() % n``; a shuffle is Fisher-Yates from the last item down."""
    pick = random.Random(3)
    for seed in range(100):
        fast, ref = Rng(seed), Rng(seed)
        for _ in range(10):
            n = pick.randint(1, 60)
            assert fast.randrange(n) == ref.next64() % n
            items = list(range(pick.randint(0, 14)))
            expected = list(items)
            for i in range(len(expected) - 1, 0, -1):
                j = ref.next64() % (i + 1)
                expected[i], expected[j] = expected[j], expected[i]
            fast.shuffle(items)
            assert items == expected
            assert fast.state == ref.state
