#!/usr/bin/python3
"""Optuna on the ML demo's own train.mjs (issue 27's pruning benchmark), for Debian's python3-optuna.

TPE (seeded) with a pruner drives train.mjs through its intermediate reports: each trial trains in
its own copy of the template (node_modules linked), with LOOP_STEP_BUDGET and LOOP_REPORT_EVERY as
the demo sets them; every "report step <n> val_bpc <x>" line is trial.report(x, n), and a trial
Optuna prunes has its process group killed. n_jobs trials run at once, until --seconds have passed.

Prints one JSON line per finished trial: {"t": seconds since start, "value": val_bpc or null,
"state": "complete" | "pruned" | "fail", "trial": its number, "params": its config, "step": the
report that pruned it}; the caller computes the best at any wall time. With
--target X, no new trial starts once a complete trial reached X or less and --at-least seconds have
passed (the bench's "time to A's best" for Optuna; --seconds stays the limit).

usage: optuna_demo.py --template DIR --node-modules DIR --out DIR --steps N --report-every N
                      --seconds S --seed K [--pruner hyperband|median] [--jobs 2]
                      [--target X --at-least S]
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import optuna

parser = argparse.ArgumentParser()
parser.add_argument("--template", required=True)
parser.add_argument("--node-modules", required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--steps", type=int, required=True)
parser.add_argument("--report-every", type=int, required=True)
parser.add_argument("--seconds", type=float, required=True)
parser.add_argument("--seed", type=int, required=True)
parser.add_argument("--pruner", default="hyperband", choices=["hyperband", "median"])
parser.add_argument("--jobs", type=int, default=2)
parser.add_argument("--target", type=float)
parser.add_argument("--at-least", type=float, default=0.0)
args = parser.parse_args()

with open(os.path.join(args.template, "search-space.json")) as f:
    SPACE = json.load(f)
with open(os.path.join(args.template, "config.json")) as f:
    BASE = json.load(f)
REPORT = re.compile(r"^report step (\d+) val_bpc (\S+)$")
FINAL = re.compile(r"^val_bpc: (\S+)$")
START = time.time()


def suggest(trial):
    config = dict(BASE)
    for name, p in SPACE.items():
        if "values" in p:
            config[name] = trial.suggest_categorical(name, p["values"])
        else:
            config[name] = trial.suggest_float(name, p["min"], p["max"], log=p.get("scale") == "log")
    return config


def objective(trial):
    work = os.path.join(args.out, f"trial-{trial.number}")
    os.makedirs(work)
    for name in ("train.mjs", "prepare.mjs", "search-space.json"):
        shutil.copy(os.path.join(args.template, name), work)
    os.symlink(args.node_modules, os.path.join(work, "node_modules"))
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(suggest(trial), f)
    env = dict(os.environ, LOOP_STEP_BUDGET=str(args.steps), LOOP_REPORT_EVERY=str(args.report_every), LOOP_SEED="0")
    proc = subprocess.Popen(["node", "train.mjs"], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    final = None
    try:
        for line in proc.stdout:
            line = line.strip()
            m = REPORT.match(line)
            if m:
                value = float(m.group(2))
                trial.report(value if value == value else float("inf"), int(m.group(1)))
                if trial.should_prune():
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    emit(None, "pruned", trial, int(m.group(1)))
                    raise optuna.TrialPruned()
            m = FINAL.match(line)
            if m:
                final = float(m.group(1))
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)
    if final is None or proc.returncode != 0:
        emit(None, "fail", trial)
        raise RuntimeError("train.mjs printed no val_bpc")
    emit(final, "complete", trial)
    return final


def emit(value, state, trial, step=None):
    line = {"t": time.time() - START, "value": value, "state": state, "trial": trial.number, "params": trial.params}
    if step is not None:
        line["step"] = step
    print(json.dumps(line), flush=True)


optuna.logging.set_verbosity(optuna.logging.WARNING)
pruner = (optuna.pruners.HyperbandPruner(min_resource=args.report_every, max_resource=args.steps, reduction_factor=3)
          if args.pruner == "hyperband" else optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=args.report_every))
study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=args.seed), pruner=pruner)


def stop_at_target(study, _trial):
    if time.time() - START < args.at_least:
        return
    done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if any(t.value <= args.target for t in done):
        study.stop()


callbacks = [stop_at_target] if args.target is not None else []
study.optimize(objective, timeout=args.seconds, n_jobs=args.jobs, catch=(RuntimeError,), callbacks=callbacks)
sys.exit(0)
