"""Game configuration: player count, seed and the rulebook's variants."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from .board import SIDE_NAMES
from .modules import MODULE_ORDER
from .rng import SEEDS
from . import data as D

CLAN_SELECTIONS = ("none", "draft", "auction")
#: the GameConfig fields of the Industria modules this engine has (``industria=True`` turns them on)
INDUSTRIA_MODULES = ("farmers_markets", "awards", "refill_board", "industria_tiles", "variable_prices",
                     "alt_two_player_scoring", "industria_clans", "trains")
#: GameConfig.milestones: the Milestone variants played without the Train module (R16.2-R16.4)
MILESTONE_VARIANTS = ("variant_a", "variant_b")


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes a game before its first decision.

    num_players: 1 (solo game) to 4.
    seed: seeds the game's own generator (map sides, tiles, shuffles, dice): an int in 0..2**64-1.
    clans: fix the clans in seat order (lower-case rulebook names), instead of choosing them: only
        with clan_selection left at "draft" (with "auction" or "none" it is refused as contradictory).
    clan_selection: "draft" (rulebook Setup: Clans; the default), "auction" (Clan Auction) or
        "none" (Without Clans).
    static_imports: Simplifications - Static Import Goods (every import worth 4 VP).
    scoring_tiles / port_tiles: False plays "Without Scoring and/or Port Tiles".
    tighter_map: Tighter Game Map (2-3 players): four land spaces covered, one per module.
    kickstarter: adds the Kickstarter Port tile 9, Scoring tile 9 and clan MacEwen.
    map_sides: four side names in A, B, C, D order (e.g. ("A1","B2","C1","D2")); random if None.

    Industria modules (player aid with Industria; rule numbers of docs/rules-index.md).
    Each is its own field; ``industria=True`` switches on every Industria module the engine has,
    and a module given explicitly wins (``industria=True, awards=False``). With all of them off the
    game is exactly the base game (same decisions, indices and results for a seed).
    farmers_markets: Farmers markets and the Passing bonus overlay (R1.5-R1.7, R7, R8).
    awards: one Award tile (R1.3, R10; solo: an Award card's thresholds, R10.3).
    refill_board: the Export contract refill board (R1.1, R2.1, R9).
    industria_tiles: Port tiles 10-18 (the halves without the Train module) and Scoring tiles 10-18 join
        the random pools (R1.2, R11, R12); with them the Two units on a space and Moving rules (R4, R5).
    variable_prices: Variable Starting Market Prices (R16.1; with the Market Phase from round 2, R2.6).
    alt_two_player_scoring: the alternative 2-player Export and Settlement scoring (R15.8-R15.9).
    industria_clans: the nine Industria clans join the clan pool of the draft and the Clan Auction, and
        ``clans=[...]`` accepts them (player aid, "Clans"; R18).
    trains: the Train module (R1.8-R1.13, R13, R14.2-R14.4, R15.2-R15.7; solo R17.2-R17.5).
    milestones: None, or a Milestone variant without the Train module (R16.2-R16.4): "variant_a" (claim for
        £5) or "variant_b" (Demand tiles beside the Milestones, £15); not with trains=True.
        With an Automa both play among the players only: the Automa takes no Train action and claims no
        Milestone (Automa §6.3; readings A14-A17; docs/rules-index.md).

    automa: seats played by the Automa, the physical game's solo opponent, as a dict seat -> level
        1-5 (e.g. ``{1: 3}``: seat 1 is an Automa at level 3; docs/automa.md). Its turns are resolved
        by the engine (rules/automa.py); at least one seat stays a player. None: no Automa.
    """

    num_players: int = 4
    seed: int = 0
    clans: tuple | None = None
    clan_selection: str = "draft"
    static_imports: bool = False
    scoring_tiles: bool = True
    port_tiles: bool = True
    tighter_map: bool = False
    kickstarter: bool = False
    map_sides: tuple | None = None
    industria: bool = False
    farmers_markets: bool | None = None
    awards: bool | None = None
    refill_board: bool | None = None
    industria_tiles: bool | None = None
    variable_prices: bool | None = None
    alt_two_player_scoring: bool | None = None
    industria_clans: bool | None = None
    automa: dict | None = None
    trains: bool | None = None
    milestones: str | None = None

    def __post_init__(self):
        if self.automa is not None:       # an empty dict is no Automa (the base game's records)
            object.__setattr__(self, "automa", _automa_seats(self.automa, self.num_players) or None)
        if not isinstance(self.industria, bool):
            raise ValueError(f"industria must be True or False (got {self.industria!r})")
        for name in INDUSTRIA_MODULES:
            value = getattr(self, name)
            if value is None:
                # alternative 2-player scoring is an optional rule of the 2-player game only
                on = self.industria and (name != "alt_two_player_scoring" or self.num_players == 2) and \
                    (name != "trains" or self.milestones is None)
                object.__setattr__(self, name, on)
        if isinstance(self.clans, list):
            object.__setattr__(self, "clans", tuple(self.clans))
        if self.clans is not None and not isinstance(self.clans, tuple):
            # a set (or any unordered collection) would make the seat order depend on hashing
            raise ValueError(f"clans must be None or a list or tuple of clan names in seat order, e.g. "
                             f"['macdonald', 'stewart']; got {self.clans!r} of type {type(self.clans).__name__}")
        if isinstance(self.map_sides, (list, str)):
            sides = self.map_sides.split() if isinstance(self.map_sides, str) else self.map_sides
            object.__setattr__(self, "map_sides", tuple(sides))
        self.validate()

    def validate(self) -> None:
        """Raise ValueError naming the valid choices for any bad field (called on construction)."""
        if not _is_int(self.num_players) or self.num_players not in (1, 2, 3, 4):
            raise ValueError(f"num_players must be one of 1, 2, 3, 4 (got {self.num_players!r})")
        if not _is_int(self.seed):
            raise ValueError(f"seed must be an int (got {self.seed!r} of type {type(self.seed).__name__})")
        if not 0 <= self.seed < SEEDS:
            raise ValueError(f"seed must be an int in 0..2**64-1 (got {self.seed}): the game's generator has 2**64 "
                             f"seeds, and one outside them would only repeat the game of one inside")
        if not isinstance(self.clan_selection, str) or self.clan_selection not in CLAN_SELECTIONS:
            raise ValueError(f"clan_selection must be one of {CLAN_SELECTIONS} (got {self.clan_selection!r})")
        if self.clans is not None and self.clan_selection != "draft":
            # fixed clans replace the choosing of clans: an auction (or Without Clans) asked for as
            # well cannot both happen
            raise ValueError(f"clans={list(self.clans)!r} fixes the clans, but clan_selection={self.clan_selection!r} "
                             f"asks for them to be chosen otherwise; give clans (with clan_selection left at "
                             f"'draft') or clan_selection, not both")
        if self.tighter_map and self.num_players not in (2, 3):
            raise ValueError("tighter_map is a variant for 2 or 3 players (the 4 player map is already tight; "
                             f"got num_players={self.num_players})")
        if self.map_sides is not None:
            if not isinstance(self.map_sides, tuple) or len(self.map_sides) != 4 or \
                    any(not isinstance(s, str) for s in self.map_sides) or any(s not in SIDE_NAMES for s in self.map_sides) or \
                    [s[0] for s in self.map_sides] != ["A", "B", "C", "D"]:
                raise ValueError(f"map_sides must be four sides in A, B, C, D order, each one of {SIDE_NAMES} "
                                 f"(got {self.map_sides!r})")
        if self.clans is not None:
            valid = clan_names(kickstarter=self.kickstarter, industria_clans=bool(self.industria_clans))
            if len(self.clans) != self.num_players:
                raise ValueError(f"clans must name one clan per player ({self.num_players}), got {self.clans!r}")
            everything = clan_names(kickstarter=True, industria_clans=True)
            automa = self.automa or {}
            for seat, c in enumerate(self.clans):
                if c is None and seat in automa:
                    continue                      # an Automa has no clan
                if not isinstance(c, str) or c not in valid:
                    hint = ""
                    if c in everything:
                        hint = (" (macewen needs kickstarter=True)" if c == "macewen" else
                                f" ({c} is an Industria clan: it needs industria_clans=True or industria=True)")
                    raise ValueError(f"unknown clan {c!r}; valid clans for this configuration: {valid}{hint}")
            named = [c for c in self.clans if c is not None]
            if len(set(named)) != len(named):
                raise ValueError(f"each clan can be played by one player only (got {self.clans!r})")
        for f in fields(self):
            if f.name in ("static_imports", "scoring_tiles", "port_tiles", "tighter_map", "kickstarter") + \
                    INDUSTRIA_MODULES and not isinstance(getattr(self, f.name), bool):
                raise ValueError(f"{f.name} must be True or False (got {getattr(self, f.name)!r})")
        if self.automa:
            _check_automa(self)
        if self.milestones is not None and self.milestones not in MILESTONE_VARIANTS:
            raise ValueError(f"milestones must be None or one of {MILESTONE_VARIANTS} (got {self.milestones!r})")
        if self.milestones is not None and self.trains:
            raise ValueError(f"milestones={self.milestones!r} is a variant without the Train module (R16.2); valid "
                             "combinations: trains=True with milestones=None, or trains=False with milestones one of "
                             f"{MILESTONE_VARIANTS}")
        if self.alt_two_player_scoring and self.num_players != 2:
            raise ValueError("alt_two_player_scoring is the alternative scoring of the 2-player game (R15.8-R15.9); "
                             f"valid with num_players=2 only (got num_players={self.num_players})")

    @property
    def industria_modules(self) -> tuple[str, ...]:
        """The Industria modules switched on (empty for a base game)."""
        return tuple(name for name in INDUSTRIA_MODULES if getattr(self, name))

    def to_dict(self) -> dict:
        """Plain JSON-serialisable fields (tuples as lists). A base game leaves the Industria fields
        out, so its records and saves are those of the base game."""
        d = asdict(self)
        for k in ("clans", "map_sides"):
            if d[k] is not None:
                d[k] = list(d[k])
        if not self.industria_modules and not self.industria and self.milestones is None:
            for k in ("industria", "milestones") + INDUSTRIA_MODULES:
                del d[k]
        if self.automa is None:
            del d["automa"]             # a game without an Automa keeps the base game's records
        else:
            d["automa"] = {str(seat): level for seat, level in self.automa.items()}   # JSON object keys
        return d

    @property
    def modules(self) -> tuple[str, ...]:
        """The optional rule modules this game has (``engine/modules.py``), in hook order; empty for a
        base game. The Train module's entry also carries the Milestone variants without trains."""
        on = {"trains": bool(self.trains or self.milestones), "automa": bool(self.automa)}
        return tuple(name for name in MODULE_ORDER if on.get(name, getattr(self, name)))

    @property
    def automa_seats(self) -> tuple[int, ...]:
        """Seats played by an Automa (empty without one)."""
        return tuple(self.automa) if self.automa else ()

    @classmethod
    def from_dict(cls, d: dict) -> "GameConfig":
        """Inverse of ``to_dict``; unknown keys raise ValueError listing the valid fields."""
        known = {f.name for f in fields(cls)}
        if not isinstance(d, dict):
            raise ValueError(f"a GameConfig is given as a dict of its fields {sorted(known)}; got "
                             f"{type(d).__name__}")
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown GameConfig fields {sorted(unknown)}; valid fields: {sorted(known)}")
        return cls(**d)


def clan_names(kickstarter: bool = False, industria_clans: bool = False) -> list[str]:
    """The clan tiles in the box for a configuration, in rulebook order: the base eight, MacEwen
    with the Kickstarter option, the nine Industria clans with ``industria_clans``."""
    return list(D.CLANS_BASE) + (list(D.CLANS_KICKSTARTER) if kickstarter else []) + \
        (list(D.CLANS_INDUSTRIA) if industria_clans else [])


def _automa_seats(automa, num_players) -> dict:
    """``automa`` as a dict int seat -> int level (seat keys may be digit strings, as JSON writes
    them); ValueError naming the valid seats and levels."""
    seats = list(range(num_players)) if _is_int(num_players) else "0..num_players-1"
    if not isinstance(automa, dict):
        raise ValueError(f"automa must be a dict seat -> level (1-5), e.g. {{1: 3}}; seats are {seats}; got "
                         f"{automa!r} of type {type(automa).__name__}")
    out = {}
    for seat, level in automa.items():
        if isinstance(seat, str) and seat.isdigit():
            seat = int(seat)
        if not _is_int(seat) or (_is_int(num_players) and not 0 <= seat < num_players):
            raise ValueError(f"automa seat {seat!r} is not a seat of this game; valid seats: {seats}")
        if not _is_int(level) or not 1 <= level <= 5:
            raise ValueError(f"automa level {level!r} for seat {seat} is not a level; valid levels: 1, 2, 3, 4, 5")
        out[seat] = level
    return dict(sorted(out.items()))


def _check_automa(cfg) -> None:
    seats = cfg.automa
    if cfg.num_players - len(seats) < 1:
        raise ValueError(f"automa {seats}: at least one seat must be a player (num_players={cfg.num_players}; "
                         f"valid Automa seats: any {cfg.num_players - 1} of {list(range(cfg.num_players))})")
    if cfg.clan_selection == "auction":
        raise ValueError("clan_selection='auction' is not played with an Automa (it has no clan); valid with an "
                         "Automa: 'draft', 'none' or fixed clans")
    if cfg.clans is not None:
        for seat, c in enumerate(cfg.clans):
            if (seat in seats) != (c is None):
                raise ValueError(f"with an Automa, clans names a clan for each player seat and None for each "
                                 f"Automa seat {sorted(seats)} (got {cfg.clans!r})")


def _is_int(x) -> bool:
    """An int that is not a bool (True would otherwise count as 1 player)."""
    return isinstance(x, int) and not isinstance(x, bool)
