"""Clan MacLeod (Industria; player aid "Clans", rules R18.ML1-R18.ML9 of
docs/rules-index.md; reading Q46 and docs/rules-interpretations.md "MacLeod").

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.ML1: river-crossing Shipping from the start.
- R18.ML2 Private Shipyards: at setup (``on_setup``) four Port tiles drawn at random (``g.rng``) from
  those of the configuration's pool that are not on the map (base, Kickstarter's 9, Industria's
  10-18, Q46): ``extra["shipyards"]`` (tile numbers) and ``extra["shipyards_used"]`` (0/1 each).
- R18.ML3-R18.ML6: on MacLeod's turn, before or after the main action, a free action activates an
  unused Shipyard (``choose:k`` for Shipyard k in the main and post-main decisions): its Port bonus,
  as that Port tile's text (ports.py ``resolve_tile``), then the Building bonus when an Export box is
  empty and contracts are left (the Export box condition, R18.ML6; after the Port bonus, Q46). A
  Shipyard whose tile would do nothing now is not offered (as for Port tiles in play).
- R18.ML7: a Shipyard may be activated only while MacLeod's used Shipyards are fewer than the Port
  tiles on the map he has used (``ports_used``).
- R18.ML8: Shipyards are never Port tiles: they do not set ``ports_used`` and so count for no Port
  tile effect (Milestone 2, Scoring, ...), and they are never "in reach".
- R18.ML9: activating Shipyard tile 9 (Kickstarter, pay £5) copies a Port tile in play, as normal, or
  any other of MacLeod's Shipyards, used or not (``shipyard_copy`` decision: use_port:<slot> or
  choose:<k>); the copied Shipyard is not flipped.
- Shipyard tiles 1 and 10 act only inside a Fulfil action, so they are activated there, as the map's
  tiles are (``fulfil_tile`` / ``use_fulfil_tile``, asked by rules/fulfil.py when no usable tile on the
  map does it): tile 1 in the slaughter decision (choose:0), tile 10 in the Port tile 10 decision; the
  limit applies, the Shipyard is flipped and its Building bonus follows the contract's rewards
  (``after_fulfil``).
"""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, USE_PORT
from ..state import K_CLAN, K_HOOK
from .base import Clan, register
from ..rules.ports import port_tile_pool
from ..rules.ports import copy_targets, resolve_tile, tile_applicable

SHIPYARDS = "shipyards"
USED = "shipyards_used"
COPY = "shipyard_copy"
#: ``game.turn`` key: Building bonuses owed for Shipyards used inside the Fulfil being resolved
FULFIL_BONUS = "shipyard_fulfil"
PORT9 = 9


def shipyards(game, p: int) -> list[int]:
    return game.players[p].extra.get(SHIPYARDS, [])


def used(game, p: int) -> list[int]:
    return game.players[p].extra.get(USED, [])


def unused_pool(game) -> list[int]:
    """R18.ML2, Q46: the configuration's Port tiles that are not on the map, in number order."""
    return sorted(t for t in port_tile_pool(game) if t not in game.port_tiles)


def limit_allows(game, p: int) -> bool:
    """R18.ML7: used Shipyards < used Port tiles on the map."""
    return sum(used(game, p)) < game.players[p].ports_used.bit_count()


def shipyard_applicable(game, p: int, k: int, copying: bool = False) -> bool:
    tile = shipyards(game, p)[k]
    if tile != PORT9:
        return tile_applicable(game, p, tile, copying)
    if copying or game.players[p].money < D.PORT9_COST:
        return False
    return bool(copy_targets(game, p)) or bool(copy_shipyards(game, p, k))


def copy_shipyards(game, p: int, k: int) -> list[int]:
    """R18.ML9: MacLeod's other Shipyards that Shipyard tile 9 may copy (used ones too)."""
    return [j for j in range(len(shipyards(game, p))) if j != k and shipyard_applicable(game, p, j, True)]


def activatable(game, p: int) -> list[int]:
    if not limit_allows(game, p):
        return []
    return [k for k, u in enumerate(used(game, p)) if not u and shipyard_applicable(game, p, k)]


def activate(game, p: int, k: int) -> None:
    pl = game.players[p]
    flags = used(game, p)
    flags[k] = 1                                # R18.ML5: flipped face down
    tile = shipyards(game, p)[k]
    game.stack.append((K_HOOK, p, "building_bonus"))     # R18.ML6: after the Port bonus
    if tile == PORT9:
        pl.money -= D.PORT9_COST
        game.stack.append((K_CLAN, p, COPY, k))
    else:
        resolve_tile(game, p, tile)             # R18.ML4


def fulfil_shipyard(game, p: int, tile: int) -> int:
    """An unused Shipyard with ``tile`` that the limit lets MacLeod use now, or -1."""
    if not limit_allows(game, p):
        return -1
    for k, (t, u) in enumerate(zip(shipyards(game, p), used(game, p))):
        if t == tile and not u:
            return k
    return -1


@register
class MacLeod(Clan):
    name = "macleod"
    expansion = "industria"

    def on_setup(self, game, p: int) -> None:
        pl = game.players[p]
        pl.shipping = max(pl.shipping, D.MACLEOD_SHIPPING)
        pl.reach = -1
        pool = unused_pool(game)
        game.rng.shuffle(pool)
        pl.extra[SHIPYARDS] = pool[:D.MACLEOD_SHIPYARDS]
        pl.extra[USED] = [0] * len(pl.extra[SHIPYARDS])

    # free actions before and after the main action
    def main_actions(self, game, p: int) -> list[int]:
        return [CHOOSE + k for k in activatable(game, p)]

    def apply_main(self, game, p: int, action: int) -> bool:
        if CHOOSE <= action < CHOOSE + D.MACLEOD_SHIPYARDS:
            activate(game, p, action - CHOOSE)
            return True
        return False

    # Shipyard tiles 1 and 10, inside a Fulfil
    def fulfil_tile(self, game, p: int, tile: int) -> bool:
        return fulfil_shipyard(game, p, tile) >= 0

    def use_fulfil_tile(self, game, p: int, tile: int) -> None:
        used(game, p)[fulfil_shipyard(game, p, tile)] = 1
        game.turn[FULFIL_BONUS] = game.turn.get(FULFIL_BONUS, 0) + 1     # R18.ML6: once the Fulfil is done

    def after_fulfil(self, game, p: int, contract_id: int) -> None:
        for _ in range(game.turn.pop(FULFIL_BONUS, 0)):
            game.stack.append((K_HOOK, p, "building_bonus"))

    post_main_actions = main_actions
    apply_post_main = apply_main

    def legal(self, game, frame) -> list[int]:
        if frame[2] != COPY:
            return super().legal(game, frame)
        p, k = frame[1], frame[3]
        return [USE_PORT + s for s in copy_targets(game, p)] + [CHOOSE + j for j in copy_shipyards(game, p, k)]

    def apply(self, game, frame, action: int) -> None:
        if frame[2] != COPY:
            return super().apply(game, frame, action)
        p = frame[1]
        game.stack.pop()
        if action >= CHOOSE:
            resolve_tile(game, p, shipyards(game, p)[action - CHOOSE])
        else:
            resolve_tile(game, p, game.port_tiles[action - USE_PORT])

    def describe(self, game, frame) -> str:
        if frame[2] == COPY:
            return ("Clan MacLeod, Shipyard tile 9: use the effect of a Port tile in play (use_port:<slot>) or of "
                    "another of your Shipyards (choose:<k>)")
        return super().describe(game, frame)

    def describe_choice(self, game, frame, k: int) -> dict | None:
        if frame[0] == K_CLAN and frame[2] != COPY:
            return None
        tiles = shipyards(game, frame[1])
        return {"option": "your Shipyard", "port_tile": tiles[k]} if k < len(tiles) else None

    def state_features(self, game, p: int) -> tuple:
        out = []
        for tile, u in zip(shipyards(game, p), used(game, p)):
            out += [tile / 18, float(u)]
        return tuple(out)

    def state_text(self, game, p: int) -> str:
        tiles = shipyards(game, p)
        if not tiles:
            return ""
        parts = [f"choose:{k} = tile {t}{' (used)' if u else ''}" for k, (t, u) in enumerate(zip(tiles, used(game, p)))]
        return (f"Private Shipyards: {', '.join(parts)}; {sum(used(game, p))} used of "
                f"{game.players[p].ports_used.bit_count()} Port tiles used")
