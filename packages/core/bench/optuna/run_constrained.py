"""Optuna's side of the constraints benchmark (bench/constraints.bench.ts): constrained TPE and the
two-objective samplers on constrained.py's problems; prints JSON.

stdin: {"mode": "run", "jobs": [{"problem", "sampler": "tpe" | "motpe" | "nsga2", "seed", "noise"}],
        "optimum": {problem: value}, "budget": 100, "checkpoints": [30, 100], "spaces": {problem: space}}
   or  {"mode": "check", "points": [{"problem", "config"}]}
Constrained jobs (TPESampler(constraints_func=...), experimental in 3.1): per checkpoint, the regret
among feasible trials (clean value of the feasible trial with the best noisy value, minus the
optimum; null when none is feasible) and whether the trial with the best noisy value, which 3.1's
`study.best_trial` returns whatever its constraints, is infeasible. Two-objective jobs: the clean
objective vectors of the non-dominated trials (by noisy values) after the budget.
"""
import json
import random
import sys
import warnings

import optuna

from constrained import CONSTRAINED, TWO_OBJECTIVE
from run_optuna import suggest


def run_constrained(job, space, optimum, budget, checkpoints):
    f, metrics, constraints = CONSTRAINED[job["problem"]]
    noise = random.Random(job["seed"] * 7919 + 17)
    sampler = optuna.samplers.TPESampler(seed=job["seed"], constraints_func=lambda t: t.user_attrs["constraints"])
    study = optuna.create_study(direction="minimize", sampler=sampler)
    trials = []

    def fn(trial):
        config = suggest(trial, space)
        clean = f(config)
        c = constraints(metrics(config))
        trial.set_user_attr("constraints", c)
        value = clean + (noise.gauss(0, job["noise"]) if job["noise"] > 0 else 0.0)
        trials.append((value, clean, all(v <= 0 for v in c)))
        return value

    study.optimize(fn, n_trials=budget)
    out = []
    for cp in checkpoints:
        first = trials[:cp]
        feasible = [t for t in first if t[2]]
        best_any = min(first, key=lambda t: t[0])
        out.append({
            "budget": cp,
            "regret": min(feasible, key=lambda t: t[0])[1] - optimum if feasible else None,
            "infeasibleIncumbent": not best_any[2],
            "infeasibleEvaluated": sum(1 for t in first if not t[2]),
        })
    return out


def run_two(job, space, budget):
    objectives = TWO_OBJECTIVE[job["problem"]]
    noise = random.Random(job["seed"] * 7919 + 17)
    if job["sampler"] == "motpe":
        sampler = optuna.samplers.TPESampler(seed=job["seed"])
    else:
        sampler = optuna.samplers.NSGAIISampler(seed=job["seed"])
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=sampler)
    clean = {}

    def fn(trial):
        config = suggest(trial, space)
        values = objectives(config)
        clean[trial.number] = values
        return values[0] + (noise.gauss(0, job["noise"]) if job["noise"] > 0 else 0.0), values[1]

    study.optimize(fn, n_trials=budget)
    return [{"budget": budget, "front": [clean[t.number] for t in study.best_trials]}]


def main():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.simplefilter("ignore")
    req = json.load(sys.stdin)
    if req["mode"] == "check":
        values = []
        for p in req["points"]:
            if p["problem"] in CONSTRAINED:
                f, metrics, constraints = CONSTRAINED[p["problem"]]
                values.append([f(p["config"])] + constraints(metrics(p["config"])))
            else:
                values.append(TWO_OBJECTIVE[p["problem"]](p["config"]))
        print(json.dumps({"values": values}))
        return
    results = []
    for job in req["jobs"]:
        space = req["spaces"][job["problem"]]
        if job["problem"] in CONSTRAINED:
            rows = run_constrained(job, space, req["optimum"][job["problem"]], req["budget"], req["checkpoints"])
        else:
            rows = run_two(job, space, req["budget"])
        results.extend(dict(r, **job) for r in rows)
    print(json.dumps({"optuna": optuna.__version__, "results": results}))


if __name__ == "__main__":
    main()
