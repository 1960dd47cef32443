"""The benchmark ladder: one command, one number others can compare (``clans ladder SPEC``).

A *ladder* (a versioned TOML file under ``training/ladders/``, e.g. ``standard-v1.toml``) fixes a set
of reference opponents with fixed ratings, the formats (2 and 4 players), the number of games, the
seed (so every candidate meets the same deals and the same opponent seeds) and the solo games. The
candidate plays a gauntlet in each format through ``training.tournament.run_tournament`` (worker
processes, per-move time limits, ``resume``, seats rotated on every deal), then solo games.

Rating. Every game gives one result per (candidate, opponent) pair: 1 if the candidate finished
ahead, 1/2 for a tie, 0 behind (a candidate's forfeit is a loss against everyone in that game; a game
an opponent forfeits is left out). The candidate's rating ``r`` is the maximum-likelihood solution of
the Elo / Bradley-Terry model ``P(ahead of opponent o) = 1 / (1 + 10^((R_o - r) / 400))`` with the
opponents' ratings ``R_o`` held at the ladder's fixed numbers (random = 0 and heuristic = 1000 by
definition), so the scale does not move from one candidate to the next. Why this and not OpenSkill:
OpenSkill (used by ``clans tournament``) updates ratings game by game, so its numbers depend on the
order of the games and on a prior, and its mu/sigma have no fixed anchor; a one-parameter
maximum-likelihood fit against fixed opponents is order-free, exact at the anchors and cheap to
bootstrap. The 95% interval is a stratified bootstrap over deals (the games of
one deal - all its seatings - are resampled together within each format, so the interval accounts for the seat rotation
and for the several pairs a 4-player game gives); it is widened to the analytic (Fisher information)
interval where that is wider (a bootstrap over a handful of deals, as in ``--quick``'s 4-player games,
is too optimistic). A candidate that finishes ahead of (behind) every
opponent in every game has no finite estimate: the rating given is then the one-sided 95% lower
(upper) bound, marked ``bound``. The intervals hold the opponents' ratings fixed: they say how well
this candidate was measured on this ladder's scale.

Results are JSON (``LadderResult``): the ladder's name, version and file hash, the candidate's spec,
the package version, per-format and per-opponent results, the rating with its interval, the solo score
and band, and every pairwise result (so a result can be re-rated, e.g. after a calibration).
"""
from __future__ import annotations

import copy
import hashlib
import json
import math
import platform
import re
import time
import tomllib
import zlib
from dataclasses import MISSING, asdict, dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path

from .progress import say as progress_say
from .ratings import Z95, mean_interval, wilson_interval

#: where the shipped ladder definitions live
LADDER_DIR = Path(__file__).resolve().parent / "ladders"
#: the ladder ``clans ladder`` plays unless told otherwise
DEFAULT_LADDER = "standard-v1"
#: the project folder, substituted for ``{root}`` in opponent specs (shipped models)
ROOT = Path(__file__).resolve().parent.parent
#: Elo scale: rating points per factor 10 in the odds of finishing ahead
ELO_SCALE = 400.0
RESULT_FORMAT = "clans-ladder-result"
RESULT_FORMAT_VERSION = 1
BOOTSTRAP_SAMPLES = 1000
#: how far outside the opponents' ratings a rating may lie before it is reported as a bound
RATING_RANGE = 2000.0
QUICK_NOTE = ("--quick: few games and only the cheap opponents, so the interval is about 2-3 times wider than the full "
              "ladder's; use the full ladder for a figure to publish")

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
#: a format is named by its player count, optionally with a variant: "2p", "4p", "2p-industria"
_FORMAT_RE = re.compile(r"^([1-9])p(-[a-z][a-z0-9_]*)?$")


# ------------------------------------------------------------------------------------------------
# the ladder definition
@dataclass(frozen=True)
class Opponent:
    name: str
    spec: str                      # as written in the file ({root} not substituted)
    formats: tuple                 # format keys ("2p", "4p")
    ratings: dict                  # format key -> fixed rating (missing: not calibrated)
    quick: bool = False

    @property
    def resolved_spec(self) -> str:
        return resolve_spec(self.spec)


@dataclass(frozen=True)
class Format:
    key: str
    players: int
    games: int                     # per lineup (rounded up to a multiple of players by the tournament)
    quick_games: int
    #: GameConfig fields of every game of the format (e.g. {"industria": True}); empty for the base game
    options: dict = field(default_factory=dict)

    @property
    def seed_parts(self) -> tuple:
        """What the format's deal seed derives from besides the ladder seed: the player count, and for a
        variant also its name, so that "2p" keeps the deals it has always had and "2p-industria" gets its own."""
        return (self.players,) if not self.options else (self.players, zlib.crc32(self.key.encode()))


@dataclass(frozen=True)
class Ladder:
    name: str
    version: int
    seed: int
    anchors: dict                  # opponent name -> rating it has by definition
    move_time_limit: float | None
    formats: dict                  # key -> Format
    solo_games: int
    solo_quick_games: int
    opponents: tuple               # Opponent, in file order
    path: str
    sha256: str
    calibration: str = ""

    @property
    def id(self) -> str:
        return f"{self.name}-v{self.version}"

    def opponents_for(self, fmt: str, quick: bool = False) -> list[Opponent]:
        return [o for o in self.opponents if fmt in o.formats and (o.quick or not quick)]

    def opponent(self, name: str) -> Opponent:
        for o in self.opponents:
            if o.name == name:
                return o
        raise KeyError(name)

    def games(self, fmt: str, quick: bool = False) -> int:
        f = self.formats[fmt]
        return f.quick_games if quick else f.games


def resolve_spec(spec: str) -> str:
    return spec.replace("{root}", str(ROOT))


def same_agent_key(spec: str) -> str:
    """``spec`` with ``{root}`` filled in and every ``path=`` option made absolute, so that a candidate
    run as ``ppo:path=models/x/model.pt`` from the project folder is recognised as the opponent
    ``ppo:path={root}/models/x/model.pt`` (calibration)."""
    def absolute(m: re.Match) -> str:
        return m.group(1) + str(Path(m.group(2)).expanduser().resolve())
    return re.sub(r"((?:^|[:,])path=)([^,]+)", absolute, resolve_spec(spec))


def ladder_path(name_or_path) -> Path:
    """A ladder file: a path, or the name of a shipped ladder (``standard-v1``)."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        return p
    shipped = LADDER_DIR / f"{name_or_path}.toml"
    if shipped.is_file():
        return shipped
    raise ValueError(f"no ladder {str(name_or_path)!r}: give a .toml file or one of {', '.join(shipped_ladders())}")


def shipped_ladders() -> list[str]:
    return sorted(p.stem for p in LADDER_DIR.glob("*.toml"))


def _keys(where: str, table, allowed: dict, required=()) -> None:
    if not isinstance(table, dict):
        raise ValueError(f"{where} must be a table")
    for k in table:
        if k not in allowed:
            raise ValueError(f"{where}: unknown key {k!r}; valid keys: {', '.join(allowed)}")
    for k in required:
        if k not in table:
            raise ValueError(f"{where}: missing key {k!r} ({allowed[k]})")


def _int(where: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{where} must be an integer >= {minimum} (got {value!r})")
    return value


def _number(where: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where} must be a number (got {value!r})")
    return float(value)


_TOP = {"ladder": "name, version, seed, anchors", "formats": "one table per format (2p, 4p)",
        "solo": "games, quick_games", "opponent": "the reference opponents ([[opponent]] entries)"}
_LADDER = {"name": "the ladder's name", "version": "an integer, raised on every change", "seed": "an integer",
           "anchors": "opponent name -> its rating by definition", "move_time_limit": "seconds per move",
           "calibration": "how the ratings were obtained (text)", "description": "text"}
_FORMAT = {"players": "players per game (2-4)", "games": "games per lineup", "quick_games": "games per lineup "
           "with --quick", "options": "GameConfig fields of every game (a variant format, e.g. { industria = true })"}
_SOLO = {"games": "solo games", "quick_games": "solo games with --quick"}
_OPPONENT = {"name": "a short name", "spec": "an agent spec", "formats": "format keys it plays in",
             "rating": "format key -> fixed rating", "quick": "true: also played by --quick", "note": "text"}


def load_ladder(name_or_path=DEFAULT_LADDER, check_specs: bool = True) -> Ladder:
    """Read and validate a ladder file; every problem raises ``ValueError`` naming the file and the
    entry. ``check_specs``: also check that every opponent's spec builds an agent kind this
    installation has (unknown kinds and missing model files are named)."""
    path = ladder_path(name_or_path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ValueError(f"ladder file {str(path)!r} cannot be read ({e})") from None
    where = f"ladder file {str(path)!r}"
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{where} is not valid TOML: {e}") from None
    _keys(where, doc, _TOP, required=("ladder", "formats", "opponent"))
    head = doc["ladder"]
    _keys(f"{where} [ladder]", head, _LADDER, required=("name", "version", "seed", "anchors"))
    name = head["name"]
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"{where} [ladder] name must be a short name of letters, digits, '.', '_', '+', '-' "
                         f"(got {name!r})")
    version = _int(f"{where} [ladder] version", head["version"], 1)
    seed = _int(f"{where} [ladder] seed", head["seed"], 0)
    limit = head.get("move_time_limit", 60)
    limit = None if limit in (0, None) else _number(f"{where} [ladder] move_time_limit", limit)
    formats = {}
    if not isinstance(doc["formats"], dict) or not doc["formats"]:
        raise ValueError(f"{where}: [formats] needs at least one format table, e.g. [formats.2p]")
    for key, f in doc["formats"].items():
        m = _FORMAT_RE.match(key)
        if not m:
            raise ValueError(f"{where}: format {key!r} must be named by its player count, e.g. '2p' or '4p', and a "
                             f"variant by a suffix, e.g. '2p-industria'")
        w = f"{where} [formats.{key}]"
        _keys(w, f, _FORMAT, required=("players", "games", "quick_games"))
        players = _int(f"{w} players", f["players"], 2)
        if players != int(m.group(1)) or players > 4:
            raise ValueError(f"{w} players must be {m.group(1)} (the format's name) and at most 4 (got {players!r})")
        options = f.get("options", {})
        if bool(m.group(2)) != bool(options):
            raise ValueError(f"{w}: a format named with a variant suffix needs options, and one with options needs "
                             f"the suffix (got options {options!r})")
        if options:
            if not isinstance(options, dict) or {"num_players", "seed"} & set(options):
                raise ValueError(f"{w} options must be a table of GameConfig fields other than num_players and seed "
                                 f"(got {options!r})")
            from clans_env.engine.config import GameConfig
            try:
                GameConfig.from_dict({**options, "num_players": players, "seed": 0})
            except (TypeError, ValueError) as err:
                raise ValueError(f"{w} options {options!r} are not a valid game: {err}") from None
        formats[key] = Format(key, players, _int(f"{w} games", f["games"], 1),
                              _int(f"{w} quick_games", f["quick_games"], 1), dict(options))
    solo = doc.get("solo", {"games": 0, "quick_games": 0})
    _keys(f"{where} [solo]", solo, _SOLO, required=("games", "quick_games"))
    solo_games = _int(f"{where} [solo] games", solo["games"], 0)
    solo_quick = _int(f"{where} [solo] quick_games", solo["quick_games"], 0)
    entries = doc["opponent"]
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{where}: needs [[opponent]] entries")
    opponents = []
    seen = set()
    for i, e in enumerate(entries):
        w = f"{where} opponent #{i + 1}"
        _keys(w, e, _OPPONENT, required=("name", "spec", "formats"))
        oname = e["name"]
        if not isinstance(oname, str) or not _NAME_RE.match(oname):
            raise ValueError(f"{w}: name must be a short name of letters, digits, '.', '_', '+', '-' (got {oname!r})")
        w = f"{where} opponent {oname!r}"
        if oname in seen:
            raise ValueError(f"{w}: the name is used twice")
        seen.add(oname)
        spec = e["spec"]
        if not isinstance(spec, str) or not spec.strip():
            raise ValueError(f"{w}: spec must be an agent spec such as 'mcts:sims=100' (got {spec!r})")
        fmts = e["formats"]
        if not isinstance(fmts, list) or not fmts or any(f not in formats for f in fmts):
            raise ValueError(f"{w}: formats must list some of the ladder's formats {sorted(formats)} (got {fmts!r})")
        ratings = e.get("rating", {})
        if not isinstance(ratings, dict):
            raise ValueError(f"{w}: rating must be a table format -> number, e.g. {{ 2p = 1200 }}")
        for f, r in ratings.items():
            if f not in fmts:
                raise ValueError(f"{w}: rating for {f!r}, a format it does not play ({fmts})")
            _number(f"{w} rating.{f}", r)
        quick = e.get("quick", False)
        if not isinstance(quick, bool):
            raise ValueError(f"{w}: quick must be true or false (got {quick!r})")
        if check_specs:
            from agents import parse_spec
            try:
                _, options = parse_spec(resolve_spec(spec))
            except ValueError as err:
                raise ValueError(f"{w}: its spec {spec!r} cannot be built here: {err}") from None
            for key in ("path", "policy"):            # model files (e.g. {root}/models/...) must be there
                value = options.get(key)
                if isinstance(value, str) and value and not Path(value).is_file():
                    raise ValueError(f"{w}: its spec {spec!r} names the file {value!r}, which does not exist "
                                     f"(the shipped models are in the project folder's models/)")
        opponents.append(Opponent(oname, spec.strip(), tuple(fmts), {f: float(r) for f, r in ratings.items()},
                                  quick))
    anchors = head["anchors"]
    if not isinstance(anchors, dict) or not anchors:
        raise ValueError(f"{where} [ladder] anchors must name at least one opponent and its rating, "
                         f"e.g. {{ random = 0, heuristic = 1000 }}")
    by_name = {o.name: o for o in opponents}
    for a, value in anchors.items():
        value = _number(f"{where} [ladder] anchors.{a}", value)
        if a not in by_name:
            raise ValueError(f"{where} [ladder] anchors: {a!r} is not an opponent ({', '.join(by_name)})")
        for f in by_name[a].formats:
            if by_name[a].ratings.get(f) != value:
                raise ValueError(f"{where}: anchor {a!r} must be rated {value:g} in format {f!r} "
                                 f"(its rating there is {by_name[a].ratings.get(f)!r})")
    for key, f in formats.items():
        for quick in (False, True):
            opp = [o for o in opponents if key in o.formats and (o.quick or not quick)]
            if len(opp) < f.players - 1:
                raise ValueError(f"{where}: format {key!r} needs at least {f.players - 1} opponents"
                                 f"{' with quick = true' if quick else ''} (has {len(opp)})")
            if not any(key in o.ratings for o in opp):
                raise ValueError(f"{where}: format {key!r} has no opponent with a rating"
                                 f"{' among its quick ones' if quick else ''}: nothing to rate against")
    return Ladder(name=name, version=version, seed=seed, anchors={k: float(v) for k, v in anchors.items()},
                  move_time_limit=limit, formats=formats, solo_games=solo_games, solo_quick_games=solo_quick,
                  opponents=tuple(opponents), path=str(path), sha256=hashlib.sha256(raw).hexdigest(),
                  calibration=str(head.get("calibration", "")))


# ------------------------------------------------------------------------------------------------
# the rating
def _expected(r: float, opp) -> "np.ndarray":
    import numpy as np
    return 1.0 / (1.0 + np.power(10.0, (opp - r) / ELO_SCALE))


def fit_rating(opp_ratings, outcomes) -> tuple[float, str | None]:
    """The maximum-likelihood rating of a player whose result against opponents rated
    ``opp_ratings[i]`` was ``outcomes[i]`` (1 ahead, 0.5 tie, 0 behind); returns (rating, bound)
    with bound None, or "lower" / "upper" when every result was a win / a loss (the rating is then
    the one-sided 95% bound)."""
    import numpy as np
    from scipy.optimize import brentq

    opp = np.asarray(opp_ratings, dtype=float)
    y = np.asarray(outcomes, dtype=float)
    if opp.size == 0:
        raise ValueError("no rated results to fit a rating to")
    lo, hi = float(opp.min()) - RATING_RANGE, float(opp.max()) + RATING_RANGE
    total = float(y.sum())
    if total >= opp.size - 1e-12:           # only wins: P(all wins | r) = 5% gives the lower bound
        f = lambda r: float(np.log(_expected(r, opp)).sum()) - math.log(0.05)   # noqa: E731
        return (brentq(f, lo, hi, xtol=1e-9) if f(lo) < 0 < f(hi) else hi), "lower"
    if total <= 1e-12:
        f = lambda r: float(np.log1p(-_expected(r, opp)).sum()) - math.log(0.05)   # noqa: E731
        return (brentq(f, lo, hi, xtol=1e-9) if f(lo) > 0 > f(hi) else lo), "upper"
    g = lambda r: total - float(_expected(r, opp).sum())   # noqa: E731 - decreasing in r
    if g(lo) <= 0:
        return lo, "upper"
    if g(hi) >= 0:
        return hi, "lower"
    return brentq(g, lo, hi, xtol=1e-9), None


def rate_pairs(pairs: list, ladder: Ladder, formats=None, samples: int = BOOTSTRAP_SAMPLES) -> dict | None:
    """The rating (with a 95% bootstrap interval over deals) from pairwise records
    ``[format, stratum, deal, opponent, outcome]``; only opponents with a rating in that format
    count. None if there is no rated record."""
    import numpy as np

    rated = []
    for fmt, stratum, deal, opp, y in pairs:
        if formats is not None and fmt not in formats:
            continue
        try:
            r = ladder.opponent(opp).ratings.get(fmt)
        except KeyError:
            r = None
        if r is not None:
            rated.append((fmt, stratum, deal, r, y))
    if not rated:
        return None
    rating, bound = fit_rating([p[3] for p in rated], [p[4] for p in rated])
    # stratified bootstrap: per format, resample its deals (a lineup's deal: all its seatings and pairs)
    strata: dict = {}
    for fmt, lineup, deal, r, y in rated:
        strata.setdefault(fmt, {}).setdefault((lineup, deal), []).append((r, y))
    groups = [[np.array(v, dtype=float) for v in deals.values()] for deals in strata.values()]
    rng = np.random.default_rng(ladder.seed)
    draws = []
    for _ in range(samples):
        chunks = []
        for deals in groups:
            for k in rng.integers(0, len(deals), size=len(deals)):
                chunks.append(deals[k])
        a = np.concatenate(chunks)
        draws.append(fit_rating(a[:, 0], a[:, 1])[0])
    lo, hi = (float(v) for v in np.percentile(draws, [2.5, 97.5]))
    if bound is None:                 # never narrower than the analytic (Fisher information) interval
        opp = np.array([p[3] for p in rated])
        p = _expected(rating, opp)
        info = float((p * (1 - p)).sum()) * (math.log(10) / ELO_SCALE) ** 2
        half = Z95 / math.sqrt(info) if info > 0 else float("inf")
        lo, hi = min(lo, rating - half), max(hi, rating + half)
    return {"value": float(rating), "ci95": [lo, hi], "bound": bound, "pairs": len(rated),
            "deals": sum(len(d) for d in strata.values()), "samples": samples}


def calibrate(results, ladder: Ladder, prior_sd: float = 1000.0) -> dict:
    """Fit the ratings of the ladder's opponents from reference agents' own ladder results
    (``LadderResult``s whose candidate spec is an opponent's spec): per format, a joint maximum-likelihood
    fit of the Elo model over every (reference candidate, opponent) result, the anchors held at their
    fixed ratings; a weak normal prior (centred on the mean anchor rating, ``prior_sd`` points) keeps a
    reference whose every result was a win or a loss finite. Returns {format: {opponent name: rating}}
    (anchors included, exactly at their values)."""
    import numpy as np
    from scipy.optimize import minimize

    by_spec = {same_agent_key(o.spec): o.name for o in ladder.opponents}
    records: dict = {}
    for res in results:
        cand = by_spec.get(same_agent_key(res.candidate.get("spec", "")))
        if cand is None:
            continue
        for fmt, _stratum, _deal, opp, y in res.pairs:
            if opp != cand:
                records.setdefault(fmt, []).append((cand, opp, y))
    out = {}
    centre = float(np.mean(list(ladder.anchors.values())))
    for fmt in ladder.formats:
        names = [o.name for o in ladder.opponents if fmt in o.formats]
        fixed = {a: v for a, v in ladder.anchors.items() if a in names}
        free = [n for n in names if n not in fixed and any(n in (a, b) for a, b, _ in records.get(fmt, []))]
        recs = [(a, b, y) for a, b, y in records.get(fmt, []) if a in names and b in names]
        if not free:
            out[fmt] = dict(fixed)
            continue
        idx = {n: i for i, n in enumerate(free)}

        def ratings_of(x):
            return {**fixed, **{n: x[i] for n, i in idx.items()}}

        def nll(x):
            r = ratings_of(x)
            total = 0.0
            for a, b, y in recs:
                p = 1.0 / (1.0 + 10.0 ** ((r[b] - r[a]) / ELO_SCALE))
                p = min(max(p, 1e-12), 1 - 1e-12)
                total -= y * math.log(p) + (1 - y) * math.log(1 - p)
            return total + float(np.sum((x - centre) ** 2)) / (2 * prior_sd ** 2)

        fit = minimize(nll, np.full(len(free), centre), method="L-BFGS-B")
        out[fmt] = {n: (fixed[n] if n in fixed else round(float(fit.x[idx[n]]), 1))
                    for n in names if n in fixed or n in idx}
    return out


# ------------------------------------------------------------------------------------------------
# results
@dataclass
class LadderResult:
    ladder: dict                    # name, version, id, sha256, file, seed, quick
    candidate: dict                 # spec (or label of an Agent object)
    package: dict                   # name, version, python
    rating: dict | None             # value, ci95, bound, pairs, deals, samples, scale
    ratings_by_format: dict         # format -> rating dict (or None)
    formats: dict                   # format -> {players, games, forfeits, win_rate, opponents: [...]}
    solo: dict | None               # mean_score, ci95, band_of_mean, bands, games (or error)
    pairs: list                     # [format, lineup, deal, opponent, outcome]
    seconds: float = 0.0            # wall time of the games (resumed sessions included)
    created: str = ""
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"format": RESULT_FORMAT, "format_version": RESULT_FORMAT_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, d: dict) -> "LadderResult":
        if not isinstance(d, dict) or d.get("format") != RESULT_FORMAT:
            raise ValueError(f"not a ladder result (expected \"format\": \"{RESULT_FORMAT}\")")
        if d.get("format_version") != RESULT_FORMAT_VERSION:
            raise ValueError(f"ladder result format_version {d.get('format_version')!r}; this version reads "
                             f"{RESULT_FORMAT_VERSION}")
        names = {f.name for f in fields(cls)}
        missing = [f.name for f in fields(cls) if f.name not in d and f.default is MISSING
                   and f.default_factory is MISSING]
        if missing:
            raise ValueError(f"ladder result lacks {', '.join(sorted(missing))}")
        return cls(**{k: v for k, v in d.items() if k in names})

    def save(self, path) -> str:
        from clans_env.engine.game import atomic_write_text
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(str(path), json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n")
        return str(path)

    @classmethod
    def load(cls, path) -> "LadderResult":
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ValueError(f"ladder result {str(path)!r} cannot be read ({e})") from None
        try:
            return cls.from_dict(doc)
        except ValueError as e:
            raise ValueError(f"{str(path)!r}: {e}") from None


def package_info() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    try:
        v = version("clans-env")
    except PackageNotFoundError:
        v = "unknown"
    return {"name": "clans-env", "version": v, "python": platform.python_version()}


def rerate(result: LadderResult, ladder: Ladder) -> LadderResult:
    """The same games rated against ``ladder``'s (e.g. newly calibrated) ratings; the ladder must have
    the same name and version."""
    if ladder.id != result.ladder.get("id"):
        raise ValueError(f"result is on ladder {result.ladder.get('id')!r}, not {ladder.id!r}")
    out = copy.deepcopy(result)
    out.ladder["sha256"] = ladder.sha256
    _fill_ratings(out, ladder)
    return out


def _fill_ratings(res: LadderResult, ladder: Ladder) -> None:
    scale = "elo: P(ahead) = 1/(1+10^((R_opp-R)/400)); " + ", ".join(f"{k} = {v:g}" for k, v in ladder.anchors.items())
    res.rating = rate_pairs(res.pairs, ladder)
    if res.rating is not None:
        res.rating["scale"] = scale
    res.ratings_by_format = {f: rate_pairs(res.pairs, ladder, formats=[f]) for f in res.formats}
    for fmt, block in res.formats.items():
        for row in block["opponents"]:
            try:
                row["rating"] = ladder.opponent(row["name"]).ratings.get(fmt)
            except KeyError:
                row["rating"] = None
    res.notes = [n for n in res.notes if not n.startswith(("not calibrated", "--quick:"))]
    if res.ladder.get("quick"):
        res.notes.insert(0, QUICK_NOTE)
    unrated = sorted({row["name"] for b in res.formats.values() for row in b["opponents"] if row["rating"] is None})
    if unrated:
        res.notes.append(f"not calibrated (played and reported, not in the rating): {', '.join(unrated)}")


# ------------------------------------------------------------------------------------------------
# running the ladder
def _derive(*parts: int) -> int:
    from .tournament import _derive_seed
    return _derive_seed(*parts)


def slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_.")
    return s[:80] or "candidate"


def run_ladder(candidate, ladder=DEFAULT_LADDER, quick: bool = False, formats=None, solo: bool = True,
               workers: int = 2, out_dir=None, progress: bool = True, resume: bool = False,
               say=None, max_games: int | dict | None = None) -> LadderResult:
    """Play ``candidate`` (an agent spec or an Agent object) on ``ladder`` (a Ladder, a name or a file)
    and return its LadderResult (also saved as ``out_dir/ladder.json`` with ``out_dir``).

    formats: the format keys to play (default: all of the ladder's); solo: play the solo games;
    resume: continue the tournaments already in ``out_dir``; say: a function for progress lines
    (default: print to stderr when ``progress``); max_games: stop each format (or, as a dict
    {format: n}, the formats named) after this many games
    (smoke tests, or rating what an interrupted run played with ``resume``): the result is then marked
    partial in ``ladder["partial"]`` and its notes, and is not comparable with complete results."""
    from .tournament import agent_label, run_tournament

    lad = ladder if isinstance(ladder, Ladder) else load_ladder(ladder)
    if isinstance(candidate, str):
        from agents.registry import load_check
        load_check(candidate)                        # a bad spec is named before anything runs
        spec = candidate.strip()
    elif callable(getattr(candidate, "act", None)):
        spec = agent_label(candidate)
    else:
        raise ValueError(f"the ladder's candidate is an agent spec or an Agent object (with act(game)); "
                         f"got {candidate!r}")
    fmts = list(lad.formats) if formats is None else list(formats)
    for f in fmts:
        if f not in lad.formats:
            raise ValueError(f"ladder {lad.id} has no format {f!r}; its formats: {', '.join(lad.formats)}")
    if say is None:
        say = progress_say if progress else (lambda text: None)
    if out_dir is not None:
        out_dir = Path(out_dir)
    res = LadderResult(ladder={"name": lad.name, "version": lad.version, "id": lad.id, "sha256": lad.sha256,
                               "file": Path(lad.path).name, "seed": lad.seed, "quick": quick},
                       candidate={"spec": spec}, package=package_info(), rating=None, ratings_by_format={},
                       formats={}, solo=None, pairs=[],
                       created=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    for fmt in fmts:
        f = lad.formats[fmt]
        opps = lad.opponents_for(fmt, quick)
        games = lad.games(fmt, quick)
        cap = max_games.get(fmt) if isinstance(max_games, dict) else max_games
        sub = None
        if out_dir is not None:
            sub = out_dir / (fmt + ("-quick" if quick else ""))
        from math import comb
        n = comb(len(opps), f.players - 1) * max(1, math.ceil(games / f.players)) * f.players
        say(f"ladder {lad.id}{' (quick)' if quick else ''}: {fmt}, {spec} against "
            f"{', '.join(o.name for o in opps)}: {n} games")
        t = run_tournament([candidate, *[o.resolved_spec for o in opps]], num_players=f.players,
                           games_per_pairing=games, mode="gauntlet", seed=_derive(lad.seed, *f.seed_parts),
                           config=f.options or None, workers=workers,
                           out_dir=sub, progress=progress, move_time_limit=lad.move_time_limit,
                           resume=resume and sub is not None and (sub / "results.json").is_file(),
                           max_games=cap)
        res.formats[fmt] = _format_block(t, fmt, f.players, opps, res.pairs)
        if f.options:
            res.formats[fmt]["options"] = dict(f.options)
        if cap is not None and cap < n:
            res.ladder.setdefault("partial", {})[fmt] = f"{len(t.games)} of {n} games"
            res.notes.append(f"partial: {fmt} stopped after {len(t.games)} of its {n} games (max_games); "
                             f"not comparable with complete results")
        if sub is not None:
            res.formats[fmt]["tournament"] = str(sub / "results.json")
    n_solo = lad.solo_quick_games if quick else lad.solo_games
    if solo and n_solo:
        say(f"ladder {lad.id}: {n_solo} solo games")
        t_solo = time.perf_counter()
        res.solo = _solo(candidate, n_solo, _derive(lad.seed, 1), workers, progress)
        res.solo["seconds"] = round(time.perf_counter() - t_solo, 1)
    _fill_ratings(res, lad)
    # wall time of all the games, those of earlier (resumed) sessions included
    res.seconds = round(sum(b["seconds"] for b in res.formats.values()) + ((res.solo or {}).get("seconds") or 0), 1)
    if out_dir is not None:
        res.save(out_dir / "ladder.json")
    return res


def _format_block(t, fmt: str, players: int, opps: list, pairs: list) -> dict:
    cand = t.agents[0]
    opp_of = dict(zip(t.agents[1:], opps))
    rows = {o.name: {"name": o.name, "spec": o.spec, "games": 0, "score": 0.0, "forfeits": 0, "vp": [], "opp_vp": []}
            for o in opps}
    wins = games = forfeits = 0.0
    vps = []
    for g in t.games:
        if cand not in g.names:
            continue
        c = g.names.index(cand)
        lineup = "+".join(sorted(opp_of[n].name for n in g.names if n != cand))
        if not g.ok:
            if g.failure.get("seat") != c:
                continue                              # an opponent's fault: not a result for anyone
            forfeits += 1
            games += 1
            for n in g.names:
                if n != cand:
                    o = opp_of[n].name
                    rows[o]["games"] += 1
                    rows[o]["forfeits"] += 1
                    pairs.append([fmt, lineup, g.game_seed, o, 0.0])
            continue
        games += 1
        wins += 1.0 / g.ranks.count(1) if g.ranks[c] == 1 else 0.0
        vps.append(g.totals[c])
        for s, n in enumerate(g.names):
            if s == c:
                continue
            o = opp_of[n].name
            y = 1.0 if g.ranks[c] < g.ranks[s] else (0.5 if g.ranks[c] == g.ranks[s] else 0.0)
            row = rows[o]
            row["games"] += 1
            row["score"] += y
            row["vp"].append(g.totals[c])
            row["opp_vp"].append(g.totals[s])
            pairs.append([fmt, lineup, g.game_seed, o, y])
    out_rows = []
    for o in opps:
        row = rows[o.name]
        lo, hi = wilson_interval(row["score"], row["games"])
        mean, mlo, mhi = mean_interval(row["vp"])
        out_rows.append({"name": o.name, "spec": o.spec, "rating": o.ratings.get(fmt), "games": row["games"],
                         "score": row["score"], "ahead_rate": row["score"] / row["games"] if row["games"] else None,
                         "ahead_rate_ci95": [lo, hi], "mean_vp": _num(mean), "mean_vp_ci95": [_num(mlo), _num(mhi)],
                         "opponent_mean_vp": _num(mean_interval(row["opp_vp"])[0]), "forfeits": row["forfeits"]})
    lo, hi = wilson_interval(wins, int(games))
    mean, mlo, mhi = mean_interval(vps)
    return {"players": players, "games": int(games), "forfeits": int(forfeits),
            "win_rate": wins / games if games else None, "win_rate_ci95": [lo, hi], "mean_vp": _num(mean),
            "mean_vp_ci95": [_num(mlo), _num(mhi)], "seconds": round(t.seconds, 1), "opponents": out_rows,
            "failures": [f["message"] for f in t.failures]}


def _num(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def _solo(candidate, games: int, seed: int, workers: int, progress: bool) -> dict:
    """Solo games: mean VP (95% interval), the band of the mean and the band counts."""
    from . import benchmarks as B
    try:
        if isinstance(candidate, str):
            r = B.solo(candidate, games, seed=seed, workers=workers, progress=progress)
        else:
            r = _solo_object(candidate, games, seed)
    except Exception as e:  # noqa: BLE001 - the solo part fails alone (e.g. a 2-player-only policy)
        return {"games": 0, "error": f"{type(e).__name__}: {e}".splitlines()[0]}
    lo, hi = r["mean_score_ci95"]
    return {"games": r["games"], "mean_score": r["mean_score"], "mean_score_ci95": [lo, hi],
            "band_of_mean": r["band_of_mean"], "bands": r["bands"]}


def _solo_object(agent, games: int, seed: int) -> dict:
    """Solo games of an Agent object, in this process (a fresh reseeded copy per game)."""
    from clans_env.engine import GameConfig
    from clans_env.engine.rules.scoring import solo_band

    from .tournament import play_game
    totals, bands = [], {}
    for i in range(games):
        a = copy.deepcopy(agent)
        a.reset(_derive(seed, i, 2))
        game, _, _ = play_game([a], GameConfig(num_players=1, seed=_derive(seed, i, 1)))
        row = game.final_scores()[0]
        totals.append(row["total"])
        bands[row.get("band")] = bands.get(row.get("band"), 0) + 1
    mean, lo, hi = mean_interval(totals)
    return {"games": games, "mean_score": mean, "mean_score_ci95": [lo, hi], "bands": bands,
            "band_of_mean": solo_band(int(mean))}


# ------------------------------------------------------------------------------------------------
# reports
def format_rating(r: dict | None) -> str:
    if r is None:
        return "-"
    lo, hi = r["ci95"]
    mark = {"lower": ">= ", "upper": "<= "}.get(r.get("bound"), "")
    return f"{mark}{r['value']:.0f} [{lo:.0f}, {hi:.0f}]"


def report(res: LadderResult, console=None) -> None:
    """The result as rich tables: per format and opponent, then the rating and solo lines."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    for fmt, b in res.formats.items():
        wlo, whi = b["win_rate_ci95"]
        t = Table(title=f"{res.ladder['id']} {fmt}: {res.candidate['spec']} - {b['games']} games, win rate "
                        f"{_pct(b['win_rate'])} [{wlo:.0%}, {whi:.0%}]"
                        + (f", {b['forfeits']} forfeits" if b["forfeits"] else ""))
        for col in ("opponent", "rating", "games", "ahead of it [95% CI]", "mean VP", "its mean VP"):
            t.add_column(col, justify="left" if col == "opponent" else "right")
        for row in b["opponents"]:
            lo, hi = row["ahead_rate_ci95"]
            t.add_row(row["name"], "-" if row["rating"] is None else f"{row['rating']:.0f}", str(row["games"]),
                      f"{_pct(row['ahead_rate'])} [{lo:.0%}, {hi:.0%}]", _f1(row["mean_vp"]),
                      _f1(row["opponent_mean_vp"]))
        console.print(t)
        for line in b.get("failures", []):
            console.print(f"  {line}", markup=False, highlight=False)
    per = ", ".join(f"{f} {format_rating(r)}" for f, r in res.ratings_by_format.items())
    console.print(f"[bold]rating on {res.ladder['id']}: {format_rating(res.rating)}[/] (95% CI; {per})"
                  + (" [quick]" if res.ladder.get("quick") else ""), highlight=False)
    if res.rating and res.rating.get("bound"):
        console.print(f"  the candidate finished {'ahead of' if res.rating['bound'] == 'lower' else 'behind'} every "
                      f"opponent in every game: the rating is the one-sided 95% bound", highlight=False)
    if res.solo:
        if res.solo.get("error"):
            console.print(f"solo: not played: {res.solo['error']}", markup=False, highlight=False)
        else:
            lo, hi = res.solo["mean_score_ci95"]
            bands = ", ".join(f"{k} {v}" for k, v in sorted(res.solo["bands"].items(), key=lambda kv: -kv[1]))
            console.print(f"solo: {res.solo['games']} games, mean {res.solo['mean_score']:.1f} VP [{lo:.1f}, {hi:.1f}] "
                          f"= {res.solo['band_of_mean']} (bands: {bands})", highlight=False)
    for n in res.notes:
        console.print(f"note: {n}", markup=False, highlight=False)
    console.print(f"{res.seconds:.0f} s", highlight=False)


def _pct(x) -> str:
    return "-" if x is None else f"{x:.0%}"


def _f1(x) -> str:
    return "-" if x is None else f"{x:.1f}"


def _short(spec: str) -> str:
    """A spec with the project folder left out of its paths (for tables and plots)."""
    return spec.replace(str(ROOT) + "/", "")


def leaderboard_markdown(results: list[LadderResult]) -> str:
    """A markdown table of ladder results (best rating first)."""
    rows = sorted(results, key=lambda r: -(r.rating or {"value": -1e9})["value"])
    fmts = sorted({f for r in rows for f in r.formats})
    head = ["agent", "ladder", "rating [95% CI]"] + [f"{f} [95% CI]" for f in fmts] + ["solo VP (band)", "games",
                                                                                         "wall s"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        solo = "-"
        if r.solo and not r.solo.get("error"):
            solo = f"{r.solo['mean_score']:.1f} ({r.solo['band_of_mean']})"
        games = sum(b["games"] for b in r.formats.values()) + ((r.solo or {}).get("games") or 0)
        lid = r.ladder["id"] + (" quick" if r.ladder.get("quick") else "")
        if r.ladder.get("partial"):
            lid += " partial (" + ", ".join(f"{f}: {v}" for f, v in r.ladder["partial"].items()) + ")"
        cells = [f"`{_short(r.candidate['spec'])}`", lid, format_rating(r.rating)]
        cells += [format_rating(r.ratings_by_format.get(f)) for f in fmts]
        cells += [solo, str(games), f"{r.seconds:.0f}"]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def plot_leaderboard(results: list[LadderResult], path) -> str:
    """Ratings with their 95% intervals (one row per result, overall and per format) as a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted([r for r in results if r.rating], key=lambda r: r.rating["value"])
    fig, ax = plt.subplots(figsize=(8, 0.55 * len(rows) + 1.6))
    fmts = sorted({f for r in rows for f in r.formats})
    offsets = {"all": 0.0, **{f: 0.22 * (i + 1) for i, f in enumerate(fmts)}}
    for key, dy in offsets.items():
        xs, ys, err = [], [], [[], []]
        for i, r in enumerate(rows):
            rr = r.rating if key == "all" else r.ratings_by_format.get(key)
            if not rr:
                continue
            xs.append(rr["value"])
            ys.append(i - dy)
            err[0].append(max(rr["value"] - rr["ci95"][0], 0))
            err[1].append(max(rr["ci95"][1] - rr["value"], 0))
        ax.errorbar(xs, ys, xerr=err, fmt="o" if key == "all" else ".", capsize=3,
                    label="all formats" if key == "all" else key, alpha=1.0 if key == "all" else 0.6)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([_short(r.candidate["spec"]) + (" (quick)" if r.ladder.get("quick") else "")
                        + (" (partial)" if r.ladder.get("partial") else "") for r in rows], fontsize=8)
    ax.set_xlabel("rating (Elo scale; random = 0, heuristic = 1000), 95% bootstrap intervals")
    ids = sorted({r.ladder["id"] for r in rows})
    ax.set_title(f"Ladder {', '.join(ids)}: the reference agents")
    ax.axvline(0, color="grey", lw=0.5)
    ax.legend(fontsize=8, loc="center")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)
