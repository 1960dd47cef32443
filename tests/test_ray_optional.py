"""Ray is optional (issue 19): without it the --ray commands say how to install it, and the
project's other layers never import it. Runs whether or not Ray is installed (Ray is hidden)."""
from __future__ import annotations

import sys

import pytest


@pytest.fixture
def no_ray(monkeypatch):
    """Make ``import ray`` fail as if the extra were not installed (and no Ray is running)."""
    monkeypatch.setitem(sys.modules, "ray", None)


def test_require_ray_names_the_extra(no_ray):
    from training import ray_backend
    assert not ray_backend.available()
    with pytest.raises(ray_backend.RayUnavailable, match=r'pip install -e "\.\[ray\]"'):
        ray_backend.init()


def test_cli_without_ray_says_how_to_install_it(no_ray, tmp_path, capsys):
    from clans_cli.main import main
    assert main(["tournament", "random", "heuristic", "--ray", "--max-games", "1", "--no-progress",
                 "--out", str(tmp_path / "t")]) == 2
    assert 'pip install -e ".[ray]"' in capsys.readouterr().err
    assert main(["train", "ppo", "--ray", "--out", str(tmp_path / "p"), "--total-steps", "10",
                 "--no-progress", "--no-tensorboard"]) == 2
    assert 'pip install -e ".[ray]"' in capsys.readouterr().err


def test_importing_the_backend_does_not_import_ray():
    import subprocess
    code = "import training.ray_backend, sys; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
