"""The held-back objective: the same definition as heldback.ts (used only for the final check)."""
import math

SCHED = {"cosine": 0, "linear": 0.02, "step": 0.05, "constant": 0.12}
NORM = {"layer": 0, "batch": 0.01, "none": 0.2}


def mixed_heldback(c):
    norm, sched, depth = c["norm"], c["scheduler"], c["depth"]
    d_star = 0.1 if norm == "batch" else 0.25
    wd_star = -4 if sched == "cosine" else -3
    w_star = 9 if depth <= 4 else 8
    return (
        SCHED[sched]
        + NORM[norm]
        + 2 * (c["dropout"] - d_star) ** 2
        + 0.1 * (math.log10(c["weight_decay"]) - wd_star) ** 2
        + 0.3 * ((c["warmup"] - 200) / 1000) ** 2
        + 0.05 * (math.log2(depth) - 3) ** 2
        + 0.04 * (math.log2(c["width"]) - w_star) ** 2
    )
