"""Clan abilities: one module per clan, each a ``Clan`` subclass hooking named rule points
(see ``base.py`` for the hooks and where the rules call them)."""
from .base import NO_CLAN, Clan, NoClan

#: clan name (lower case, as in the rulebook) -> instance; filled by the clan modules
CLANS: dict[str, Clan] = {}


def register(cls):
    CLANS[cls.name] = cls()
    return cls


def clan_names(kickstarter: bool = False, industria_clans: bool = False) -> list[str]:
    """The clan tiles in the box for a configuration, in rulebook order: the base eight, MacEwen
    with the Kickstarter option, the nine Industria clans with ``industria_clans``."""
    from .. import data as D
    return list(D.CLANS_BASE) + (list(D.CLANS_KICKSTARTER) if kickstarter else []) + \
        (list(D.CLANS_INDUSTRIA) if industria_clans else [])


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
