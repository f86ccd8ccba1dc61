"""The second held-back objective: the same definition as heldback2.ts (used only for the final check)."""
import math

BOOSTER = {"gbtree": 0, "dart": 0.015, "linear": 0.06}
PENALTY = {"l2": 0, "elastic": 0.005, "l1": 0.025}
ALPHA = {"l2": 1e-3, "elastic": 3e-4, "l1": 1e-4}


def mixed_heldback2(c):
    booster, penalty = c["booster"], c["penalty"]
    trees_star = 200 if booster == "gbtree" else 80
    leaves_star = 24 if booster == "gbtree" else 12
    return (
        BOOSTER[booster]
        + PENALTY[penalty]
        + 0.04 * (math.log10(c["alpha"]) - math.log10(ALPHA[penalty])) ** 2
        + 0.5 * (c["ratio"] - 0.7) ** 2
        + 0.06 * (math.log2(c["trees"]) - math.log2(trees_star)) ** 2
        + 0.02 * ((c["leaves"] - leaves_star) / 10) ** 2
        + 0.8 * (c["subsample"] - 0.8) ** 2
    )
