"""Rulebook, Phase 2 "5. Upgrade Technology" and "6. Hire a Merchant" (Shipping: see
test_rules_expand.py)."""
import pytest

from clans_env import IllegalActionError
from helpers import act, blank_position, legal_names, start_turn


@pytest.mark.parametrize("which,idx", [("woodcutter", 0), ("miner", 1)])
def test_upgrade_technology_costs_ten_once(which, idx):
    """5. Upgrade Technology: pay £10 and flip the corresponding Technology tile (once)."""
    g = blank_position(2)
    p = g.current_player
    act(g, f"upgrade_tech:{which}")
    assert g.players[p].money == 90
    assert g.players[p].tech[idx] and not g.players[p].tech[1 - idx]
    start_turn(g, p)
    assert f"upgrade_tech:{which}" not in legal_names(g)
    assert f"upgrade_tech:{('miner', 'woodcutter')[idx]}" in legal_names(g)


def test_upgrade_technology_needs_ten_pounds():
    """5. Upgrade Technology: £10 (outside a Bonus upgrade)."""
    g = blank_position(2, money=9)
    assert not any(n.startswith("upgrade_tech") for n in legal_names(g))
    with pytest.raises(IllegalActionError):
        act(g, "upgrade_tech:miner")


def test_hire_merchant():
    """6. Hire a Merchant: pay £4, take a Merchant from the Player board into your stock; usable
    in later Trades; not possible once the Merchant track is empty."""
    g = blank_position(2)
    p = g.current_player
    for k in range(1, 6):
        start_turn(g, p)
        act(g, "hire_merchant")
        pl = g.players[p]
        assert pl.money == 100 - 4 * k
        assert pl.merchants_board == 5 - k and pl.merchants_stock == 2 + k
    start_turn(g, p)
    assert "hire_merchant" not in legal_names(g)
    assert "trade:buy:wool:7" in legal_names(g)


def test_hire_merchant_needs_four_pounds():
    """6. Hire a Merchant: pay £4."""
    g = blank_position(2, money=3)
    assert "hire_merchant" not in legal_names(g)
