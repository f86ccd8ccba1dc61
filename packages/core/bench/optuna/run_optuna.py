"""Runs Optuna's TPE and random samplers on the benchmark objectives and prints JSON.

stdin: {"mode": "run", "objectives": [{"name", "space", "optimum"}],
        "jobs": [{"objective", "sampler": "tpe" | "random", "seed", "noise"}], "budget": 100, "checkpoints": [30, 100]}
   or  {"mode": "check", "points": [{"objective": name, "config": {...}}]}
stdout: {"optuna": version, "results": [{"objective", "noise", "sampler", "seed", "budget", "regret"}]}
   or   {"values": [...]}
Every trial is one harness call; the best trial (by its noisy value) among the first `checkpoint`
trials is scored without noise; regret = that clean value - optimum.
"""
import json
import random
import sys

import optuna

from heldback import mixed_heldback
from heldback2 import mixed_heldback2
from heldback3 import mixed_heldback3
from objectives import OBJECTIVES

FUNCTIONS = dict(OBJECTIVES, **{"mixed-heldback": mixed_heldback, "mixed-heldback2": mixed_heldback2, "mixed-heldback3": mixed_heldback3})


def suggest(trial, space):
    config = {}
    for name in sorted(space):
        p = space[name]
        if "values" in p:
            config[name] = trial.suggest_categorical(name, p["values"])
        elif p.get("integer"):
            config[name] = trial.suggest_int(name, int(p["min"]), int(p["max"]), log=p.get("scale") == "log")
        else:
            config[name] = trial.suggest_float(name, p["min"], p["max"], log=p.get("scale") == "log")
    return config


def run_one(objective, sampler_name, seed, sigma, budget, checkpoints):
    f = FUNCTIONS[objective["name"]]
    noise = random.Random(seed * 7919 + 17)
    sampler = optuna.samplers.TPESampler(seed=seed) if sampler_name == "tpe" else optuna.samplers.RandomSampler(seed=seed)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    trials = []

    def fn(trial):
        config = suggest(trial, objective["space"])
        value = f(config) + (noise.gauss(0, sigma) if sigma > 0 else 0.0)
        trials.append((value, config))
        return value

    study.optimize(fn, n_trials=budget)
    out = []
    for cp in checkpoints:
        value, config = min(trials[:cp], key=lambda t: t[0])
        out.append({"budget": cp, "regret": f(config) - objective["optimum"]})
    return out


def main():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    req = json.load(sys.stdin)
    if req["mode"] == "check":
        print(json.dumps({"values": [FUNCTIONS[p["objective"]](p["config"]) for p in req["points"]]}))
        return
    results = []
    objectives = {o["name"]: o for o in req["objectives"]}
    for job in req["jobs"]:
        objective = objectives[job["objective"]]
        for r in run_one(objective, job["sampler"], job["seed"], job["noise"], req["budget"], req["checkpoints"]):
            results.append(dict(r, objective=objective["name"], noise=job["noise"], sampler=job["sampler"], seed=job["seed"]))
    print(json.dumps({"optuna": optuna.__version__, "results": results}))


if __name__ == "__main__":
    main()
