"""The constrained and two-objective benchmark problems: the same definitions as constrained.ts."""
import math

from objectives import branin, mixed_demo


def disk(c):
    return {"disk": (c["x1"] - 2.5) ** 2 + (c["x2"] - 7.5) ** 2}


def train_seconds(c):
    return c["n_layers"] * c["n_hidden"] / 64 * (1.5 if c["activation"] == "gelu" else 1) * math.sqrt(64 / c["batch_size"])


def budget(c):
    return {"params_k": c["n_hidden"] ** 2 * c["n_layers"] / 1000, "train_s": train_seconds(c)}


CONSTRAINED = {
    "branin-disk": (branin, disk, lambda m: [m["disk"] - 20]),
    "mixed-budget": (mixed_demo, budget, lambda m: [m["params_k"] - 100, m["train_s"] - 12]),
}

TWO_OBJECTIVE = {"mixed-loss-time": lambda c: [mixed_demo(c), train_seconds(c)]}
