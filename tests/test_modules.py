"""Expansion modules as plug-ins (engine/modules.py; docs/architecture.md, "How to add a module").

A toy module is added through the documented steps and a game is played with it; a base game is the
same game with the toy registered, and a base game has no hook at all.
"""
from __future__ import annotations

import pickle
import random
from dataclasses import dataclass

import pytest

from clans_env.engine import Game, GameConfig
from clans_env.engine import modules as M
from clans_env.engine.rules.setup import prepare_round

TOY_PAY = 1


class Toy(M.Module):
    """Step 2: a Module subclass overriding the hook it needs (Preparation: pay every player £1)."""
    name = "toy"

    def prepare_round(self, g) -> None:
        for pl in g.players:
            pl.money += TOY_PAY
        g.misc["toy_paid"] = g.misc.get("toy_paid", 0) + 1      # per-game state lives in the game


@dataclass(frozen=True)
class ToyConfig(GameConfig):
    """Step 3: a config field that switches the module on (a test cannot edit config.py's fields)."""
    toy: bool = False

    @property
    def modules(self) -> tuple[str, ...]:
        return super().modules + (("toy",) if self.toy else ())


@pytest.fixture
def toy():
    """Step 2's ``@register`` (and a place in MODULE_ORDER), undone after the test."""
    order = M.MODULE_ORDER
    M.MODULE_ORDER = order + ("toy",)
    M.register(Toy)
    yield
    del M.MODULES["toy"]
    M.MODULE_ORDER = order
    for key in [k for k in M._HOOKS if "toy" in k[0]]:
        del M._HOOKS[key]


def _play(config, seed=0):
    g = Game(config)
    rng = random.Random(seed)
    actions = []
    while not g.is_terminal():
        a = rng.choice(g.legal_actions())
        actions.append(a)
        g.apply(a)
    return g, actions


def test_a_base_game_has_no_hook():
    g = Game(GameConfig(num_players=3, seed=5))
    assert g.config.modules == ()
    assert all(getattr(g.hooks, point) == () for point in M.HOOK_POINTS)
    assert g.hooks.engine_seats == () and not g.hooks.industria


def test_hooks_are_built_once_per_module_set_and_shared_by_clones():
    a = Game(GameConfig(num_players=2, seed=1, industria=True))
    b = Game(GameConfig(num_players=2, seed=2, industria=True))
    assert a.hooks is b.hooks is a.clone().hooks
    assert a.config.modules == ("refill_board", "awards", "variable_prices", "farmers_markets", "industria_tiles",
                                "trains", "alt_two_player_scoring")
    assert [fn.__self__.name for fn in a.hooks.score_split] == ["alt_two_player_scoring"]
    automa = Game(GameConfig(num_players=2, seed=1, automa={1: 3}))
    assert automa.config.modules == ("automa",) and automa.hooks.engine_seats == (1,)


def test_a_module_that_is_off_registers_no_hook(toy):
    g = Game(ToyConfig(num_players=2, seed=3))
    assert g.config.modules == () and g.hooks.prepare_round == ()


def test_the_toy_module_pays_in_every_preparation(toy):
    g = Game(ToyConfig(num_players=2, seed=3, toy=True))
    assert g.config.modules == ("toy",)
    assert [fn.__self__.name for fn in g.hooks.prepare_round] == ["toy"]
    before = [pl.money for pl in g.players]
    prepare_round(g)
    assert [pl.money for pl in g.players] == [m + TOY_PAY for m in before]
    base = Game(GameConfig(num_players=2, seed=3))
    before = [pl.money for pl in base.players]
    prepare_round(base)
    assert [pl.money for pl in base.players] == before       # the same step without the toy pays nothing


def test_a_game_with_the_toy_module_plays_to_the_end(toy):
    g, _ = _play(ToyConfig(num_players=3, seed=7, toy=True))
    assert g.misc["toy_paid"] == 4                            # the Preparations of rounds 2-5
    assert len(g.final_scores()) == 3


def test_a_base_game_is_unaffected_by_the_registered_toy(toy):
    """The same seed gives the same game with the toy registered (and switched off) as without it."""
    with_toy, actions_with = _play(ToyConfig(num_players=3, seed=11), seed=11)
    del M.MODULES["toy"]
    try:
        without, actions_without = _play(GameConfig(num_players=3, seed=11), seed=11)
    finally:
        M.register(Toy)
    assert actions_with == actions_without
    assert with_toy.final_scores() == without.final_scores()
    assert "toy_paid" not in with_toy.misc


def test_define_refuses_an_unknown_hook_point():
    with pytest.raises(ValueError, match="no hook points"):
        M.define("toy", "a module with a misspelt hook", prepare_rounds=lambda g: None)
    assert "toy" not in M.MODULES


def test_clone_copies_the_module_records_and_shares_only_the_setup_ones():
    """Game.clone copies each record in ``Game.modstate`` (its lists too), so a clone's moves never show in
    the original; a record no rule writes after setup (``Record.SHARED``: the Award tile, the starting price
    dice) is shared."""
    g = Game(GameConfig(num_players=3, seed=3, industria=True))
    r = random.Random(1)
    for _ in range(60):
        g.apply(r.choice(g.legal_actions()))
    before = g.to_json()
    c = g.clone()
    assert set(c.modstate) == set(g.modstate)
    for name, rec in g.modstate.items():
        if type(rec).SHARED:
            assert c.modstate[name] is rec
            continue
        assert c.modstate[name] is not rec
        for f in rec.__slots__:
            if type(getattr(rec, f)) is list:
                assert getattr(c.modstate[name], f) is not getattr(rec, f), (name, f)
    while not c.is_terminal():
        c.apply(r.choice(c.legal_actions()))
    assert g.to_json() == before
    for name, rec in g.modstate.items():       # root-parallel search pickles positions
        assert pickle.loads(pickle.dumps(rec)).to_dict() == rec.to_dict(), name
