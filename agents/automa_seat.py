"""``automa:level=N`` as a participant: the physical game's own solo opponent is no agent but a seat
of the game (``GameConfig.automa``) whose turns the engine resolves (clans_env/engine/rules/automa.py).
Harnesses that seat participants (``training.tournament``) map an ``AutomaSeat`` to that seat; it is
never asked to act."""
from __future__ import annotations


class AutomaSeat:
    """The Automa at ``level`` 1-5, as a participant of a tournament or ladder."""

    name = "automa"

    def __init__(self, level: int = 3, seed: int | None = None):
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 5:
            raise ValueError(f"automa level must be one of 1, 2, 3, 4, 5 (got {level!r}): automa:level=5")
        self.automa_level = level

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reseed: the Automa's cards and dice come from the game's own generator."""

    def act(self, game) -> int:
        raise RuntimeError("the Automa is a seat of the game (GameConfig(automa={seat: level})), resolved by the "
                           "engine; a harness must seat it there instead of asking it to act")

    def __repr__(self) -> str:
        return f"AutomaSeat(level={self.automa_level})"


def automa_levels(agents) -> dict:
    """Seat -> level of the ``AutomaSeat`` participants among ``agents`` (one per seat)."""
    return {seat: a.automa_level for seat, a in enumerate(agents) if isinstance(a, AutomaSeat)}
