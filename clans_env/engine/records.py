"""Game files on disk: game records (``Game.record()`` plus metadata, as ``clans play --save``
and tournaments write them) and full saved states (``Game.save``), read into a record and
rebuilt into a ``Game``. Shared by ``clans play`` / ``clans replay`` and the web viewer
(``clans_web``); pure Python and JSON, no third-party imports."""
from __future__ import annotations

import json
from pathlib import Path

from .config import GameConfig
from .game import SAVE_FORMAT, Game, atomic_write_text
from .saves import parse as parse_json
from .state import IllegalActionError

#: marker of the game records written by ``clans play``; readers accept any JSON object with
#: ``config`` and ``actions`` (tournament replays, ``Game.record()``), with or without it
RECORD_FORMAT = "clans-of-caledonia-record"
RECORD_VERSION = 1


class GameFileError(ValueError):
    """A file that is neither a game record nor a saved game state."""


def read_game_file(path, text: str | None = None) -> tuple[dict, dict]:
    """Parse ``path`` into (game record ``{"config", "actions"}``, extra metadata).

    A full saved state contributes its configuration and history; everything beyond
    ``config`` and ``actions`` in a record (player names, seats, results) is the metadata.
    ``text``: the file's contents when the caller read them already (a server reads with bounds)."""
    path = Path(path)
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise GameFileError(f"no such file: {path}") from None
        except (OSError, UnicodeDecodeError) as e:
            raise GameFileError(f"cannot read {path}: {e}") from None
    try:
        doc = parse_json(text, what="JSON")
    except ValueError as e:          # invalid JSON, NaN/Infinity, nesting too deep
        raise GameFileError(f"{path} is {e}; expected a game record (JSON with 'config' and "
                            f"'actions', as written by `clans play --save` or Game.record()) or a saved state "
                            f"(Game.save)") from None
    if not isinstance(doc, dict):
        raise GameFileError(f"{path} holds a JSON {type(doc).__name__}, not an object; expected a game record "
                            f"with 'config' and 'actions' or a saved state (Game.save)")
    if doc.get("format") == SAVE_FORMAT:
        try:
            game = Game.from_json(text)
        except ValueError as e:
            raise GameFileError(f"{path}: {e}") from None
        return {"config": game.config.to_dict(), "actions": game.history}, {"source": "state"}
    if isinstance(doc.get("record"), dict):
        # tournament replay files (training/tournament.py) nest the record and name the seats
        meta = {k: v for k, v in doc.items() if k != "record"}
        doc = doc["record"]
        if isinstance(meta.get("names"), list) and "players" not in meta:
            meta["players"] = meta["names"]
        if "config" not in doc or "actions" not in doc:
            raise GameFileError(f"{path}: its 'record' needs 'config' and 'actions'")
        record, _ = _checked_record(path, doc)
        return record, meta
    if "config" in doc and "actions" in doc:
        return _checked_record(path, doc)
    raise GameFileError(f"{path} is not a Clans of Caledonia game file: it has keys {sorted(doc)[:8]}, but a game "
                        f"record needs 'config' and 'actions' and a saved state has format '{SAVE_FORMAT}'")


def _checked_record(path, doc: dict) -> tuple[dict, dict]:
    if not isinstance(doc["actions"], list) or not all(type(a) is int for a in doc["actions"]):
        bad = next((a for a in doc["actions"] if type(a) is not int), None) if isinstance(doc["actions"], list) \
            else doc["actions"]
        raise GameFileError(f"{path}: 'actions' must be a list of action indices (ints); found {bad!r}")
    if not isinstance(doc["config"], dict):
        raise GameFileError(f"{path}: 'config' must be a JSON object of GameConfig fields")
    meta = {k: v for k, v in doc.items() if k not in ("config", "actions")}
    return {"config": record_config(doc["config"]), "actions": doc["actions"]}, meta


def record_config(config: dict) -> dict:
    """A record's ``config`` as this engine replays it. ``GameConfig.to_dict`` writes every Industria field
    once one is on, so an Industria record without a ``trains`` key predates the Train module (Industria
    part 1, where ``industria=True`` meant the part-1 modules): it replays with ``trains=False``, as a
    version 2 save loads (saves.py)."""
    if config.get("industria") and "trains" not in config:
        return {**config, "trains": False}
    return config


def load_game_file(path) -> tuple[Game, dict]:
    """The game at the end of the record or saved state in ``path``, and the file's metadata."""
    record, meta = read_game_file(path)
    try:
        config = GameConfig.from_dict(record["config"])
        game = Game.replay(config, record["actions"])
    except (ValueError, TypeError, IllegalActionError) as e:
        raise GameFileError(f"{path}: cannot rebuild the game: {e}") from None
    return game, meta


def write_record(path, game: Game, **meta) -> None:
    """Write ``game.record()`` plus ``meta`` as JSON, atomically (temporary file + rename)."""
    doc = {"format": RECORD_FORMAT, "version": RECORD_VERSION, **game.record(), **meta}
    atomic_write_text(path, json.dumps(doc, indent=1))


def decision_points(config: GameConfig, actions, seat: int) -> list[int]:
    """The indices into ``actions`` at which ``seat`` made the decision, replaying from setup."""
    g = Game(config)
    points = []
    for i, a in enumerate(actions):
        if g.current_player == seat:
            points.append(i)
        g.apply(a)
    return points


def take_back(game: Game, seat: int) -> tuple[Game, int]:
    """Undo for a player against bots: the game just before ``seat``'s last decision, and how many
    decisions that takes back (``seat``'s last one and every later one of the other seats).

    Rebuilt from the record rather than by reversing moves: the seed fixes every chance event, so
    the replayed prefix is exactly the position ``seat`` faced. ValueError when ``seat`` has not
    decided yet. The caller resets its bots, whose own random state the record does not hold."""
    history = game.history
    points = decision_points(game.config, history, seat)
    if not points:
        raise ValueError("nothing to undo: you have not made a decision yet")
    k = points[-1]
    return Game.replay(game.config, history[:k]), len(history) - k
