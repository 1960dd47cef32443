"""Rulebook "Phase 3: Production" (income, Basic goods, optional processing) and the
technology income of "5. Upgrade Technology"."""
import pytest

from clans_env.engine import data as D
from clans_env.engine.rules.production import start_production
from helpers import FOREST, GRASS, MOUNTAIN, act, active_land, blank_position, legal_names, put


def production_position(units, n=2, goods=None, tech=(False, False)):
    """Only player p has units (name -> count) on separate spaces; every player has passed."""
    g = blank_position(n, money=0)
    p = g.current_player
    pools = {"woodcutter": active_land(g, FOREST), "miner": active_land(g, MOUNTAIN)}
    grass = active_land(g, GRASS)
    used = set()
    for name, k in units.items():
        pool = pools.get(name, grass)
        for s in pool:
            if k == 0:
                break
            if s in used:
                continue
            put(g, p, name, s)
            used.add(s)
            k -= 1
        assert k == 0
    if goods:
        for good, q in goods.items():
            g.players[p].goods[D.GOOD_INDEX[good]] = q
    g.players[p].tech = list(tech)
    for pl in g.players:
        pl.passed = True
    g.pass_order = list(g.turn_order)
    g.stack = []
    start_production(g)
    g._advance()
    return g, p


def finish_production(g):
    """Answer any remaining processing decisions with 'process nothing'."""
    while g.phase == 2 and g.decision_kind == "process":
        act(g, "choose:0")


@pytest.mark.parametrize("tech,wood,mine", [((False, False), 4, 6), ((True, False), 6, 6),
                                            ((False, True), 4, 8), ((True, True), 6, 8)])
def test_worker_income(tech, wood, mine):
    """Phase 3, 1.: each Woodcutter earns £4 (£6 with the Technology upgrade), each Miner £6
    (£8 upgraded)."""
    g, p = production_position({"woodcutter": 2, "miner": 3}, tech=tech)
    finish_production(g)
    assert g.players[p].money == 2 * wood + 3 * mine


def test_basic_goods():
    """Phase 3, 2.: each Sheep produces one Wool, each Cow one Milk, each Field two Grain."""
    g, p = production_position({"sheep": 3, "cow": 2, "field": 2})
    finish_production(g)
    assert g.players[p].goods[:3] == [3, 2, 4]


def test_processing_is_optional_and_limited_by_factories_and_inputs():
    """Phase 3, 3.: each Cheese dairy MAY process one Milk into one Cheese; the number is limited
    by factories and by Milk available (from this or earlier phases or the Market)."""
    g, p = production_position({"cow": 1, "cheese_dairy": 3}, goods={"milk": 1})
    assert g.decision_kind == "process" and g.current_player == p
    assert legal_names(g) == {"choose:0", "choose:1", "choose:2"}      # 1 old + 1 new Milk, 3 dairies
    act(g, "choose:1")
    assert g.players[p].goods[D.MILK] == 1 and g.players[p].goods[D.CHEESE] == 1


def test_processing_limited_by_factories():
    """Phase 3, 3.: one input per factory."""
    g, p = production_position({"cheese_dairy": 2}, goods={"milk": 5})
    assert legal_names(g) == {"choose:0", "choose:1", "choose:2"}
    act(g, "choose:2")
    assert g.players[p].goods[D.MILK] == 3 and g.players[p].goods[D.CHEESE] == 2


def test_bread_and_whisky_compete_for_grain():
    """Phase 3, 3.: Bakeries and Distilleries both process Grain: Grain baked into Bread is no
    longer available for Whisky."""
    g, p = production_position({"bakery": 2, "distillery": 2}, goods={"grain": 3})
    offers = []
    while g.decision_kind == "process":
        most = max(int(n.split(":")[1]) for n in legal_names(g))
        offers.append(most)
        act(g, f"choose:{most}")
    assert offers == [2, 1]                  # 3 Grain: 2 for the first factory type, 1 left
    goods = g.players[p].goods
    assert goods[D.GRAIN] == 0
    assert goods[D.BREAD] + goods[D.WHISKY] == 3
    assert goods[D.BREAD] <= 2 and goods[D.WHISKY] <= 2


def test_all_grain_to_bread_leaves_no_whisky_decision():
    """Phase 3, 3.: with all Grain baked, the Distilleries have nothing to process."""
    g, p = production_position({"bakery": 2, "distillery": 2}, goods={"grain": 2})
    first = g.decision_text()
    assert "bread" in first
    act(g, "choose:2")
    assert not (g.decision_kind == "process" and g.current_player == p)
    assert g.players[p].goods[D.WHISKY] == 0 and g.players[p].goods[D.BREAD] == 2


def test_production_then_scoring_then_next_round():
    """Game Structure: Production (Phase 3) follows the Action phase, then Scoring (Phase 4),
    then the next round's Preparation."""
    g, p = production_position({"sheep": 1})
    finish_production(g)
    assert g.round == 2 and g.phase == 1 and g.decision_kind == "main"
    assert g.players[p].goods[D.WOOL] == 1
