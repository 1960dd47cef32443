"""Rulebook "Variants": Simplifications (Static Import Goods, Without Scoring and/or Port
Tiles), Tighter Game Map, and the Kickstarter tiles."""
import random

import pytest

from clans_env import GameConfig
from clans_env.engine import actions as A
from clans_env.engine.rules.scoring import final_scores, import_values
from helpers import blank_position, expand_targets, make_game, play_setup, put, random_playout, start_turn


def test_static_imports_worth_four_each():
    """Simplifications, Static Import Goods: no matter how much was imported, each Cotton,
    Tobacco and Sugar cane is worth 4 VP at game end."""
    g = blank_position(3, static_imports=True)
    g.import_track = [9, 2, 5]
    assert import_values(g) == [4, 4, 4]
    g.players[0].imports = [6, 3, 2]
    assert final_scores(g)[0]["imports"] == 44


def test_without_scoring_tiles():
    """Simplifications, Without Scoring Tiles: no Scoring tiles are set up; Phase 4 gives no
    Glory (Glory then only comes from Port tile 4, so without Port tiles nobody gains any)."""
    g = make_game(3, 11, scoring_tiles=False, port_tiles=False)
    assert g.scoring_tiles == ()
    random_playout(g, random.Random(11))
    assert all(pl.glory == 0 for pl in g.players)
    assert all(r["glory"] == 0 for r in g.final_scores())


def test_without_port_tiles():
    """Simplifications, Without Port Tiles: no Port tiles; no Port action is ever offered."""
    g = make_game(2, 12, port_tiles=False)
    assert g.port_tiles == ()
    seen_port = []
    random_playout(g, random.Random(12),
                   on_step=lambda x: seen_port.extend(a for a in x.legal_actions()
                                                      if A.USE_PORT <= a < A.USE_PORT + 4))
    assert not seen_port


@pytest.mark.parametrize("n", [2, 3])
def test_tighter_map_covers_four_land_spaces(n):
    """Tighter Game Map: four land spaces of the active map are covered during setup (one per
    module); they are unavailable for placing Workers and for the Expand action."""
    g = make_game(n, 5, tighter_map=True)
    covered = list(g.covered)
    assert len(covered) == 4
    assert sorted(g.board.module[s] for s in covered) == [0, 1, 2, 3]
    active = g.board.active(n)
    for s in covered:
        assert g.board.kind[s] == 0 and active[s] and g.occupant[s] == -2
    # first Workers never go there
    while g.decision_kind == "start_tile":
        g.apply(g.legal_actions()[0])
    for unit in ("woodcutter", "miner"):
        c = g.clone()
        c.apply(c.string_to_action(f"expand:{unit}"))
        assert not {a - A.SPACE for a in c.legal_actions()} & set(covered)
    # nor does any expansion, even right next to them
    g = blank_position(n, seed=5, tighter_map=True)
    p = g.current_player
    for s in covered:
        for t in g.board.neighbours[s]:
            if g.board.kind[t] == 0 and active[t] and g.occupant[t] == -1 and g.board.land[t] & 1:
                put(g, p, "sheep", t)
                break
    start_turn(g, p)
    for unit in ("cow", "woodcutter", "miner"):
        assert not expand_targets(g, unit) & set(covered)
    assert g.public_state()["map"]["spaces"][covered[0]]["occupant"] == "blocked"


def test_tighter_map_differs_by_seed():
    """Tighter Game Map: the covered spaces are chosen at random."""
    assert len({make_game(2, seed, tighter_map=True).covered for seed in range(10)}) > 1


def test_tighter_map_only_for_two_or_three_players():
    """Tighter Game Map: a 2-3 player variant ('the 4 player map is already tight')."""
    with pytest.raises(ValueError, match="2 or 3 players"):
        GameConfig(num_players=4, tighter_map=True)


def test_kickstarter_scoring_tile_9():
    """Kickstarter: Scoring tile 9 joins the Scoring tile pool only with kickstarter=True."""
    seen = set()
    for seed in range(40):
        seen.update(make_game(2, seed, kickstarter=True).scoring_tiles)
        assert 9 not in make_game(2, seed).scoring_tiles
    assert 9 in seen


def test_variants_combine():
    """Variants: 'These variants can be played in any combination.'"""
    g = make_game(3, 13, static_imports=True, scoring_tiles=False, port_tiles=False, tighter_map=True,
                  kickstarter=True)
    random_playout(g, random.Random(13))
    assert g.is_terminal()
    assert play_setup(make_game(2, 14, tighter_map=True, kickstarter=True)).round == 1
