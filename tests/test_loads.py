"""Loads that accept impossible states, and inputs accepted by accident (issue 18).

``Game.from_json`` / ``Game.load`` accept only a state the rules can reach: JSON only, every field
of the right type and range, the invariants of the rules, and a history that replays to the saved
state (the history is authoritative). Every refusal is a ``ValueError`` naming what is wrong, from
the API and from ``clans replay``. ``apply()`` takes ints and NumPy integers only; ``GameConfig``
and ``string_to_action`` refuse the values they used to accept by accident.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from clans_env import Game, GameConfig, IllegalActionError
from clans_env.engine import data as D
from clans_env.engine.invariants import check_invariants, random_config
from clans_env.engine.rules.common import reach

from helpers import random_playout


# ---- saves to tamper with ------------------------------------------------------------------------
def _play(config: GameConfig, steps: int, seed: int) -> Game:
    g = Game(config)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_terminal():
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


_SAVES: list[str] = []


def real_saves() -> list[str]:
    """Saves from several configurations and stages: setup, mid-game (with cached reach sets),
    a finished game, a solo game, the Clan Auction, Kickstarter and the tighter map."""
    if not _SAVES:
        rng = random.Random(18)
        configs = [GameConfig(num_players=2, seed=1), GameConfig(num_players=4, seed=2),
                   GameConfig(num_players=1, seed=3), GameConfig(num_players=3, seed=4, clan_selection="auction"),
                   GameConfig(num_players=3, seed=5, kickstarter=True, tighter_map=True),
                   random_config(rng, 2, 6), random_config(rng, 4, 7)]
        for i, cfg in enumerate(configs):
            for steps in (3, 40, 120, 10_000):
                g = _play(cfg, steps, seed=i * 10 + steps)
                _SAVES.append(g.to_json())
    return _SAVES


def _doc(k: int = 1) -> dict:
    return json.loads(real_saves()[k])


def _refused(doc_or_text, *words) -> str:
    text = doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text)
    with pytest.raises(ValueError) as err:
        Game.from_json(text)
    msg = str(err.value)
    for w in words:
        assert w in msg, (w, msg)
    return msg


def _mid_game() -> dict:
    """A mid-game save (4 players, 120 decisions) whose players have cached reach sets, as versions
    before saves wrote every reach cache stale (-1) saved them."""
    doc = _doc(6)
    g = Game.from_json(json.dumps(doc))
    for p, d in enumerate(doc["players"]):
        d["reach"] = reach(g, p)
    return doc


# ---- the failures reported, one by one -----------------------------------------------------------
def test_valid_saves_load_round_trip_and_play_on():
    """Every real save loads, saves to the same text and has the same legal actions."""
    for text in real_saves():
        g = Game.from_json(text)
        assert g.to_json() == text
        check_invariants(g)
    doc = json.loads(real_saves()[6])
    assert Game.from_json(json.dumps(doc, indent=2, sort_keys=True)).to_json() == real_saves()[6]  # layout free


def test_saves_with_and_without_cached_reach_load():
    """A cached reach set is either stale (-1) or the fresh one (older saves); both load, and the
    loaded game saves to the same text, with the cache stale."""
    doc = _mid_game()
    assert any(p["reach"] != -1 for p in doc["players"])
    assert Game.from_json(json.dumps(doc)).to_json() == real_saves()[6]
    for p in doc["players"]:
        p["reach"] = -1
    assert Game.from_json(json.dumps(doc)).to_json() == real_saves()[6]


def test_a_save_does_not_depend_on_caches():
    """to_json() of one position changed after observe() (players[i].reach went from -1, stale, to
    the computed set): the text of a save must not depend on what was asked of the position. Over
    random games (base, Industria, the Automa), every position saves to the same text before and
    after observations, legal lists, action names and score sheets."""
    from clans_env.encoding import ObservationEncoder
    for k, cfg in enumerate([GameConfig(num_players=2, seed=1), GameConfig(num_players=3, seed=2, industria=True),
                             GameConfig(num_players=2, seed=3, automa={1: 3}, industria=True)]):
        g = Game(cfg)
        enc = ObservationEncoder(cfg.num_players, industria=cfg.industria_modules)
        rng = random.Random(k)
        while not g.is_terminal():
            before = g.to_json()
            for seat in range(cfg.num_players):
                enc.encode(g, seat)
            legal = g.legal_actions()
            g.action_to_string(legal[0])
            g.final_scores()
            assert g.to_json() == before, (k, len(g.history))
            g.apply(rng.choice(legal))


def test_negative_money_is_refused():
    doc = _doc()
    doc["players"][0]["money"] = -5
    _refused(doc, "players[0].money", "from 0")


def test_nan_and_infinite_money_are_refused():
    text = real_saves()[1]
    doc = _doc()
    money = doc["players"][0]["money"]
    needle = f'"money":{money}'
    assert needle in text
    for bad in ("NaN", "Infinity", "-Infinity"):
        _refused(text.replace(needle, f'"money":{bad}', 1), bad)


def test_float_money_is_refused():
    doc = _doc()
    doc["players"][1]["money"] = float(doc["players"][1]["money"]) + 0.5
    _refused(doc, "players[1].money", "float")
    doc["players"][1]["money"] = 3.0
    _refused(doc, "players[1].money")


def test_money_that_its_history_does_not_reach_is_refused():
    """The history is authoritative: money 1,000,000 is out of range; money one more than the
    history gives is refused naming the field and both values."""
    doc = _doc()
    doc["players"][0]["money"] = 1_000_000
    _refused(doc, "players[0].money")
    doc = _doc()
    real = doc["players"][0]["money"]
    doc["players"][0]["money"] = real + 1
    msg = _refused(doc, "does not match its history", "players[0].money", str(real + 1), str(real))
    assert "authoritative" in msg


def test_sheep_on_a_mountain_is_refused():
    g = Game.from_json(real_saves()[1])
    doc = _doc()
    sheep_ok = g.topo.unit_mask[D.SHEEP]
    s = next(s for s in range(g.board.num_spaces)
             if g.topo.land_mask >> s & 1 and not sheep_ok >> s & 1 and g.occupant[s] == -1)
    p = 0
    doc["state"]["occupant"][s] = p
    doc["state"]["unit_at"][s] = D.SHEEP
    doc["state"]["occupied"] |= 1 << s
    doc["players"][p]["spaces"] |= 1 << s
    doc["players"][p]["units_left"][D.SHEEP] -= 1
    doc["players"][p]["reach"] = -1
    _refused(doc, "breaks a rule", "sheep", "does not support it")


def test_occupant_out_of_range_is_refused():
    doc = _doc()
    doc["state"]["occupant"][5] = 7
    _refused(doc, "state.occupant[5]")


def test_price_step_99_is_refused():
    doc = _doc()
    doc["state"]["prices"][2] = 99
    _refused(doc, "state.prices[2]", str(D.MAX_STEP))


def test_duplicated_contract_is_refused():
    doc = _doc()
    doc["players"][0]["done_contracts"] = [doc["state"]["pile"][0]]
    _refused(doc, "breaks a rule", "duplicated")
    doc = _doc()
    doc["state"]["pile"].append(doc["state"]["pile"][0])
    _refused(doc, "breaks a rule", "duplicated")


def test_forged_reach_cache_is_refused():
    """A reach set that is not the fresh one would change the legal moves: refused."""
    doc = _mid_game()
    p = next(i for i, pl in enumerate(doc["players"]) if pl["reach"] != -1)
    doc["players"][p]["reach"] = (1 << 128) - 1
    _refused(doc, "breaks a rule", "reach")
    g = Game.from_json(json.dumps(_mid_game()))
    for q, pl in enumerate(g.players):       # the kept caches are the fresh ones
        if pl.reach != -1:
            cached, pl.reach = pl.reach, -1
            assert reach(g, q) == cached


@pytest.mark.parametrize("field,value", [("round", 99), ("phase", 42), ("round", 0), ("turn_idx", 17)])
def test_round_and_phase_out_of_range_are_refused(field, value):
    doc = _doc()
    doc["state"][field] = value
    _refused(doc, f"state.{field}")


def test_shipping_99_is_refused():
    doc = _doc()
    doc["players"][1]["shipping"] = 99
    _refused(doc, "players[1].shipping", str(D.MAX_SHIPPING))


def test_deep_nesting_is_a_value_error():
    """1,000 nested lists used to raise RecursionError. The interpreter's default recursion limit is pinned for
    the test: whether 1,000 levels reach it depends on the limit, which other libraries raise (after some tests
    ran before this one in one process, a compiled run parsed the 1,000 levels and refused the frame instead)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        for depth in (50, 1000, 100_000):
            deep = "[" * depth + "]" * depth
            assert '"stack":[' in real_saves()[1]
            text = real_saves()[1].replace('"stack":[', '"stack":[' + deep + ",", 1)
            _refused(text, "saved", *(["nested too deeply"] if depth >= 1000 else ["stack[0]"]))
            _refused(deep, "not a saved")
    finally:
        sys.setrecursionlimit(limit)


def test_history_is_checked_against_the_state():
    """Truncated, extended or edited histories are refused."""
    doc = _doc(2)
    doc["history"] = doc["history"][:-1]
    _refused(doc, "does not match its history")
    doc = _doc(2)
    doc["history"] = []
    _refused(doc, "does not match its history")
    doc = _doc(2)
    doc["history"][3] = 324
    _refused(doc, "does not replay")
    doc = _doc(2)
    doc["history"][0] = True
    _refused(doc, "history[0]")


def test_determinized_copy_does_not_load_as_its_seed():
    """A determinized copy has another pile order than its seed gives: not its config's game."""
    g = Game.from_json(real_saves()[1])
    d = g.determinize(5)
    if d.pile != g.pile or d.rng.state != g.rng.state:
        _refused(d.to_json(), "does not match its history")


def test_other_envelope_errors_are_value_errors():
    doc = _doc()
    _refused({**doc, "extra": 1}, "unknown field")
    _refused({**doc, "version": True}, "version")
    _refused({**doc, "config": [1, 2]}, "config")
    _refused({**doc, "config": {**doc["config"], "num_players": True}}, "num_players")
    _refused({**doc, "rng": -1}, "rng")
    _refused({**doc, "map_sides": "A1 B1 C1 D1"}, "map_sides")
    _refused({**doc, "clans": ["nobody", None]}, "clans[0]")
    _refused("", "not a saved")
    with pytest.raises(ValueError):
        Game.from_json(None)
    with pytest.raises(ValueError):
        Game.from_json(b"\xff\xfe")


def test_load_refuses_a_tampered_file(tmp_path):
    path = tmp_path / "bad.json"
    doc = _doc()
    doc["players"][0]["money"] = -1
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"players\[0\]\.money"):
        Game.load(path)


def test_cli_replay_refuses_a_tampered_state_without_a_traceback(tmp_path):
    """`clans replay BAD.json` prints a clear error and exits with status 2 (no traceback)."""
    cases = {"money.json": None, "deep.json": "[" * 5000 + "]" * 5000,
             "nan.json": '{"config": {"num_players": 2}, "actions": [NaN]}',
             "boolaction.json": json.dumps({"config": {"num_players": 2}, "actions": [True]})}
    doc = _doc()
    doc["players"][0]["money"] += 1
    cases["money.json"] = json.dumps(doc)
    expected = {"money.json": "players[0].money", "deep.json": "nested too deeply", "nan.json": "NaN",
                "boolaction.json": "action indices"}
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        proc = subprocess.run([sys.executable, "-m", "clans_cli.main", "replay", str(path)],
                              capture_output=True, text=True, timeout=120)
        out = " ".join((proc.stdout + proc.stderr).split())
        assert proc.returncode == 2, (name, out[-2000:])
        assert "Traceback" not in out and "error:" in out, (name, out[-2000:])
        assert expected[name] in out, (name, out[-2000:])


# ---- fuzz: tampered saves of every kind ----------------------------------------------------------
def _leaves(v, path=""):
    """(path, value) of every scalar in a save, paths as the error messages write them."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _leaves(x, f"{path}.{k}" if path else k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _leaves(x, f"{path}[{i}]")
    else:
        yield path, v


def _set(doc, path, value):
    """Set the leaf at ``path`` (as written by ``_leaves``)."""
    import re
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    node = doc
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    last = parts[-1]
    if last.startswith("["):
        node[int(last[1:-1])] = value
    else:
        node[last] = value


#: a config edited within range is a different game: the message names the first field that then
#: differs (map_sides, rng, ...), not the config; the config's own refusals are tested above
_NO_RANGE_TAMPER = ("config.",)


def _other_type(v, rng):
    options = ["7", 7.5, None, [], {}, True, 3]
    options = [o for o in options if type(o) is not type(v)]
    if type(v) is int:                 # 3.0 == 3 in Python, but not in a save
        options.append(float(v))
    return rng.choice(options)


def tampered_saves():
    """(kind, what, text) for every tampered save: type, range, invariant and history tampering."""
    rng = random.Random(1818)
    out = []
    saves = real_saves()
    for k, text in enumerate(saves):
        doc = json.loads(text)
        leaves = list(_leaves(doc))
        ints = [(p, v) for p, v in leaves if type(v) is int and not p.startswith(_NO_RANGE_TAMPER)]
        for _ in range(12):
            path, v = rng.choice(leaves)
            d = json.loads(text)
            new = _other_type(v, rng)
            _set(d, path, new)
            out.append(("type", path, json.dumps(d)))
        for _ in range(12):
            path, v = rng.choice(ints)
            new = rng.choice([-1 - abs(v), v + 1, v - 1, 99, 1_000_000, 1 << 130, -3])
            if new == v:
                continue
            d = json.loads(text)
            _set(d, path, new)
            out.append(("range", path, json.dumps(d)))
        for name, fn in _INVARIANT_TAMPERS.items():
            d = json.loads(text)
            if fn(d, rng):
                out.append(("invariant", name, json.dumps(d)))
        for name, fn in _HISTORY_TAMPERS.items():
            d = json.loads(text)
            if fn(d, rng) and not _same_state_anyway(d):
                out.append(("history", name, json.dumps(d)))
    return out


def _tamper_sheep_anywhere(d, rng):
    """A Sheep on a free space it may not stand on, all the counts kept consistent."""
    g = Game.from_json(json.dumps(d))
    ok = g.topo.unit_mask[D.SHEEP]
    cands = [s for s in range(g.board.num_spaces) if g.occupant[s] == -1 and not ok >> s & 1]
    s = rng.choice(cands)
    p = rng.randrange(g.num_players)
    if d["players"][p]["units_left"][D.SHEEP] == 0:
        return False
    d["state"]["occupant"][s], d["state"]["unit_at"][s] = p, D.SHEEP
    d["state"]["occupied"] |= 1 << s
    d["players"][p]["spaces"] |= 1 << s
    d["players"][p]["units_left"][D.SHEEP] -= 1
    d["players"][p]["reach"] = -1
    return True


def _tamper_duplicate_contract(d, rng):
    contracts = d["state"]["pile"] + [c for c in d["state"]["display"] if c >= 0]
    d["players"][rng.randrange(len(d["players"]))]["done_contracts"].append(rng.choice(contracts))
    return True


def _tamper_lose_contract(d, rng):
    if not d["state"]["pile"]:
        return False
    d["state"]["pile"].pop(rng.randrange(len(d["state"]["pile"])))
    d["state"]["pile_known"] = min(d["state"]["pile_known"], len(d["state"]["pile"]))
    return True


def _tamper_occupied_mask(d, rng):
    free = [s for s, o in enumerate(d["state"]["occupant"]) if o == -1]
    d["state"]["occupied"] |= 1 << rng.choice(free)
    return True


def _tamper_spaces_mask(d, rng):
    p = rng.randrange(len(d["players"]))
    free = [s for s, o in enumerate(d["state"]["occupant"]) if o == -1]
    d["players"][p]["spaces"] |= 1 << rng.choice(free)
    return True


def _tamper_merchants(d, rng):
    p = d["players"][rng.randrange(len(d["players"]))]
    p["merchants_stock"] += 1
    return True


def _tamper_forged_reach(d, rng):
    p = d["players"][rng.randrange(len(d["players"]))]
    p["reach"] = rng.getrandbits(128)
    return True


def _tamper_units_count(d, rng):
    p = d["players"][rng.randrange(len(d["players"]))]
    u = rng.randrange(D.NUM_UNITS)
    if p["units_left"][u] == 0:
        return False
    p["units_left"][u] -= 1
    return True


def _tamper_import_track(d, rng):
    if len(d["players"]) == 1:
        return False
    d["state"]["import_track"][rng.randrange(D.NUM_IMPORTS)] += 1
    return True


_INVARIANT_TAMPERS = {
    "sheep where it may not stand": _tamper_sheep_anywhere,
    "duplicated contract": _tamper_duplicate_contract,
    "lost contract": _tamper_lose_contract,
    "occupied mask": _tamper_occupied_mask,
    "spaces mask": _tamper_spaces_mask,
    "merchant count": _tamper_merchants,
    "forged reach": _tamper_forged_reach,
    "unit count": _tamper_units_count,
    "import track": _tamper_import_track,
}


def _same_state_anyway(d) -> bool:
    """True if the edited history is legal and reaches the very same state (two actions that
    commute, say): then the save is consistent and loading it is right."""
    try:
        g = Game.replay(GameConfig.from_dict(d["config"]), d["history"])
    except ValueError:
        return False
    mine = json.loads(g.to_json())
    for m, p in zip(mine["players"], d["players"]):
        m["reach"] = p["reach"]
    return all(mine[k] == d[k] for k in ("rng", "players", "stack", "state"))


def _tamper_truncate(d, rng):
    if not d["history"]:
        return False
    del d["history"][-rng.randint(1, min(5, len(d["history"]))):]
    return True


def _tamper_extend(d, rng):
    g = Game.from_json(json.dumps(d))
    if g.is_terminal():
        d["history"].append(0)
    else:
        d["history"].append(rng.choice(g.legal_actions()))
    return True


def _tamper_change(d, rng):
    i = rng.randrange(len(d["history"]))
    d["history"][i] = rng.choice([x for x in (0, 1, 2, 150, 324) if x != d["history"][i]])
    return True


def _tamper_swap(d, rng):
    h = d["history"]
    pairs = [(i, j) for i in range(len(h)) for j in range(i + 1, min(len(h), i + 4)) if h[i] != h[j]]
    if not pairs:
        return False
    i, j = rng.choice(pairs)
    h[i], h[j] = h[j], h[i]
    return True


def _tamper_state_in_range(d, rng):
    """Money, Glory or a good moved by one, within every range: only the history can tell."""
    p = d["players"][rng.randrange(len(d["players"]))]
    field = rng.choice(["money", "glory", "hops"])
    p[field] += 1
    return True


def _tamper_rng(d, rng):
    d["rng"] = (d["rng"] + 1) % (1 << 64)
    return True


def _tamper_pile_order(d, rng):
    pile = d["state"]["pile"]
    if len(set(pile)) < 2:
        return False
    while True:
        new = pile[:]
        rng.shuffle(new)
        if new != pile:
            d["state"]["pile"] = new
            return True


_HISTORY_TAMPERS = {
    "truncated": _tamper_truncate,
    "extended": _tamper_extend,
    "changed action": _tamper_change,
    "swapped actions": _tamper_swap,
    "state edited within range": _tamper_state_in_range,
    "generator edited": _tamper_rng,
    "pile reordered": _tamper_pile_order,
}


def test_fuzz_tampered_saves_are_refused_clearly():
    """Every tampered save (type, range, invariant and history tampering) is refused with a
    ValueError whose message names the field, the broken rule or the history; valid saves load."""
    counts = {}
    for kind, what, text in tampered_saves():
        try:
            Game.from_json(text)
        except ValueError as e:
            msg = str(e)
        except Exception as e:           # noqa: BLE001 - any other exception is the bug
            raise AssertionError(f"{kind} tampering of {what}: {type(e).__name__}: {e}") from e
        else:
            raise AssertionError(f"{kind} tampering of {what} was accepted")
        assert msg.startswith(("saved game", "not a saved")), msg
        if kind in ("type", "range"):
            key = what.rsplit(".", 1)[-1].split("[")[0]
            assert what in msg or key in msg or "breaks a rule of the game" in msg, (kind, what, msg)
        elif kind == "invariant":
            assert "breaks a rule of the game" in msg or "does not match its history" in msg, (what, msg)
        else:
            assert "history" in msg, (what, msg)
        counts[kind] = counts.get(kind, 0) + 1
    assert set(counts) == {"type", "range", "invariant", "history"}
    assert sum(counts.values()) >= 300, counts
    for text in real_saves():
        assert Game.from_json(text).to_json() == text


def test_fuzz_random_byte_damage_never_crashes():
    """Random cuts and byte flips of real saves: a ValueError or (rarely) a valid load, never
    another exception."""
    rng = random.Random(7)
    for text in real_saves()[:8]:
        for _ in range(15):
            i = rng.randrange(len(text))
            damaged = rng.choice([text[:i], text[:i] + rng.choice('{}[],:"0-9aeE.') + text[i + 1:]])
            try:
                Game.from_json(damaged)
            except ValueError:
                pass


# ---- apply(): ints and NumPy integers only -------------------------------------------------------
class _HasInt:
    def __int__(self):
        return 0


@pytest.mark.parametrize("bad", [2.9, 0.5, False, True, "2", "0", None, float("inf"), float("nan"), _HasInt(),
                                 np.bool_(False), np.float64(0.0), [0], 2 + 0j])
def test_apply_refuses_anything_but_an_int(bad):
    g = Game(GameConfig(num_players=2, seed=1))
    before = g.to_json()
    with pytest.raises(IllegalActionError) as err:
        g.apply(bad)
    assert type(bad).__name__ in str(err.value) and "int" in str(err.value)
    assert g.to_json() == before


def test_apply_takes_ints_and_numpy_integers():
    g = Game(GameConfig(num_players=2, seed=1))
    a = g.legal_actions()[0]
    for kind in (int, np.int64, np.int32, np.int16, np.uint16, np.intp):
        c = g.clone()
        c.apply(kind(a))
        assert c.history == [a] and type(c.history[0]) is int
    h = g.clone()
    random_playout(h, random.Random(1))
    assert Game.replay(h.config, [np.int64(x) for x in h.history]).to_json() == h.to_json()


def test_engine_does_not_import_numpy():
    code = ("import sys; from clans_env.engine.game import Game; g = Game(num_players=2, seed=1); "
            "g.apply(g.legal_actions()[0]); print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


# ---- GameConfig and string_to_action -------------------------------------------------------------
@pytest.mark.parametrize("kwargs,words", [
    (dict(num_players=True), ["num_players", "1, 2, 3, 4"]),
    (dict(num_players=2.0), ["num_players"]),
    (dict(seed=True), ["seed", "int"]),
    (dict(seed=1.5), ["seed", "int"]),
    (dict(num_players=2, clans={"stewart", "macdonald"}), ["clans", "list or tuple", "seat order"]),
    (dict(clans=5), ["clans", "list or tuple"]),
    (dict(clans="stewart"), ["clans", "list or tuple"]),
    (dict(num_players=2, clans=["stewart", 3]), ["clan", "valid clans"]),
    (dict(map_sides=5), ["map_sides", "A1"]),
    (dict(map_sides=[1, 2, 3, 4]), ["map_sides"]),
    (dict(clan_selection=["draft"]), ["clan_selection", "draft"]),
    (dict(seed=-1), ["seed", "0..2**64-1", "-1"]),
    (dict(seed=2 ** 80), ["seed", "0..2**64-1"]),
    (dict(seed=2 ** 64), ["seed", "0..2**64-1"]),
    (dict(num_players=2, clans=["stewart", "macdonald"], clan_selection="auction"),
     ["clans=['stewart', 'macdonald']", "clan_selection='auction'", "not both"]),
    (dict(num_players=2, clans=["stewart", "macdonald"], clan_selection="none"), ["clans=", "clan_selection='none'"]),
])
def test_config_refuses_accidental_values(kwargs, words):
    with pytest.raises(ValueError) as err:
        GameConfig(**kwargs)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_config_accepts_the_whole_seed_range_with_the_same_games():
    """Seeds 0..2**64-1 are valid and keep their games (the generator's state is the seed's)."""
    from clans_env.engine.rng import Rng
    for seed in (0, 1, 2 ** 31 - 1, 2 ** 64 - 1):
        g = Game(GameConfig(num_players=2, seed=seed))
        assert g.config.seed == seed
    assert Game(GameConfig(num_players=2, seed=5)).to_json() == Game(GameConfig(num_players=2, seed=5)).to_json()
    assert Rng(2 ** 64 - 1).state == Rng(-1).state            # why -1 is refused: it is 2**64-1's game
    assert GameConfig(num_players=2, clans=["stewart", "macdonald"]).clans == ("stewart", "macdonald")


def test_config_from_dict_needs_a_dict():
    with pytest.raises(ValueError, match="dict"):
        GameConfig.from_dict(["num_players", 2])


@pytest.mark.parametrize("bad", [None, 3, b"pass", ["pass"]])
def test_string_to_action_needs_a_string(bad):
    g = Game(GameConfig(num_players=2, seed=1))
    with pytest.raises(ValueError, match="string"):
        g.string_to_action(bad)
    assert g.string_to_action("pass") == 0


def test_a_version_3_automa_save_loads_into_the_automa_record():
    """Save version 4 keeps a module's state in one record (``state.modstate``); a version 3 file (written by
    the engine before, tests/data/save_v3_automa.json: an Automa game in round 4) kept the Automa's state in
    ``misc`` keys (``automa1``, ``automa1_pile``, ..., ``automa_log``). It loads into the record, replays to
    the same game, and saves as version 4 with no Automa key left in ``misc``."""
    from pathlib import Path
    from clans_env.engine.rules import automa as AU
    from clans_env.engine.saves import SAVE_VERSION
    old = json.loads((Path(__file__).parent / "data" / "save_v3_automa.json").read_text())
    assert old["version"] == 3 and "automa1_pile" in old["state"]["misc"]
    g = Game.from_json(json.dumps(old))
    seat = AU.state(g, 1)
    board = old["state"]["misc"]["automa1"]
    assert [seat.level, seat.pointer, seat.action, seat.support] == board
    assert (seat.pile, seat.discard, seat.removed) == tuple(old["state"]["misc"][f"automa1_{w}"] for w in AU.PILES)
    assert AU.log_lines(g) and g.modstate["automa"].log == old["state"]["misc"]["automa_log"]
    new = json.loads(g.to_json())
    assert new["version"] == SAVE_VERSION == 4 and not [k for k in new["state"]["misc"] if "automa" in k]
    assert Game.from_json(g.to_json()).to_json() == g.to_json()
    c = g.clone()
    AU.state(c, 1).pile.pop()
    assert len(AU.state(g, 1).pile) == len(seat.pile) and AU.state(c, 1).pile != AU.state(g, 1).pile  # clone copies


def test_module_state_of_a_module_the_game_has_not_is_refused():
    doc = _doc(1)
    doc["state"]["modstate"] = {"automa": {"seats": [], "log": []}}
    _refused(doc, "state.modstate.automa")


#: the Industria state that is a record now (``Game.modstate``); saves written before kept it in ``misc`` keys
CONVERTED = ("refill_board", "awards", "farmers_markets", "variable_prices", "trains", "solo")


@pytest.mark.parametrize("name, version, records, scores", [
    ("save_v3_industria_trains.json", 3, CONVERTED, [100, 75, 63]),
    ("save_v4_industria_trains.json", 4, CONVERTED, [100, 75, 63]),
    ("save_v4_industria_stacked.json", 4, CONVERTED + ("second_units",), [112, 65, 68]),
    ("save_v4_auction.json", 4, ("clan_offer",), [25, 66, 38])])
def test_older_industria_saves_load_into_the_module_records(name, version, records, scores):
    """Saves of version 3, and of version 4 before the Industria modules' state became records, kept that
    state in ``misc`` keys (tests/data/save_v{3,4}_industria_*.json, written by those engines: 3-player
    Industria games with trains and Farmers markets in round 4, and in round 3 with second units and a
    Delivery bonus 19 reservation; a base game in its Clan Auction, whose offer and winners were ``misc``
    keys too). They load into the records (each field from its old key,
    ``Record.MISC``), play on to the scores those engines reached (random.Random(7) choosing), and save
    with no such key left."""
    from pathlib import Path
    from clans_env.engine.modules import RECORDS
    old = json.loads((Path(__file__).parent / "data" / name).read_text())
    misc = old["state"]["misc"]
    assert old["version"] == version and not old["state"].get("modstate")
    g = Game.from_json(json.dumps(old))
    keys = set()
    for module in records:
        rec = g.modstate[module]
        assert type(rec) is RECORDS[module]
        for field, (key, default) in rec.MISC.items():
            assert getattr(rec, field) == misc.get(key, default), field
            keys.add(key)
    assert not keys & set(json.loads(g.to_json())["state"]["misc"])
    assert Game.from_json(g.to_json()).to_json() == g.to_json()
    rnd = random.Random(7)
    while not g.is_terminal():
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    assert [row["total"] for row in g.final_scores()] == scores
