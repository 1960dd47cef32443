"""The hook points where an optional module (an Industria module, the Automa) changes the base rules.

The base rules call the active modules at named points and never test a module's config flag or
import a module's rules. A module is a stateless subclass of ``Module`` living beside its rule
text (``rules/refill_board.py`` defines ``RefillBoard``, ...) and registered by name with
``@register``; ``GameConfig.modules`` says which modules a game has, in ``MODULE_ORDER``. A
``Hooks`` object holds, for each hook point, the bound methods of the active modules that
override it (in that order); it is built once per module set and shared by every game and clone
with those modules (``Game.hooks``). A module that is off registers no hook, so a base game's
hook tuples are empty and it pays one empty loop per point, and a module's per-game state
never lives in its object. A module's own decision kinds still register through
``rules/registry.py`` (``@legal_for``, ``@apply_for``, ...), its Port and Scoring tiles through
``registry.PORT_TILES`` / ``registry.SCORING_TILES``.

Where each hook is called (so a reader can follow a module into the base rules):

======================  ================================================================================
hook                    called from
======================  ================================================================================
seats                   ``Hooks`` (once per module set): the seats the module plays itself
                        (``Hooks.engine_seats``; the Automa); rules/setup.py (Turn order), clan_setup.py
                        (who chooses a clan and places Workers), scoring.py (no Scoring phase)
port_tile_pool          rules/setup.py ``setup_game``: Port tiles added to the random pool (tiles 10-18)
scoring_tile_pool       rules/setup.py ``setup_game``: Scoring tiles added to the random pool
setup                   rules/setup.py ``setup_game``, after the players' clan decisions are stacked
setup_seats             rules/clan_setup.py ``setup_players``: the module's own seats' setup (Automa)
setup_frames            rules/clan_setup.py ``setup_placements``: decisions before the first Workers
                        (Farmers markets R1.6, the Automa's starting Workers)
late_setup_frames       rules/clan_setup.py ``setup_placements``: decisions after the first Workers
                        (the first Trains, R1.12-R1.13)
prepare_round           rules/setup.py ``prepare_round``, after the Merchants are retrieved (Train
                        module R2.2-R2.5, Milestone variant B R16.4, the Automa's cards)
after_prepare_round     rules/clan_setup.py ``preparation_extras``, after the solo game's (R16.1 prices)
contract_source         rules/setup.py ``refill_display``, rules/contracts.py (Building bonus): the
                        face-up contracts drawn before the pile (None: the pile; refill board R2.1, R9.3)
display_refilled        rules/setup.py ``refill_display``, after the Export board is filled (R2.1)
main_options            rules/turn.py ``legal_main``: main actions a module adds (Train R13.1,
                        Claim a Milestone R13.19)
apply_main              rules/turn.py ``apply_main``: True when the module took the action
take_turn               rules/turn.py ``next_turn``: the turn of a seat the module plays (Automa)
passing_bonus           rules/turn.py ``do_pass``: the Passing bonus (Industria overlay R1.4, R8.1)
produce                 rules/production.py ``produce``: production of a seat the module plays (Automa)
first_worker_mask       rules/expand.py ``first_worker_targets`` (the Automa game: away from markets)
deployment_markets      rules/expand.py ``expansion_bonuses``, rules/ports.py ``exchange_finished``:
                        Farmers markets a deployment triggers (R3.2, R7)
sellable_markets        rules/expand.py ``bonus_menu_rest``: the markets of a bonus menu p can still sell at
score_split             rules/scoring.py ``final_scores``: Export and Settlement bonus VP (alternative
                        2-player scoring R15.8-R15.9, the Automa's majorities)
award_vp                rules/scoring.py ``final_scores``: the Award column (R10)
score_lines             rules/scoring.py ``final_scores``: extra score lines per seat (R14.2-R14.4)
score_row               rules/scoring.py ``final_scores``: the whole row of a seat the module plays
======================  ================================================================================

A module's per-game state is one slotted record in ``Game.modstate`` under its name (``Module.record``, a
``Record``; docs/architecture.md "Module state" lists them); ``RECORDS`` names every record class.

Besides the hooks, ``Hooks.industria`` is True when any Industria module (or the Industria clans) is
on: the errata that apply with Industria (Port tile 7's exchange is a deployment, A441/A620) read it.

How to add a module: docs/architecture.md.
"""
from __future__ import annotations

#: the modules in hook order: where two modules use one hook point, the earlier one runs first (each
#: order is the order of the rules: the refill board is filled before the Award tile is drawn, ...)
MODULE_ORDER = ("refill_board", "awards", "variable_prices", "farmers_markets", "industria_tiles", "trains",
                "alt_two_player_scoring", "automa")

HOOK_POINTS = ("port_tile_pool", "scoring_tile_pool", "setup", "setup_seats", "setup_frames",
               "late_setup_frames", "prepare_round", "after_prepare_round", "contract_source",
               "display_refilled", "main_options", "apply_main", "take_turn", "passing_bonus", "produce",
               "first_worker_mask", "deployment_markets", "sellable_markets", "score_split", "award_vp", "score_lines",
               "score_row")


class Module:
    """A module's hook methods; a subclass overrides the ones it needs (the others are never called)."""
    #: the name ``GameConfig.modules`` gives it
    name = ""
    #: the class of its per-game state: one slotted record in ``Game.modstate[name]`` (cloned with
    #: ``copy``, saved with ``to_dict`` / ``from_dict``; ``from_misc`` pops an older save's ``misc``
    #: keys into ``to_dict``'s layout), or None for a module without state
    record: type | None = None
    def seats(self, config) -> tuple:
        return ()

    def port_tile_pool(self, g) -> tuple:
        return ()

    def scoring_tile_pool(self, g) -> tuple:
        return ()

    def setup(self, g) -> None:
        pass

    def setup_seats(self, g) -> None:
        pass

    def setup_frames(self, g) -> list:
        return []

    def late_setup_frames(self, g) -> list:
        return []

    def prepare_round(self, g) -> None:
        pass

    def after_prepare_round(self, g) -> None:
        pass

    def contract_source(self, g):
        return None

    def display_refilled(self, g) -> None:
        pass

    def main_options(self, g, frame, out: list) -> None:
        pass

    def apply_main(self, g, p: int, action: int) -> bool:
        return False

    def take_turn(self, g, p: int) -> None:
        pass

    def passing_bonus(self, g, p: int, bonus: int) -> int:
        return bonus

    def produce(self, g, p: int) -> None:
        pass

    def first_worker_mask(self, g, p: int, unit: int, mask: int) -> int:
        return mask

    def deployment_markets(self, g, p: int, space: int) -> tuple:
        return ()

    def sellable_markets(self, g, p: int, markets: tuple) -> tuple:
        return markets

    def score_split(self, g, exports: list, settle: list, split: tuple) -> tuple:
        return split

    def award_vp(self, g) -> list:
        return [0] * g.num_players

    def score_lines(self, g) -> list:
        return []

    def score_row(self, g, p: int, import_vp: int, export_vp: int, settle_vp: int) -> dict:
        return {}


class _PythonClass(type):
    """The metaclass of ``Record``: mypyc compiles a class with a metaclass of its own as an ordinary Python
    class, so a record class in a compiled rule file keeps ``__slots__`` (which ``__init__``, ``copy`` and
    the save's layout read) and the ``copy`` written for it below; a native class would have neither."""


class Record(metaclass=_PythonClass):
    """A module's per-game state as one slotted record of plain fields (ints and lists of ints), kept in
    ``Game.modstate[name]``: a subclass names its fields in ``__slots__`` and, per field, the ``g.misc``
    key that saves of version 4 and older kept it under (``MISC``), so ``from_misc`` can load those saves.
    ``copy`` copies the lists (clone), ``to_dict`` / ``from_dict`` are the save's layout."""
    __slots__ = ()
    #: field -> (the misc key of older saves, the field's value when that key was absent)
    MISC: dict = {}
    #: True for a record no rule writes after setup: clones share it (``copy`` returns it)
    SHARED = False

    def __init__(self, *values):
        for name, v in zip(self.__slots__, values):
            setattr(self, name, v)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "copy" in cls.__dict__:
            return
        # Game.clone copies every record in every search node: a copy with the fields written out (as
        # dataclasses write their __init__) costs a third of the loop of ``Record.copy``
        body = "".join(f"    r.{n} = v[:] if (v := s.{n}).__class__ is list else v\n" for n in cls.__slots__)
        ns = {"new": object.__new__, "cls": cls}
        exec(f"def copy(s):\n    r = new(cls)\n{body}    return r\n", ns)
        cls.copy = (lambda s: s) if cls.SHARED else ns["copy"]

    def copy(self):
        if self.SHARED:
            return self
        r = object.__new__(type(self))
        for name in self.__slots__:
            v = getattr(self, name)
            setattr(r, name, v[:] if type(v) is list else v)
        return r

    def __reduce__(self):
        # pickled through the constructor, as the compiled engine's native classes must be
        return type(self), tuple(getattr(self, name) for name in self.__slots__)

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_dict(cls, d: dict):
        missing = [name for name in cls.__slots__ if name not in d]
        if missing or len(d) != len(cls.__slots__):
            raise ValueError(f"{cls.__name__} has the fields {list(cls.__slots__)}, not {sorted(d)}")
        return cls(*(d[name] for name in cls.__slots__))

    @classmethod
    def from_misc(cls, misc: dict) -> dict | None:
        """Saves of version 4 and older kept this state in ``misc`` (``MISC``): those keys, popped, in
        ``to_dict``'s layout (None when none of them is there: the module was off)."""
        if not any(key in misc for key, _ in cls.MISC.values()):
            return None
        return {name: misc.pop(key) if key in misc else (default[:] if type(default) is list else default)
                for name, (key, default) in cls.MISC.items()}


def field(g, name: str, attr: str, default=()):
    """Field ``attr`` of the record ``name`` in ``g.modstate``, or ``default`` when the game has none."""
    rec = g.modstate.get(name)
    return getattr(rec, attr) if rec is not None else default


#: name -> the module's (stateless) instance, filled by ``@register`` as the rule files load
MODULES: dict = {}
#: name in ``Game.modstate`` -> its record class: each module's ``record`` (``@register``), and the state
#: that several modules write through the occupancy layer (rules/common.py's second units, which the
#: stacking Port tiles, Clan MacPherson and Delivery bonuses place), made when first needed
RECORDS: dict = {}


def register(cls):
    """Class decorator: make a Module subclass available to ``GameConfig.modules`` by its name."""
    assert cls.name in MODULE_ORDER, f"module {cls.name!r} needs a place in MODULE_ORDER"
    MODULES[cls.name] = cls()
    if cls.record is not None:
        RECORDS[cls.name] = cls.record
    return cls


def define(name: str, doc: str, record=None, **hooks):
    """Register a module whose hooks are its rule file's own functions, by hook point name (each called
    with the hook's arguments, without ``self``), and the class of its state (``Module.record``):
    ``define("awards", "...", record=AwardState, setup=setup_award, ...)``."""
    unknown = sorted(set(hooks) - set(HOOK_POINTS) - {"seats"})
    if unknown:
        raise ValueError(f"{unknown} are no hook points; valid: {HOOK_POINTS}")
    attrs = {"name": name, "__doc__": doc, "record": record, **{point: staticmethod(fn) for point, fn in hooks.items()}}
    return register(type("".join(w.title() for w in name.split("_")), (Module,), attrs))


class Hooks:
    """Per hook point, the tuple of the active modules' bound methods that override it."""
    __slots__ = HOOK_POINTS + ("modules", "engine_seats", "industria")

    def __init__(self, modules: tuple, config):
        self.modules = modules
        for point in HOOK_POINTS:
            base = getattr(Module, point)
            setattr(self, point, tuple(getattr(m, point) for m in modules if getattr(type(m), point) is not base))
        self.engine_seats = tuple(s for m in modules for s in m.seats(config))
        self.industria = bool(config.industria_modules)


_HOOKS: dict = {}


def hooks_for(config) -> Hooks:
    """The ``Hooks`` of a game with this config (built once per module set and seats)."""
    names = config.modules
    key = (names, config.automa_seats, bool(config.industria_modules))
    hooks = _HOOKS.get(key)
    if hooks is None:
        missing = [n for n in names if n not in MODULES]
        if missing:
            raise RuntimeError(f"modules {missing} are not loaded (their rule files register them)")
        hooks = _HOOKS[key] = Hooks(tuple(MODULES[n] for n in names), config)
    return hooks
