"""Clan abilities: one module per clan, each a ``Clan`` subclass hooking named rule points
(see ``base.py`` for the hooks and where the rules call them)."""
from ..config import clan_names
from .base import CLANS, NO_CLAN, Clan, NoClan, register


def get_clan(name):
    if name is None:
        return NO_CLAN
    try:
        return CLANS[name]
    except KeyError:
        raise ValueError(f"unknown clan {name!r}; valid clans: {sorted(CLANS)}") from None


# the clan modules register themselves (import order = rulebook order)
from . import buchanan, campbell, cunningham, fergusson, macdonald, mackenzie, robertson, stewart  # noqa: E402,F401
from . import macewen  # noqa: E402,F401  (Kickstarter)
from . import douglas, fraser, gordon, macfarlane, macgregor, mackintosh, macleod, macpherson, sinclair  # noqa: E402,F401,E501  (Industria)
__all__ = ["Clan", "NoClan", "NO_CLAN", "CLANS", "register", "get_clan", "clan_names"]
