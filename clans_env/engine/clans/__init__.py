"""Clan abilities: one module per clan, each a ``Clan`` subclass hooking named rule points."""
from .base import NO_CLAN, Clan, NoClan

#: clan name (lower case, as in the rulebook) -> instance; filled by the clan modules
CLANS: dict[str, Clan] = {}


def register(cls):
    CLANS[cls.name] = cls()
    return cls


def get_clan(name):
    if name is None:
        return NO_CLAN
    try:
        return CLANS[name]
    except KeyError:
        raise ValueError(f"unknown clan {name!r}; valid clans: {sorted(CLANS)}") from None


__all__ = ["Clan", "NoClan", "NO_CLAN", "CLANS", "register", "get_clan"]
