#!/bin/bash
# Issue 33 device run: six PPO runs side by side (2 collection workers each), then an evaluation of each.
# Run from the project copy's root; MIN = training minutes per run, EVH / EVR = evaluation games.
set -u
MIN=${MIN:-4.4}; HARD=${HARD:-310}; EVH=${EVH:-80}; EVR=${EVR:-40}; EVT=${EVT:-100}
RUNS=${RUNS:-"ppo_industria_2p ppo_3p ppo_4p ppo_industria_3p ppo_industria_4p ppo_industria_2p_scratch"}
OUT=${OUT:-/tmp/out33}; mkdir -p "$OUT" runs
t0=$(date +%s)
[ -n "${SKIPPIP:-}" ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../whl/*.whl || exit 1
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
timeout 40 python3 setup.py build_ext --inplace > runs/build_ext.log 2>&1 &
python3 -c "import clans_env.encoding as e, torch; print('fast encoder:', e.ACCELERATED, '| torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
nproc; DEV=cpu
# the PPO update on the GPU had never run on one: a one-update smoke run decides, else the CPU takes it
timeout 60 python3 -m clans_cli.train_cmd ppo --config training/configs/ppo_4p.toml --out runs/cuda_smoke --max-updates 1 \
   --set rollout_steps=256 --set num_envs=4 --set workers=0 --set eval_games_random=0 --set eval_games_heuristic=0 \
   --no-progress --no-tensorboard --device cuda > runs/cuda_smoke.log 2>&1 && DEV=cuda
wait
python3 -c "import clans_env.encoding as e; print('fast encoder after build:', e.ACCELERATED)"
echo "PPO update device: $DEV after $(( $(date +%s) - t0 )) s"; tail -n 5 runs/cuda_smoke.log
for r in $RUNS; do
  timeout -s INT -k 20 $HARD python3 -m clans_cli.train_cmd ppo --config training/configs/$r.toml --out runs/$r \
     --max-minutes $MIN --no-progress --no-tensorboard --device $DEV > runs/$r.train.log 2>&1 &
done
wait
echo "training done after $(( $(date +%s) - t0 )) s"
for r in $RUNS; do
  timeout -s INT $EVT python3 benchmarks/ppo_eval.py eval --model runs/$r/model.pt --random-games $EVR \
     --heuristic-games $EVH --check-games 1 --out runs/$r/eval_device.json > runs/$r.eval.log 2>&1 &
done
wait
echo "evaluation done after $(( $(date +%s) - t0 )) s"
for r in $RUNS; do
  echo "== $r"; tail -n 3 runs/$r.train.log; cat runs/$r.eval.log | grep -v Warn
  python3 - "$r" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(f"runs/{sys.argv[1]}/log.jsonl")]
ups = [r for r in rows if "kind" not in r]
if ups:
    u = ups[-1]
    print(f"updates {u['update']} steps {u['global_step']} games {u['games']} elapsed {u['elapsed_s']:.0f}s "
          f"steps/s(last) {u['steps_per_s']:.0f} update_s(last) {u['update_s']:.2f} collect_s(last) {u['collect_s']:.2f}")
for r in rows:
    if r.get("kind") == "eval":
        print("eval", r["update"], r["global_step"], {k: round(v["win_rate"], 3) for k, v in r["results"].items()})
PY
  cp runs/$r.train.log runs/$r.eval.log runs/$r/ 2>/dev/null
  tar czf "$OUT/$r.tar.gz" --exclude=checkpoint.pt --exclude=pool --exclude=tb -C runs $r
done
tail -n 3 runs/build_ext.log; ls -la "$OUT"
echo "all done after $(( $(date +%s) - t0 )) s"
