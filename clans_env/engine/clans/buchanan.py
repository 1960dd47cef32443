"""Clan Buchanan (rulebook "Appendix: Clans - Clan Buchanan").

- An additional Export box: up to two unfulfilled contracts (``export_boxes``).
- Obtain one or two contracts in one turn, paying the round cost once: after the Obtain
  action took a contract, a second may be taken at once (``second_contract`` decision); the
  round cost of a turn's second contract is 0 (``round_cost_once_per_turn``, read by
  rules/contracts.py ``obtain_cost``), so in round 1 the +£5 comes once per turn, but on
  every turn in which a contract is obtained. At most two a turn, whatever the route
  (``contracts_per_turn``: Obtain, Building bonus, Port tile 8).
- Building bonus (and Port tile 8): draw six instead of three and keep 0-2, less the
  contracts already obtained this turn (``building_bonus_draw``; rules/contracts.py
  ``contracts_left_this_turn``).
- Fulfil up to two contracts per turn: after a fulfilment's rewards (and its Direct export
  bonuses), the second open contract may be fulfilled at once (``second_fulfil`` decision).
"""
from __future__ import annotations

from .. import data as D
from ..actions import DONE, FULFIL, TAKE_CONTRACT
from ..state import K_CLAN
from .base import Clan, register
from ..rules.contracts import apply_take_contract, contract_options
from ..rules.fulfil import apply_fulfil, fulfil_options

SECOND_CONTRACT = "second_contract"
SECOND_FULFIL = "second_fulfil"


@register
class Buchanan(Clan):
    name = "buchanan"
    export_boxes = D.BUCHANAN_EXPORT_BOXES
    building_bonus_draw = D.BUCHANAN_BUILDING_BONUS_DRAW
    contracts_per_turn = D.BUCHANAN_CONTRACTS_PER_TURN
    round_cost_once_per_turn = True

    def after_obtain_contract(self, game, p: int) -> None:
        game.stack.append((K_CLAN, p, SECOND_CONTRACT))

    def after_fulfil(self, game, p: int, contract_id: int) -> None:
        game.stack.append((K_CLAN, p, SECOND_FULFIL))

    def legal(self, game, frame) -> list[int]:
        p = frame[1]
        out: list[int] = []
        if frame[2] == SECOND_CONTRACT:
            contract_options(game, p, out)
        elif frame[2] == SECOND_FULFIL:
            fulfil_options(game, p, out)
        else:
            return super().legal(game, frame)
        if out:
            out.append(DONE)
            out.sort()
        return out

    def apply(self, game, frame, action: int) -> None:
        p = frame[1]
        game.stack.pop()
        if action == DONE:
            return
        if frame[2] == SECOND_CONTRACT:
            apply_take_contract(game, p, action - TAKE_CONTRACT)
        else:
            apply_fulfil(game, p, action - FULFIL)

    def describe(self, game, frame) -> str:
        if frame[2] == SECOND_CONTRACT:
            return ("Clan Buchanan: take a second Export contract this turn without paying the round cost again "
                    "(take_contract:k), or done")
        return "Clan Buchanan: fulfil your other Export contract this turn too (fulfil:k), or done"
