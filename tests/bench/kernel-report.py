#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tables of the kernel benchmark from the guests' serial logs.

  kernel-report.py cost JSON LOG...

cost: every "BENCH-COST CONFIG SECONDS" line (hackbench's guest time of
one run), per configuration: runs, median, the spread (p10..p90 and
min..max, in % of the median), and the ratio of the median to that of
"base" (the kernel without the series; without it, "key-off"). Writes
every run to JSON and the Markdown table to stdout.
"""

import json
import re
import statistics
import sys

ORDER = ['base', 'base-uclamp', 'key-off', 'groups-0', 'on-0', 'boosted', 'global']
WHAT = {
    'base': '6.1 without the series',
    'base-uclamp': '6.1 without the series, hackbench under uclamp.min 512 (per task)',
    'key-off': 'series, no group, no boost ever set (static key off)',
    'groups-0': 'series, tasks in a child group of boost 0 (key off)',
    'on-0': 'series, tasks in root at boost 0, key on (a boost was set once)',
    'boosted': 'series, tasks in a group of boost 50 (per-task boosting)',
    'global': 'series, kernel.sched_cfs_boost=50',
}


def pct(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def cost(json_path, logs):
    runs = {}
    for log in logs:
        with open(log) as f:
            for line in f:
                m = re.match(r'^BENCH-COST (\S+) ([0-9.]+)$', line.strip())
                if m:
                    runs.setdefault(m.group(1), []).append(float(m.group(2)))
    if not runs:
        sys.exit('kernel-report: no BENCH-COST line in ' + ' '.join(logs))
    ref = 'base' if 'base' in runs else 'key-off'
    ref_med = statistics.median(runs[ref])
    print('| configuration | runs | median (s) | p10..p90 | min..max | vs ' + ref + ' |')
    print('|---|---:|---:|---:|---:|---:|')
    rows = {}
    for c in sorted(runs, key=lambda c: ORDER.index(c) if c in ORDER else len(ORDER)):
        xs = runs[c]
        med = statistics.median(xs)
        rows[c] = {'runs': xs, 'median': med, 'ratio': med / ref_med}
        print(f'| {c}: {WHAT.get(c, c)} | {len(xs)} | {med:.3f} | '
              f'{(pct(xs, 10) / med - 1) * 100:+.1f} %..{(pct(xs, 90) / med - 1) * 100:+.1f} % | '
              f'{(min(xs) / med - 1) * 100:+.1f} %..{(max(xs) / med - 1) * 100:+.1f} % | '
              f'{(med / ref_med - 1) * 100:+.2f} % |')
    with open(json_path, 'w') as f:
        json.dump({'reference': ref, 'configs': rows}, f, indent=1)


def main():
    if len(sys.argv) < 4 or sys.argv[1] != 'cost':
        sys.exit(__doc__)
    cost(sys.argv[2], sys.argv[3:])


if __name__ == '__main__':
    main()
