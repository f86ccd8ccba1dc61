"""The third held-back objective: the same definition as heldback3.ts (used only for the final check)."""
import math

KERNEL = {"rbf": 0, "poly": 0.01, "linear": 0.04, "sigmoid": 0.08}
SCALER = {"standard": 0, "minmax": 0.008, "none": 0.05}
SHRINKING = {"on": 0, "off": 0.004}
C_STAR = {"rbf": 1, "poly": 0, "linear": -1, "sigmoid": 0}
GAMMA_STAR = {"standard": -2, "minmax": -1, "none": -3}


def mixed_heldback3(c):
    kernel, scaler = c["kernel"], c["scaler"]
    return (
        KERNEL[kernel]
        + SCALER[scaler]
        + SHRINKING[c["shrinking"]]
        + 0.03 * (math.log10(c["C"]) - C_STAR[kernel]) ** 2
        + 0.02 * (math.log10(c["gamma"]) - GAMMA_STAR[scaler]) ** 2
        + 0.01 * (math.log10(c["tol"]) + 3) ** 2
        + 0.05 * (math.log2(c["epochs"]) - math.log2(40)) ** 2
        + 0.6 * (c["margin"] - 0.3) ** 2
    )
