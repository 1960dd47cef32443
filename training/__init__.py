"""Training and evaluation: self-play PPO (``training.ppo``), tournaments between any agents
(``training.tournament``) and their ratings (``training.ratings``).

Nothing heavy is imported here, so ``import training.tournament`` does not load torch.
"""
