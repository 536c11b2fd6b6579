#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tables of the kernel benchmark from the guests' serial logs.

  kernel-report.py cost JSON LOG...
  kernel-report.py response JSON LOG...

cost: every "BENCH-COST CONFIG SECONDS" line (hackbench's guest time of
one run), per configuration: runs, median, the spread (p10..p90 and
min..max, in % of the median), and the ratio of the median to that of
"base" (the kernel without the series; without it, "key-off"). Writes
every run to JSON and the Markdown table to stdout.

response: the wakeup-response figures of stune-test's bench_response_*
runs, one row per kernel (from the log's BENCH-BOOT mode) and run: in how
many periods the unboosted task lowered the frequency and at how many of
those the boosted task then found the highest (what the kernel tests
judge), and the distribution of waking -> request over all wakeups.
"""

import json
import re
import statistics
import sys

ORDER = ['base', 'base-uclamp', 'key-off', 'groups-0', 'on-0', 'boosted', 'own', 'global']
WHAT = {
    'base': 'the kernel without the series',
    'base-uclamp': 'the kernel without the series, hackbench under uclamp.min 512 (per task)',
    'key-off': 'series, no group, no boost ever set (static key off)',
    'groups-0': 'series, tasks in a child group of boost 0 (key off)',
    'on-0': 'series, tasks in root at boost 0, key on (a boost was set once)',
    'boosted': 'series, tasks in a group of boost 50 (per-task boosting)',
    'own': 'series, tasks in root with their own boost 50 (sched_setattr, 6.12)',
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


KERNEL = {
    'response-base': '6.1 without the series',
    'response-series': 'series',
    'response-prerl': 'series before its rate-limit patch (1-6)',
    'response-preuc': 'series before its uclamp.min patch (1-10)',
}
BINS = ['<100us', '100-200us', '200-500us', '0.5-1ms', '1-5ms', '5-10ms', '>=10ms',
        'none before the next wakeup']


def response(json_path, logs):
    rows = []
    for log in logs:
        mode, figs = None, {}
        with open(log) as f:
            for line in f:
                line = line.strip()
                m = re.match(r'^BENCH-BOOT (\S+)', line)
                if m:
                    mode = m.group(1)
                m = re.search(r'# (.+): waking -> cpu_frequency (\d+) kHz \(us\): n=(\d+) '
                              r'median=(\d+) p90=(\d+) max=(\d+); (\d+) wakeups without it', line)
                if m:
                    figs.setdefault(m.group(1), {}).update({'khz': int(m.group(2)), 'n': int(m.group(3)),
                                        'median': int(m.group(4)), 'p90': int(m.group(5)),
                                        'max': int(m.group(6)), 'missed': int(m.group(7))})
                m = re.search(r'# (.+): U lowered the frequency in (\d+) of (\d+) periods; '
                              r'B then found \d+ kHz at (\d+) of them', line)
                if m:
                    figs.setdefault(m.group(1), {}).update(
                        {'periods': int(m.group(3)), 'lowered': int(m.group(2)),
                         'found': int(m.group(4))})
                m = re.search(r'# (.+): waking -> request: (.*)$', line)
                if m and m.group(1) in figs:
                    figs[m.group(1)]['hist'] = [int(x) for x in re.findall(r' (\d+)(?:,|$)',
                                                                           m.group(2))]
        for what, f in figs.items():
            rows.append({'kernel': KERNEL.get(mode, mode), 'what': what, **f})
    if not rows:
        sys.exit('kernel-report: no wakeup-response figures in ' + ' '.join(logs))
    print('| kernel | boost, wakeup | periods where U lowered f | B found fmax after those '
          '| all wakeups: reaching fmax | median (us) | p90 (us) | max (us) | '
          + ' | '.join(BINS) + ' |')
    print('|---|---|---:|---:|---:|---:|---:|---:|' + '---:|' * len(BINS))
    for r in rows:
        h = r.get('hist', [])
        print(f"| {r['kernel']} | {r['what']} | {r.get('lowered', '-')} of {r.get('periods', '-')} | "
              f"{r.get('found', '-')} | {r.get('n', '-')} | {r.get('median', '-')} | {r.get('p90', '-')} | "
              f"{r.get('max', '-')} | " + ' | '.join(str(x) for x in h) + ' |')
    with open(json_path, 'w') as f:
        json.dump(rows, f, indent=1)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ('cost', 'response'):
        sys.exit(__doc__)
    (cost if sys.argv[1] == 'cost' else response)(sys.argv[2], sys.argv[3:])


if __name__ == '__main__':
    main()
