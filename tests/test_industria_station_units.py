"""The Train station as one of its owner's units where a text counts units on spaces (R13.16, reading I18),
and Delivery bonus 15's free space as a Free space for a clan's ways to expand (R13.26 tile 15, C-S5)."""
from __future__ import annotations

import pytest

from clans_env.engine import data as D
from clans_env.engine.invariants import check_invariants
from clans_env.engine.rules import awards as AW
from clans_env.engine.rules.scoring import scoring_tile_glory
from clans_env.engine.topology import bits
from helpers import act, label, put, start_turn
from test_industria_clans_b import land_skip, paid, position, rail_targets
from test_industria_trains import _grass_where, push_bonus, train_position
from test_industria_trains_corrections import _station_for


def _around_central_loch(g):
    around = g.topo.central_loch
    for s in bits(g.topo.central_loch):
        for t in g.board.adjacent[s]:
            around |= 1 << t
    return around


#: Award tile -> the spaces it counts units on (R10.2: 1 "Most units on the game board", 8 "Most units
#: along rivers", 9 "Most units next to lochs")
AWARD_SPACES = {1: lambda g: g.topo.land_mask, 8: lambda g: g.topo.along_river, 9: lambda g: g.topo.next_to_loch}


@pytest.mark.parametrize("tile", sorted(AWARD_SPACES))
def test_awards_1_8_9_count_the_train_station_as_a_unit(tile):
    """R10.2 Awards 1, 8, 9 count "units" on spaces; R13.16 "Your Train station counts as one of your units
    on that space" (I18, as T7 for Milestones 11-13 and I15 for Award 5)."""
    g = train_position(3)
    p, q = 0, 1
    where = AWARD_SPACES[tile](g)
    a, b = _grass_where(g, lambda s: where >> s & 1, 2)
    put(g, p, "sheep", a)
    assert AW.measure(g, p, tile) == 1
    _station_for(g, p, q, b)
    assert AW.measure(g, p, tile) == 2
    assert AW.measure(g, q, tile) == 1                               # the other player's unit stays its own
    check_invariants(g)


#: Scoring tile -> (the spaces it counts units on, Glory from one unit there plus the station)
TILE_SPACES = {
    5: (lambda g: g.topo.border, 3),                                  # "3 Glory per 2 units on border spaces"
    9: (lambda g: g.topo.cost56, 4),                                  # "2 Glory for each of your occupied spaces"
    14: (_around_central_loch, 3),                                    # "3 Glory per 2 of your units on or adjacent"
    15: (lambda g: g.topo.land_mask & ~g.topo.next_to_loch, 4),       # "2 Glory per unit of yours on a land space"
}


@pytest.mark.parametrize("tile", sorted(TILE_SPACES))
def test_scoring_tiles_5_9_14_15_count_the_train_station_as_a_unit(tile):
    """Scoring tiles 5, 9 (base) and R12.14, R12.15 count p's units (or spaces with them, Q3): the Train station is one
    (R13.16, I18)."""
    g = train_position(3)
    p, q = 0, 1
    where, glory = TILE_SPACES[tile]
    a, b = _grass_where(g, lambda s: where(g) >> s & 1, 2)
    put(g, p, "sheep", a)
    before = scoring_tile_glory(g, p, tile)
    _station_for(g, p, q, b)
    assert before == glory // 2 * (tile in (9, 15)) and scoring_tile_glory(g, p, tile) == glory


@pytest.mark.parametrize("tile", (10, 13, 16, 17))
def test_scoring_tiles_of_unit_types_leave_the_train_station_out(tile):
    """R12.10, R12.13, R12.16, R12.17 count animals, production chains, unit types, pairs of one type: the
    station is of no unit type (Q16, T7), so it adds nothing."""
    g = train_position(3)
    p, q = 0, 1
    grass = _grass_where(g, lambda s: True, 20)
    a, b = next((x, y) for x in grass for y in grass if g.topo.neighbours[x] >> y & 1)   # the station next to a
    put(g, p, "sheep", a)
    before = scoring_tile_glory(g, p, tile)
    _station_for(g, p, q, b)
    assert scoring_tile_glory(g, p, tile) == before


def test_bonus_15_free_space_offers_sinclairs_railroad_reach():
    """R13.26 tile 15 "1 free space" is the aid's Free space, "an Expand action without paying the land cost
    (... all normal Expand rules apply)", so Railroad Reach ("when expanding", R18.S2) applies there as in
    the Direct export bonus (C-S5): the skip money and the unit cost, no land cost, the Bonus upgrade first."""
    g = position("sinclair", trains=True)
    a, m, b = land_skip(g)
    put(g, 0, "sheep", a)
    start_turn(g, 0)
    push_bonus(g, 0, 15, 0b010)                                      # the free space part only
    act(g, "choose:1")
    assert b in rail_targets(g)
    act(g, "choose:0", "expand:sheep")
    assert paid(g, f"space:{label(g, b)}") == D.SINCLAIR_LAND_SKIP_COST + D.UNIT_COST[D.SHEEP]
    assert g.occupant[b] == 0 and g.decision_kind == "bonus_upgrade"
    check_invariants(g)
