"""The proposer benchmark's objectives (minimize): the same definitions as objectives.ts."""
import math

H_ALPHA = [1.0, 1.2, 3.0, 3.2]
H_A = [
    [10, 3, 17, 3.5, 1.7, 8],
    [0.05, 10, 17, 0.1, 8, 14],
    [3, 3.5, 1.7, 10, 17, 8],
    [17, 8, 0.05, 10, 0.1, 14],
]
H_P = [
    [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
    [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
    [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
    [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
]


def branin(c):
    x1, x2 = c["x1"], c["x2"]
    b = 5.1 / (4 * math.pi ** 2)
    cc = 5 / math.pi
    t = 1 / (8 * math.pi)
    return (x2 - b * x1 ** 2 + cc * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


def hartmann6(c):
    s = 0.0
    for i in range(4):
        inner = 0.0
        for j in range(6):
            inner += H_A[i][j] * (c["x%d" % (j + 1)] - H_P[i][j]) ** 2
        s += H_ALPHA[i] * math.exp(-inner)
    return -s


OPT_OFFSET = {"adam": 0, "rmsprop": 0.08, "sgd": 0.15}
OPT_LR = {"adam": 2e-3, "rmsprop": 7e-4, "sgd": 3e-2}
ACT_OFFSET = {"gelu": 0, "relu": 0.03, "tanh": 0.1}


def mixed_demo(c):
    opt, act, batch = c["optimizer"], c["activation"], c["batch_size"]
    lr_star = OPT_LR[opt] * math.sqrt(batch / 64)
    h_star = 8 if act == "gelu" else 7
    l_star = 2 if act == "tanh" else 3
    return (
        OPT_OFFSET[opt]
        + ACT_OFFSET[act]
        + 0.3 * (math.log(c["lr"]) - math.log(lr_star)) ** 2
        + 0.15 * (math.log2(c["n_hidden"]) - h_star) ** 2
        + 0.05 * (c["n_layers"] - l_star) ** 2
        + 0.02 * (math.log2(batch) - 6) ** 2
    )


OBJECTIVES = {"branin": branin, "hartmann6": hartmann6, "mixed-demo": mixed_demo}
