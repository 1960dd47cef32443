"""Property tests over many random seeded games (issue 2): games always end, money and goods
never go negative, units never exceed their counts, no two units on a space, every unit on
matching land, contracts and Merchants are conserved, scores add up, save/load round-trips and
replay reproduces the same final scores."""
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.board import KIND_LAND
from clans_env.engine.rules.common import expand_targets
from clans_env.engine.topology import UNIT_LAND
from helpers import random_playout

SCORE_LINES = ("glory", "basic_goods", "processed_goods", "money", "hops", "imports", "export_bonus",
               "settlement_bonus")
ALL_CONTRACTS = sorted(c.id for c in D.CONTRACTS)


def check_invariants(g: Game) -> None:
    n = g.num_players
    active = g.board.active(n)
    union = 0
    for p, pl in enumerate(g.players):
        # money and goods never negative
        assert pl.money >= 0, (p, pl.money)
        assert all(q >= 0 for q in pl.goods), (p, pl.goods)
        # units never exceed their counts; map and board add up
        for u in range(D.NUM_UNITS):
            assert 0 <= pl.units_left[u] <= D.UNITS_PER_PLAYER[u], (p, u, pl.units_left)
        assert pl.spaces.bit_count() == sum(D.UNITS_PER_PLAYER) - sum(pl.units_left)
        # no two units on a space: players' spaces are disjoint
        assert not union & pl.spaces
        union |= pl.spaces
        # Merchants: 7 in all, none negative
        assert pl.merchants_board >= 0 and pl.merchants_stock >= 0 and min(pl.merchants_market) >= 0
        assert pl.merchants_board + pl.merchants_stock + sum(pl.merchants_market) == D.MERCHANTS_TOTAL
        for good in range(D.NUM_GOODS):                 # never on both areas of one Good
            assert not (pl.merchants_market[good * 2] and pl.merchants_market[good * 2 + 1])
        assert 0 <= pl.shipping <= D.MAX_SHIPPING
        assert len(pl.open_contracts) <= 1
        assert pl.ports_used < (1 << len(g.port_tiles)) if g.port_tiles else pl.ports_used == 0
        # the cached reach is what the units and the Shipping level give
        if pl.reach != -1:
            fresh = 0
            s, m = 0, pl.spaces
            while m:
                if m & 1:
                    fresh |= g.topo.reach[pl.shipping][s]
                m >>= 1
                s += 1
            assert pl.reach == fresh, p
    # every unit on matching, active land; occupancy arrays agree with the players' bit sets
    for s in range(g.board.num_spaces):
        occ = g.occupant[s]
        if occ >= 0:
            u = g.unit_at[s]
            assert g.players[occ].spaces >> s & 1
            assert g.board.kind[s] == KIND_LAND and active[s]
            assert g.board.land[s] & UNIT_LAND[u], (s, u)
            assert g.occupied >> s & 1
        elif occ == -2:
            assert s in g.covered and g.occupied >> s & 1
        else:
            assert occ == -1 and g.unit_at[s] == -1 and not g.occupied >> s & 1
            assert not union >> s & 1
    # prices on the track
    assert all(0 <= step <= D.MAX_STEP for step in g.prices)
    # every contract somewhere exactly once (display, pile, players, a pending Building bonus draw)
    # (or being fulfilled: its rewards hook waits under a slaughter decision)
    drawn = [c for f in g.stack if DECISION(f) == "building_bonus" for c in f[2] if c >= 0]
    fulfilling = [f[3] for f in g.stack if DECISION(f) == "hook" and f[2] == "fulfil_rewards"]
    where = ([c for c in g.display if c >= 0] + list(g.pile) + drawn + fulfilling
             + [c for pl in g.players for c in pl.open_contracts + pl.done_contracts])
    assert sorted(where) == ALL_CONTRACTS
    # the Import track is what the players imported; with Static Import Goods it does not move
    # ("No need to track Imported goods"), nor in the solo game
    if g.config.static_imports or n == 1:
        assert g.import_track == [0] * D.NUM_IMPORTS
    else:
        assert g.import_track == [sum(pl.imports[k] for pl in g.players) for k in range(D.NUM_IMPORTS)]
    # a decision is pending until the end, and only legal indices are offered
    legal = g.legal_actions()
    if g.is_terminal():
        assert legal == [] and g.current_player is None
    else:
        assert legal and legal == sorted(set(legal)) and 0 <= legal[0] and legal[-1] < A.NUM_ACTIONS
        assert 0 <= g.current_player < n
        if g.decision_kind == "main":
            # the fast Expand options agree with the full target computation (3. Expand)
            p = g.current_player
            for u in range(D.NUM_UNITS):
                assert (A.EXPAND + u in legal) == bool(expand_targets(g, p, u)), (p, D.UNITS[u])


def DECISION(frame):
    from clans_env.engine.state import DECISION_KINDS
    return DECISION_KINDS[frame[0]]


def check_scores(g: Game) -> None:
    rows = g.final_scores()
    totals = [r["total"] for r in rows]
    for r in rows:
        assert r["total"] == sum(r[k] for k in SCORE_LINES)
        assert r["money"] == r["money_left"] // 10
        assert all(r[k] >= 0 for k in SCORE_LINES)
        better = sum(1 for o in rows if (o["total"], o["money_left"]) > (r["total"], r["money_left"]))
        assert r["rank"] == 1 + better
    assert g.returns() == [float(t) for t in totals]


def play_checked(n: int, seed: int, pass_prob: float, every: int = 1, contracts_first: bool = False) -> Game:
    g = Game(GameConfig(num_players=n, seed=seed, clan_selection="none"))
    counter = [0]

    def step(x):
        counter[0] += 1
        if counter[0] % every == 0:
            check_invariants(x)

    check_invariants(g)
    steps = random_playout(g, random.Random(seed), pass_prob=pass_prob, on_step=step,
                           contracts_first=contracts_first)
    assert g.is_terminal() and g.round == D.NUM_ROUNDS
    assert steps == len(g.history)
    check_invariants(g)
    check_scores(g)
    return g


def check_round_trips(g: Game) -> None:
    # save/load round-trips
    h = Game.from_json(g.to_json())
    assert h.to_json() == g.to_json()
    assert h.final_scores() == g.final_scores()
    # replay reproduces the same final scores
    rec = g.record()
    r = Game.replay(rec["config"], rec["actions"])
    assert r.final_scores() == g.final_scores()
    assert r.to_json() == g.to_json()


@pytest.mark.parametrize("n", [2, 3, 4])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2 ** 31 - 1), pass_prob=st.sampled_from([0.02, 0.1, 0.3]),
       contracts_first=st.booleans())
def test_random_games_keep_invariants(n, seed, pass_prob, contracts_first):
    """Properties over random seeded games (hypothesis): every game ends after five rounds; at
    every step money and goods are never negative, units never exceed their counts, no two units
    share a space, every unit stands on matching active land, Merchants (7) and the 50 contracts
    are conserved, the Import track matches the imports; the score lines add up to the total and
    the rank uses money as tie-breaker; save/load and replay reproduce the game."""
    g = play_checked(n, seed, pass_prob, every=3, contracts_first=contracts_first)
    check_round_trips(g)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_plain_loop_over_seeds(n):
    """The same properties in a plain loop over fixed seeds (so that a failure names its seed),
    plus: the same seed replays the same game, and a clone taken mid-game continues identically."""
    for seed in range(6):
        g = play_checked(n, 1000 + seed, pass_prob=0.05, every=1, contracts_first=bool(seed % 2))
        again = play_checked(n, 1000 + seed, pass_prob=0.05, every=50, contracts_first=bool(seed % 2))
        assert again.to_json() == g.to_json()
        check_round_trips(g)
        # a clone taken mid-game and fed the same actions ends identically
        hist = g.history
        cut = len(hist) // 2
        h = Game.replay(g.config, hist[:cut])
        c = h.clone()
        for a in hist[cut:]:
            c.apply(a)
        assert c.to_json() == g.to_json()
        assert h.history == hist[:cut]


def check_snapshots(g: Game) -> None:
    """Mid-game: save/load keeps state and legal actions; determinize keeps the public state."""
    text = g.to_json()
    h = Game.from_json(text)
    assert h.to_json() == text and h.legal_actions() == g.legal_actions()
    d = g.determinize(len(g.history))
    assert d.public_state() == g.public_state()
    assert sorted(d.pile) == sorted(g.pile)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_snapshots_at_every_kind_of_decision(n):
    """Save/load and determinize at many mid-game points (every decision kind that occurs:
    slaughter, Building bonus draws, Port tile dialogues, production choices, ...)."""
    seen = set()

    def step(x):
        kind = x.decision_kind
        if kind not in seen or len(x.history) % 15 == 0:
            seen.add(kind)
            check_snapshots(x)

    for seed in range(4):
        g = Game(GameConfig(num_players=n, seed=2000 + seed, clan_selection="none"))
        random_playout(g, random.Random(seed), pass_prob=0.05, on_step=step, contracts_first=True)
    assert {"main", "place", "process"} <= seen


@pytest.mark.parametrize("n", [2, 3])
def test_random_games_with_variants(n):
    """Properties hold with every variant on (static imports, no Scoring tiles, tighter map,
    Kickstarter Port tile 9)."""
    for seed in range(4):
        g = Game(GameConfig(num_players=n, seed=seed, clan_selection="none", static_imports=True,
                            scoring_tiles=bool(seed % 2), tighter_map=True, kickstarter=True))
        random_playout(g, random.Random(seed), pass_prob=0.05, on_step=check_invariants)
        check_scores(g)
        check_round_trips(g)
