"""Issue 15, "Your own agent, everywhere an agent goes": agent specs naming any importable class or
factory, a Python file, or an installed package's entry point; policies trained elsewhere through
``PolicyAgent``; the how-to of docs/agents.md run exactly as written; bad specs named."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents import PolicyAgent, make, parse_spec
from clans_env import Game, GameConfig

ROOT = Path(__file__).resolve().parent.parent

BOT = '''
from agents import Agent


class Last(Agent):
    name = "last"

    def __init__(self, depth=1, seed=None):
        super().__init__(seed)
        self.depth = depth

    def act(self, game):
        return game.legal_actions()[-1]


def first_legal():
    return lambda obs: int(obs["action_mask"].nonzero()[0][0])


def cheater():
    return lambda obs: 0 if not obs["action_mask"][0] else 1
'''


@pytest.fixture
def bot_file(tmp_path):
    path = tmp_path / "mybot.py"
    path.write_text(BOT)
    return path


def play(agent, seed=3, moves=40):
    g = Game(GameConfig(num_players=2, seed=seed))
    for _ in range(moves):
        if g.is_terminal():
            break
        a = agent.act(g)
        assert a in g.legal_actions()
        g.apply(a)


def test_file_spec_with_options_and_seed(bot_file):
    """A Python file: ``path:Class[:key=value,...]``; options become keyword arguments, the seed is passed."""
    agent = make(f"{bot_file}:Last:depth=2", seed=5)
    assert agent.depth == 2 and agent.seed == 5 and agent.name == "last"
    assert agent.spec == f"{bot_file}:Last:depth=2"
    play(agent)


def test_module_spec(bot_file, monkeypatch):
    """An importable module: ``module:Class``."""
    monkeypatch.syspath_prepend(str(bot_file.parent))
    agent = make("mybot:Last:depth=3")
    assert agent.depth == 3
    kind, options = parse_spec("mybot:Last:depth=3")
    assert kind == "mybot:Last" and options == {"depth": 3}


def test_entry_point_makes_a_kind(bot_file, tmp_path, monkeypatch):
    """An installed package registers a kind through the entry point group ``clans_env.agents``
    (here a minimal installed distribution: its dist-info on sys.path)."""
    site = tmp_path / "site"
    dist = site / "their_bot-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: their-bot\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[clans_env.agents]\ntheir-bot = their_bot:Last\n")
    (site / "their_bot.py").write_text(BOT)
    monkeypatch.syspath_prepend(str(site))
    agent = make("their-bot:depth=4", seed=1)
    assert agent.depth == 4 and agent.seed == 1
    play(agent)
    with pytest.raises(ValueError, match="their-bot"):          # listed among the valid kinds
        parse_spec("nonesuch")


def test_a_policy_function_becomes_a_policy_agent(bot_file):
    """A factory returning ``policy(observation_dict) -> action`` is wrapped in PolicyAgent; the policy
    sees the PettingZoo observation dict; an illegal answer is an error naming the action."""
    agent = make(f"{bot_file}:first_legal")
    assert isinstance(agent, PolicyAgent)
    play(agent)
    bad = make(f"{bot_file}:cheater")
    g = Game(GameConfig(num_players=2, seed=3))
    with pytest.raises(ValueError, match="not legal"):
        bad.act(g)


@pytest.mark.parametrize("spec,words", [
    ("foo", "unknown agent kind 'foo'"),
    ("./no_such_bot.py:Bot", "no such Python file"),
    ("json:NoSuchThing", "has no attribute 'NoSuchThing'"),
    ("no_such_module_xyz:Bot", "cannot import module 'no_such_module_xyz'"),
    ("mcts:sims=many", "bad value 'many'"),
])
def test_bad_specs_say_what_is_wrong(spec, words):
    """A bad spec names what is wrong (the kind, the file, the attribute, the module, the value)."""
    with pytest.raises(ValueError, match=re.escape(words)):
        make(spec)


def test_cli_tournament_names_a_bad_spec():
    """``clans tournament foo`` complains about ``foo``, not about the number of agents."""
    out = subprocess.run([sys.executable, "-m", "clans_cli.main", "tournament", "foo"], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 2 and "unknown agent kind 'foo'" in out.stderr


def test_maskable_ppo_model_plays_through_the_adapter():
    """A policy trained elsewhere: a short sb3-contrib MaskablePPO run on SingleAgentEnv, then
    ``PolicyAgent.from_sb3(model)`` plays legal moves in the engine (and in tournaments)."""
    import torch
    sb3 = pytest.importorskip("sb3_contrib")
    from clans_env.wrappers import SingleAgentEnv
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        env = SingleAgentEnv(num_players=2)
        model = sb3.MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0,
                                policy_kwargs={"net_arch": [16]}, verbose=0, device="cpu")
        model.learn(256)
    finally:
        torch.set_num_threads(threads)
    agent = PolicyAgent.from_sb3(model)
    play(agent, moves=200)


def test_the_how_to_in_the_docs_runs_as_written(tmp_path, monkeypatch):
    """docs/agents.md, "Your own agent": the agent file and the tournament snippet, extracted from the
    doc and run unchanged (from a folder holding the doc's mybot.py)."""
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    section = text.split("## Your own agent", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    agent_code, tournament_code = blocks
    (tmp_path / "mybot.py").write_text(agent_code)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(tournament_code, "docs/agents.md", "exec"), namespace)
    result = namespace["result"]
    assert {row["agent"] for row in result.standings} == {"./mybot.py:Greedy", "random"}
    assert all(row["forfeits"] == 0 for row in result.standings)


def test_run_tournament_takes_agent_objects(bot_file):
    """``run_tournament`` accepts Agent objects beside specs: in-process, and in worker processes by
    pickling; each game gets a fresh, reseeded copy, so the results are those of the same specs."""
    from agents import HeuristicAgent, RandomAgent
    from training.tournament import run_tournament
    by_objects = run_tournament([HeuristicAgent(), RandomAgent()], games_per_pairing=2, workers=2, progress=False)
    by_specs = run_tournament(["heuristic", "random"], games_per_pairing=2, workers=2, progress=False)
    assert [r["agent"] for r in by_objects.standings] == ["object:agents.heuristic.HeuristicAgent",
                                                          "object:agents.random_agent.RandomAgent"]
    assert [r["mean_score"] for r in by_objects.standings] == [r["mean_score"] for r in by_specs.standings]
    mine = make(f"{bot_file}:Last")
    inline = run_tournament([mine, "random"], games_per_pairing=2, workers=1, progress=False)
    assert inline.standings[0]["games"] == 2 and {r["agent"] for r in inline.standings} == {f"{bot_file}:Last",
                                                                                            "random"}
    with pytest.raises(ValueError, match="Agent objects"):
        run_tournament([object(), "random"], games_per_pairing=2, workers=1, progress=False)


def _make_and_reset(factory):
    env = factory(num_players=2)
    env.reset(seed=1)
    return env.agent_selection


def test_the_env_factory_pickles_and_runs_in_a_spawned_process():
    """Issue 15, "The libraries researchers use": ``clans_env.env`` pickles (by reference) with pickle and
    cloudpickle, so a factory naming it reaches spawn / forkserver workers (SB3's SubprocVecEnv, Gymnasium's
    AsyncVectorEnv) and RLlib's cloudpickled creators."""
    import multiprocessing as mp
    import pickle

    import cloudpickle
    import clans_env
    assert pickle.loads(pickle.dumps(clans_env.env)) is clans_env.env
    creator = cloudpickle.loads(cloudpickle.dumps(lambda cfg: clans_env.env(num_players=cfg["n"])))
    assert creator({"n": 2}).possible_agents == ["player_0", "player_1"]
    with mp.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_make_and_reset, (clans_env.env,)) in ("player_0", "player_1")
