"""PPO models beyond the 2-player base game (issue 33): warm starts across player counts and Industria
sets, the per-configuration training configs, and the refusal of a model for another configuration
or action table when it is loaded for a game."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.ppo import CheckpointError, PPOAgent, observation_layout
from clans_env import Game, GameConfig
from clans_env.engine.actions import NUM_ACTIONS
from training.config import PPOConfig
from training.networks import build_network
from training.ppo import PPOTrainer, export_model, warm_start
from training.selfplay import make_encoder

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "training" / "configs"


def tiny_model(tmp_path, num_players=2, game_options=None, name="src.pt", seed=0):
    cfg = PPOConfig(num_players=num_players, game_options=dict(game_options or {}), hidden_sizes=[16], seed=seed)
    enc = make_encoder(num_players, cfg.game_options)
    torch.manual_seed(seed)
    net = build_network(cfg, enc.size, NUM_ACTIONS)
    with torch.no_grad():                      # a policy head that is not ~0, so outputs differ visibly
        net.policy_head.weight.normal_()
    path = tmp_path / name
    export_model(net, cfg, path, enc)
    return path, net, enc


def source_input(new_obs: np.ndarray, new_enc, old_enc) -> np.ndarray:
    """The old encoder's observation holding the new one's shared slices (others zero)."""
    old = {name: (start, length) for name, start, length, _, _ in observation_layout(old_enc)}
    out = np.zeros(old_enc.size, np.float32)
    for name, start, length, _, _ in observation_layout(new_enc):
        if name in old and old[name][1] == length:
            out[old[name][0]:old[name][0] + length] = new_obs[start:start + length]
    return out


@pytest.mark.parametrize("players, options", [(2, {"industria": True}), (3, {}), (4, {"industria": True})])
def test_warm_start_computes_the_source_policy_on_the_shared_features(tmp_path, players, options):
    """A network warm-started from a 2-player base model gives, on a position of the new configuration,
    the source's logits and values on that position's shared observation slices (new slices start with
    zero weights); extra value rows repeat the source's last opponent row."""
    src_path, src_net, src_enc = tiny_model(tmp_path)
    cfg = PPOConfig(num_players=players, game_options=options, hidden_sizes=[16], seed=1)
    enc = make_encoder(players, cfg.game_options)
    net = build_network(cfg, enc.size, NUM_ACTIONS)
    info = warm_start(net, enc, src_path)
    assert info["slices_copied"] > 0 and info["slices_zeroed"]
    g = Game(GameConfig(num_players=players, seed=3, **options))
    rng = np.random.default_rng(0)
    for _ in range(40):                        # into the game, where the players' slices are not empty
        legal = g.legal_actions()
        g.apply(legal[rng.integers(len(legal))])
    obs = enc.encode(g, g.current_player)
    mask = np.zeros(NUM_ACTIONS, bool)
    mask[g.legal_actions()] = True
    with torch.no_grad():
        logits, values = net(torch.from_numpy(obs)[None], torch.from_numpy(mask)[None])
        src_logits, src_values = src_net(torch.from_numpy(source_input(obs, enc, src_enc))[None],
                                         torch.from_numpy(mask)[None])
    assert torch.allclose(logits, src_logits, atol=1e-5)
    assert torch.allclose(values[0, :2], src_values[0], atol=1e-5)
    assert torch.allclose(values[0, 2:], src_values[0, 1].expand(players - 2), atol=1e-5)


def test_warm_start_refuses_another_network_shape(tmp_path):
    src_path, _, _ = tiny_model(tmp_path)
    cfg = PPOConfig(hidden_sizes=[32])
    enc = make_encoder(2)
    with pytest.raises(CheckpointError, match="hidden_sizes"):
        warm_start(build_network(cfg, enc.size, NUM_ACTIONS), enc, src_path)


def test_trainer_starts_from_init_from_and_records_it(tmp_path):
    src_path, _, _ = tiny_model(tmp_path)
    cfg = PPOConfig(num_players=3, hidden_sizes=[16], init_from=str(src_path), total_steps=64, rollout_steps=32,
                    num_envs=2, minibatch_size=32, epochs=1, eval_games_random=0, eval_games_heuristic=0)
    fresh = PPOTrainer(PPOConfig(**{**cfg.to_dict(), "init_from": None}), tmp_path / "fresh", tensorboard=False, progress=False)
    warm = PPOTrainer(cfg, tmp_path / "warm", tensorboard=False, progress=False)
    assert warm.warm_started["init_from"] == str(src_path)
    assert not torch.equal(warm.net.policy_head.weight, fresh.net.policy_head.weight)
    assert PPOConfig.load(tmp_path / "warm" / "config.toml").init_from == str(src_path)


def test_init_from_must_be_a_path():
    with pytest.raises(ValueError, match="init_from"):
        PPOConfig(init_from="")


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("ppo_*.toml")), ids=lambda p: p.name)
def test_training_configs_load_and_name_their_game(path):
    cfg = PPOConfig.load(path)
    GameConfig(num_players=cfg.num_players, **cfg.game_options)       # a valid game
    if cfg.init_from is not None:
        assert (ROOT / cfg.init_from).is_file(), cfg.init_from


# ------------------------------------------------------------------------------------------------
# a model for another configuration or action table is refused, naming both
def test_base_model_refuses_an_industria_game_naming_both_configurations(tmp_path):
    path, _, _ = tiny_model(tmp_path)
    agent = PPOAgent(path)
    with pytest.raises(CheckpointError, match=r"num_players=2, base game \(no Industria\).*"
                                              r"num_players=2, Industria modules \(farmers_markets"):
        agent.act(Game(GameConfig(num_players=2, seed=0, industria=True)))


def test_industria_model_refuses_base_and_other_module_sets_and_player_counts(tmp_path):
    path, _, _ = tiny_model(tmp_path, game_options={"industria": True})
    agent = PPOAgent(path)
    with pytest.raises(CheckpointError, match=r"Industria modules \(farmers_markets.*trains\), but this game has "
                                              r"num_players=2, base game"):
        agent.act(Game(GameConfig(num_players=2, seed=0)))
    with pytest.raises(CheckpointError, match=r"trains\), but this game has num_players=2, Industria modules "
                                              r"\(farmers_markets, refill_board"):
        agent.act(Game(GameConfig(num_players=2, seed=0, industria=True, awards=False)))
    with pytest.raises(CheckpointError, match=r"num_players=2, Industria.*but this game has num_players=3, Industria"):
        agent.act(Game(GameConfig(num_players=3, seed=0, industria=True)))
    agent.act(Game(GameConfig(num_players=2, seed=0, industria=True)))      # its own configuration plays


def test_az_agent_refuses_another_configuration_too(tmp_path):
    from agents.az import AZAgent
    path, _, _ = tiny_model(tmp_path)
    with pytest.raises(CheckpointError, match=r"base game \(no Industria\).*Industria modules"):
        AZAgent(path, sims=2).act(Game(GameConfig(num_players=2, seed=0, industria=True)))


def test_model_for_another_action_table_is_refused_naming_both(tmp_path):
    """The same number of actions in other sections (a reordered table) is still another table."""
    from agents.ppo import action_table_fingerprint
    from clans_env.engine.actions import SECTIONS
    path, _, _ = tiny_model(tmp_path)
    ckpt = torch.load(path, weights_only=True)
    assert ckpt["action_table"] == action_table_fingerprint()
    (a_name, a_start, a_size), (b_name, _, b_size) = SECTIONS[0], SECTIONS[1]
    swapped = ((b_name, a_start, b_size), (a_name, a_start + b_size, a_size), *SECTIONS[2:])
    ckpt["action_table"] = action_table_fingerprint(swapped)
    torch.save(ckpt, tmp_path / "other_table.pt")
    with pytest.raises(CheckpointError, match=rf"action table '{ckpt['action_table']}' \({NUM_ACTIONS} actions\), "
                                              rf"but this engine's action table is '{action_table_fingerprint()}'"):
        PPOAgent(tmp_path / "other_table.pt")


def test_shipped_models_play_their_own_configuration():
    """Every shipped PPO model loads, plays a move of a game of its configuration, and refuses the
    2-player base game unless that is its configuration."""
    from agents.ppo import trained_modules
    for path in sorted((ROOT / "models").glob("ppo_*/model.pt")):
        agent = PPOAgent(path)
        modules = trained_modules(agent.checkpoint)
        g = Game(GameConfig(num_players=agent.num_players, seed=1, **({"industria": True} if modules else {})))
        assert g.config.industria_modules == modules
        agent.act(g)
        if agent.num_players != 2 or modules:
            with pytest.raises(CheckpointError, match="but this game has num_players=2, base game"):
                agent.act(Game(GameConfig(num_players=2, seed=1)))


def test_mcts_with_a_policy_of_another_configuration_refuses_too(tmp_path):
    from agents import make
    path, _, _ = tiny_model(tmp_path, game_options={"industria": True})
    agent = make(f"mcts:sims=2,policy={path}", seed=0)
    with pytest.raises(CheckpointError, match=r"Industria modules.*but this game has num_players=2, base game"):
        agent.act(Game(GameConfig(num_players=2, seed=0)))
