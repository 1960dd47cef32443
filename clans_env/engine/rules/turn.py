"""Rulebook "Phase 2: Action": the main-action decision of a turn, "8. Pass", and the order
of turns within the Action phase."""
from __future__ import annotations

from .. import data as D
from ..actions import (EXPAND, FULFIL, HIRE_MERCHANT, PASS, SPACE, TAKE_CONTRACT, TRADE, UPGRADE_SHIPPING,
                       UPGRADE_TECH, USE_PORT)
from ..state import K_MAIN, K_PLACE, K_POST_MAIN, PLACE_EXPAND
from .contracts import apply_take_contract, contract_options
from .expand import expand_options
from .fulfil import apply_fulfil, fulfil_options
from .market import apply_trade, trade_options
from .ports import port_options, use_port
from .common import reach
from .registry import apply_for, describe_for, has_legal_for, legal_for
from .upgrades import apply_upgrade, upgrade_options


@legal_for(K_MAIN)
def legal_main(g, frame) -> list:
    p = frame[1]
    out = [PASS]
    trade_options(g, p, out)
    contract_options(g, p, out)
    expand_options(g, p, out)
    upgrade_options(g, p, out)
    fulfil_options(g, p, out)
    port_options(g, p, out)          # free action before the main action
    for module_options in g.hooks.main_options:   # the Train action (R13.1), Claim a Milestone (R13.19)
        module_options(g, frame, out)
    clan = g.clans[p]
    if clan.adds_main_actions:      # never one of the options above (CHOOSE + k below the modules', SPACE + s);
        out.extend(clan.main_actions(g, p))   # Game sorts the list
    return out


@has_legal_for(K_MAIN)
def main_has_legal(g, frame) -> bool:
    if len(frame) > 2:               # a Delivery bonus's bonus action (Q29, no Pass): skipped when nothing
        return bool(legal_main(g, frame))   # is left to do (e.g. after a free Port action)
    return True                      # "8. Pass" is always legal (legal_main starts with PASS)


@apply_for(K_MAIN)
def apply_main(g, frame, action: int) -> None:
    p = frame[1]
    if USE_PORT <= action < USE_PORT + 4:
        if g.turn.get("any_port") and not reach(g, p) >> g.topo.port_space[action - USE_PORT] & 1:
            del g.turn["any_port"]                  # Delivery bonus 11: the one Port tile out of reach
        use_port(g, p, action - USE_PORT)          # the main decision stays pending
        return
    if len(frame) > 2:
        g.turn.pop("any_port", None)               # Delivery bonus 11: only during the bonus action
    for module_main in g.hooks.apply_main:
        if module_main(g, p, action):
            return
    clan = g.clans[p]
    if clan.adds_main_actions and clan.apply_main(g, p, action):   # clan actions that are not the main action
        return
    g.stack.pop()
    if action == PASS:
        do_pass(g, p)
    elif TRADE <= action < TAKE_CONTRACT:
        apply_trade(g, p, action)
    elif TAKE_CONTRACT <= action < EXPAND:
        apply_take_contract(g, p, action - TAKE_CONTRACT)
    elif EXPAND <= action < SPACE:
        g.stack.append((K_PLACE, p, action - EXPAND, PLACE_EXPAND))
    elif UPGRADE_SHIPPING <= action <= HIRE_MERCHANT:
        apply_upgrade(g, p, action)
    elif FULFIL <= action < USE_PORT:
        apply_fulfil(g, p, action - FULFIL)
    else:  # pragma: no cover - legality checked before
        raise AssertionError(f"unhandled main action {action}")


@describe_for(K_MAIN)
def describe_main(g, frame) -> str:
    return "Your turn: choose the main action (or use a Port tile first)"


def do_pass(g, p: int) -> None:
    """Stop taking actions this round; take the next Turn order position and its Pass bonus."""
    pl = g.players[p]
    pl.passed = True
    g.pass_order.append(p)
    if g.num_players == 1:
        bonus = D.SOLO_PASSING_BONUS
    else:
        bonus = D.PASSING_BONUS[len(g.pass_order) - 1]
    for overlay in g.hooks.passing_bonus:     # Industria's Passing bonus overlay (R1.4, R8.1)
        bonus = overlay(g, p, bonus)
    pl.money += bonus


def start_turn(g, p: int) -> None:
    g.turn = {}
    g.stack.append((K_POST_MAIN, p))
    g.stack.append((K_MAIN, p))


def next_turn(g) -> bool:
    """Give the turn to the next player in turn order who has not passed; False if none."""
    order = g.turn_order
    n = len(order)
    for step in range(1, n + 1):
        i = (g.turn_idx + step) % n
        if not g.players[order[i]].passed:
            g.turn_idx = i
            if order[i] in g.hooks.engine_seats:
                for take_turn in g.hooks.take_turn:  # resolved by the engine: no decision (Automa)
                    take_turn(g, order[i])
            else:
                start_turn(g, order[i])
            return True
    return False

