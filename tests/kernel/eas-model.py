#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The energy estimate behind asym_eas_task_boost, worked out by hand.

EAS (find_energy_efficient_cpu()) places a waking task where the energy
of its performance domain grows the least: energy = cost(OPP) * sum of the
utilizations / capacity, the OPP being the one schedutil picks for the
largest (boosted) utilization, cost = C * fmax * V^2 for the test driver's
SoC-shaped model (stune_test_soc_power()). Each CPU is its own domain.

The scenario: a task T (util uT) of a group boosted at b, on small CPU 2
a task R (util uR) of another group at the same boost whose hold keeps
CPU 2 boosted, on small CPU 3 an unboosted root task W (util uW), the big
CPUs idle. The utilizations are those seen in the guest (the test
driver's qemu_speed=1: 0.3 ms, 1.9 ms and 0.9 ms every 16 ms). With T's
boost priced, CPU 2 must cost the least; without it, CPU 3. Prints the
two margins (the next cheapest over the chosen) for the test's values and
for W's utilization 30 % lower and higher; exits 1 if either margin at
the test's values is below 1.1.
"""
import sys

NR_OPPS = 10
COEF = {1024: 530, 512: 140}


def mv(i):
    return 800 + 200 * i // (NR_OPPS - 1)


def opp(util, cap):
    f = 1.25 * util / cap * 2000
    for i in range(NR_OPPS):
        if (i + 1) * 200 >= f:
            return i
    return NR_OPPS - 1


def energy(cap, total, top):
    return COEF[cap] * (mv(opp(top, cap)) / 1000) ** 2 * total / cap


def boosted(u, cap, b):
    u = min(u, cap)
    return u + (cap - u) * b // 100


def pd(cap, util, boost, t=0, tboost=0, price=True):
    total = util + t
    b = max(boost, tboost) if t and price else boost
    return energy(cap, total, boosted(total, cap, b))


def deltas(uT, uR, uW, b, price):
    return {
        "big": pd(1024, 0, 0, uT, b, price) - pd(1024, 0, 0),
        "cpu2": pd(512, uR, b, uT, b, price) - pd(512, uR, b),
        "cpu3": pd(512, uW, 0, uT, b, price) - pd(512, uW, 0),
    }


def margins(uT, uR, uW, b):
    p = deltas(uT, uR, uW, b, True)
    n = deltas(uT, uR, uW, b, False)
    return (min(p["big"], p["cpu3"]) / p["cpu2"],
            min(n["big"], n["cpu2"]) / n["cpu3"])


def main():
    uT, uR, uW, b = 44, 160, 70, 45
    priced, unpriced = margins(uT, uR, uW, b)
    print(f"boost {b}, T {uT}, R {uR}, W {uW}: with the price cpu2 is "
          f"{priced:.2f}x cheaper than the next, without it cpu3 is "
          f"{unpriced:.2f}x cheaper")
    for w in (int(uW * 0.7), int(uW * 1.3)):
        p, n = margins(uT, uR, w, b)
        print(f"  W {w}: {p:.2f}x with the price, {n:.2f}x without")
    return 0 if min(priced, unpriced) >= 1.1 else 1


if __name__ == "__main__":
    sys.exit(main())
