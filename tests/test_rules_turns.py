"""Rulebook "Game Structure", "Phase 1: Preparation", "Phase 2: Action" (turns) and
"8. Pass"."""
import pytest

from clans_env.engine import data as D
from helpers import act, blank_position, legal_names, play_setup, make_game


def answer_until_main(g):
    """Decline follow-up decisions (post-main Port use etc.) until a main decision is pending."""
    while g.decision_kind not in ("main", None):
        names = legal_names(g)
        act(g, "done" if "done" in names else sorted(names)[0])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pass_bonus_by_pass_order_and_next_turn_order(n):
    """8. Pass: after passing, take the leftmost free Turn order position of the next round and
    its Pass bonus (1st £16, 2nd £14, 3rd £12, 4th £10: the printed values as the community
    transcription gives them); the pass order is the next round's turn order."""
    assert D.PASSING_BONUS == (16, 14, 12, 10)
    g = blank_position(n, money=50)
    order = list(g.turn_order)
    # the players pass in reverse turn order
    passers = order[::-1]
    for k, who in enumerate(passers):
        while g.current_player != who:
            act(g, "hire_merchant")
            answer_until_main(g)
        money = g.players[who].money
        act(g, "pass")
        if k < n - 1:                        # the last pass ends the Action phase
            assert g.players[who].passed and g.pass_order == passers[:k + 1]
            answer_until_main(g)
            assert g.current_player != who
        # (no units on the map: the Production after the last pass adds nothing)
        assert g.players[who].money == money + D.PASSING_BONUS[k]
    while g.round == 1:
        g.apply(g.legal_actions()[0])
    assert g.turn_order == passers
    assert g.current_player == passers[0]


def test_turns_rotate_one_action_each():
    """Phase 2: each player takes exactly one Action per turn, in turn order, until all have
    passed; passed players are skipped."""
    g = blank_position(3, money=100)
    order = list(g.turn_order)
    seen = []
    for _ in range(6):
        seen.append(g.current_player)
        act(g, "hire_merchant")
        answer_until_main(g)
    assert seen == order * 2
    act(g, "pass")                           # order[0] passes
    answer_until_main(g)
    seen = []
    for _ in range(4):
        seen.append(g.current_player)
        act(g, "hire_merchant")
        answer_until_main(g)
    assert seen == [order[1], order[2]] * 2


def test_preparation_retrieves_merchants_and_refills():
    """Phase 1: Preparation: refill empty boxes on the Export board, players retrieve their
    Merchants from the Market."""
    g = blank_position(4, money=100)
    p = g.current_player
    act(g, "trade:buy:wool:2")
    answer_until_main(g)
    q = g.current_player
    act(g, "take_contract:3")
    assert g.display[3] == -1
    top = g.pile[0]
    while g.round == 1:
        g.apply(g.legal_actions()[0])
    assert g.display[3] == top
    assert all(c >= 0 for c in g.display)
    assert g.players[p].merchants_stock == 2 and sum(g.players[p].merchants_market) == 0
    assert q != p


def test_five_rounds_then_game_over():
    """Game Structure: five rounds, then Final Scoring; no decision is pending afterwards."""
    g = play_setup(make_game(2, 7))
    rounds = [g.round]
    while not g.is_terminal():
        g.apply(g.legal_actions()[0])
        if g.round != rounds[-1]:
            rounds.append(g.round)
    assert rounds == [1, 2, 3, 4, 5]
    assert g.current_player is None and g.legal_actions() == [] and g.decision_kind is None
    assert len(g.final_scores()) == 2
