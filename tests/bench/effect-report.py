#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The seed's rt-app table, modelled from the trace of requests.

  effect-report.py [--quick] --json FILE --boosts B,.. DIR...

Each DIR is what tests/bench/guest/effect wrote: em.txt (the energy
model's OPPs and power, each CPU's capacity) and
KNOB-DUTY-BOOST-N.trace.gz (sched_switch and cpu_frequency of one
rt-app run: one thread stbN pinned on CPU N, 2 ms period) and, for
uclamp.min, settings.txt (the clamp chosen for each boost).

QEMU runs every CPU at one speed whatever frequency is requested, and the
guest's signals count the work at that speed (the test driver's
qemu_speed=1), so a thread that ran w µs of guest time did the work a
big CPU does in w µs at its highest OPP. The model gives that work the
time and energy it would take on the CPU it ran on, at the frequencies
requested while it ran, as a driver with an OPP table would apply them
(the lowest OPP at or above the request):

  time   = sum of w * (1024 / capacity) * (fmax / f_opp)
  energy = sum of time * power(f_opp)       (idle power not counted)

per activation: the thread's running time from its switch-in to its
sleep (S or D; its exit is not an activation), preemptions included. The duty cycle's
work is what the thread really ran: rt-app's busy loop overshoots its
"runtime" by about a tenth of a millisecond, so the measured duty is
shown beside the nominal one. Performance index
per activation, as rt-app's slack against the best case, as in EAS's
RFCs: (period - time) / (period - time at fmax): 1 is as fast as the
CPU's highest OPP, 0 finishes at the deadline, below 0 is late; an
activation whose time at fmax is the whole period has none and is
counted apart. Energy is reported per ms of work (the work differs a
little from run to run, rt-app's busy loop overshooting). MHz and the
share at the highest OPP are weighted by guest running time. The
first 0.5 s of each run (PELT settling) is left out.

Prints the Markdown tables; writes every figure to the JSON file. With
--quick, fails (exit 1) unless each run has activations, boost 100 keeps
every CPU at its highest OPP for 95 % of the activations' time, and
boost 100 costs more energy per unit of work, performs at least as well
as boost 0 and raises the big CPU's OPP (unless boost 0 already ran at
the highest); a full run prints the same errors and exits 0.
"""

import argparse
import glob
import gzip
import json
import os
import re
import sys

PERIOD_US = 2000.0
SKIP_S = 0.5

EV = re.compile(r'\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$')
SW = re.compile(r'prev_comm=(.*) prev_pid=\d+ prev_prio=\d+ prev_state=(\S+) '
                r'==> next_comm=(.*) next_pid=\d+ next_prio=\d+')
FREQ = re.compile(r'state=(\d+) cpu_id=(\d+)')


def read_em(path):
    """{cpu: (capacity, [(khz, uW)...])} from em.txt."""
    opps, cap = {}, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == 'capacity':
                cap[int(w[1][3:])] = int(w[2])
            else:
                cpu = int(w[0].split('/')[0][3:])
                opps.setdefault(cpu, []).append((int(w[1]), int(w[2])))
    return {c: (cap[c], sorted(opps[c])) for c in opps}


def opp_of(table, khz):
    for f, p in table:
        if f >= khz:
            return f, p
    return table[-1]


class Task:
    def __init__(self, cap, table):
        self.cap, self.table = cap, table
        self.fmax = table[-1][0]
        self.run_from = None        # running since (s)
        self.act = None             # [start, time_us, top_us, energy_uJ, wall_us, top_wall_us, khz_wall]
        self.acts = []

    def piece(self, t0, t1, khz):
        if self.act is None or t1 <= t0:
            return
        w = (t1 - t0) * 1e6
        f, p = opp_of(self.table, khz)
        t = w * 1024.0 / self.cap * self.fmax / f
        self.act[1] += t
        self.act[2] += w * 1024.0 / self.cap
        self.act[3] += t * p / 1e6       # µs * µW = pJ; / 1e6 = µJ
        self.act[4] += w
        self.act[5] += w if f == self.fmax else 0
        self.act[6] += w * f


def initial_khz(path):
    """Each CPU's request at the start, from the bench-start marker (read
    before tracing started)."""
    with gzip.open(path, 'rt', errors='replace') as f:
        for line in f:
            if 'bench-start' in line:
                w = line.split('bench-start', 1)[1].split()
                return {int(c[3:]): int(v) for c, v in (kv.split('=') for kv in w[1:])}
    sys.exit(f'{path}: no bench-start marker')


def model(path, em, cpu_of_run):
    """The activations of stbN on CPU N after the warm-up, summed up; the
    errors found in the trace."""
    task = Task(*em[cpu_of_run])
    me = f'stb{cpu_of_run}'
    khz = initial_khz(path)
    start = end = None
    errors = []
    with gzip.open(path, 'rt', errors='replace') as f:
        for line in f:
            m = EV.search(line)
            if not m:
                continue
            cpu, ts, ev, rest = int(m.group(1)), float(m.group(2)), m.group(3), m.group(4)
            if ev == 'tracing_mark_write':
                w = rest.split()
                if w[0] == 'bench-start':
                    start = ts
                elif w[0] == 'bench-end':
                    end = ts
            elif ev == 'cpu_frequency':
                fm = FREQ.match(rest)
                c, k = int(fm.group(2)), int(fm.group(1))
                if c == cpu_of_run and task.run_from is not None:
                    task.piece(task.run_from, ts, khz[c])
                    task.run_from = ts
                khz[c] = k
            elif ev == 'sched_switch' and start is not None and end is None:
                sm = SW.match(rest)
                prev, state, nxt = sm.group(1), sm.group(2), sm.group(3)
                if cpu != cpu_of_run:
                    if me in (prev, nxt) and ts >= start + SKIP_S:
                        errors.append(f'{path}: {me} ran on CPU {cpu}')
                    continue
                if prev == me and task.run_from is not None:
                    task.piece(task.run_from, ts, khz[cpu])
                    task.run_from = None
                    if state[0] in 'SD' and task.act is not None:
                        task.acts.append(task.act)
                        task.act = None
                    elif not state.startswith('R'):
                        # exiting (X, Z): rt-app's teardown, not an activation
                        task.act = None
                if nxt == me:
                    task.run_from = ts
                    if task.act is None:
                        task.act = [ts, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    if start is None or end is None:
        sys.exit(f'{path}: no bench-start or bench-end marker')
    acts = [a for a in task.acts if a[0] >= start + SKIP_S]
    if not acts:
        return None, errors + [f'{path}: no activation']
    n = len(acts)
    wall = sum(a[4] for a in acts)
    # An activation whose work takes the whole period even at fmax has no
    # performance index (its slack at fmax is nil); counted apart.
    feasible = [a for a in acts if a[2] < PERIOD_US]
    return {
        'activations': n,
        'infeasible': n - len(feasible),
        'work_us': wall / n,
        'time_us': sum(a[1] for a in acts) / n,
        'energy_uj': sum(a[3] for a in acts) / n,
        'uj_per_ms': sum(a[3] for a in acts) / (wall / 1000) if wall else 0.0,
        'perf': (sum((PERIOD_US - a[1]) / (PERIOD_US - a[2]) for a in feasible) / len(feasible)
                 if feasible else float('nan')),
        'late': sum(1 for a in acts if a[1] > PERIOD_US) / n,
        'top': sum(a[5] for a in acts) / wall if wall else 0.0,
        'mhz': sum(a[6] for a in acts) / wall / 1000 if wall else 0.0,
    }, errors


def summary(cpus):
    ok = [v for v in cpus.values() if v]
    big = [v for c, v in cpus.items() if v and c < 2]
    little = [v for c, v in cpus.items() if v and c >= 2]
    return {
        'duty_measured': sum(v['work_us'] for v in ok) / len(ok) / PERIOD_US * 100 if ok else 0.0,
        'uj_per_ms': sum(v['uj_per_ms'] for v in ok),
        'perf': sum(v['perf'] for v in ok) / len(ok) if ok else 0.0,
        'late': sum(v['late'] for v in ok) / len(ok) if ok else 0.0,
        'mhz_big': sum(v['mhz'] for v in big) / len(big) if big else 0.0,
        'mhz_little': sum(v['mhz'] for v in little) / len(little) if little else 0.0,
    }


def pct(a, b):
    return 100.0 * (a - b) / b if b else float('nan')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--json', required=True)
    ap.add_argument('--boosts', required=True)
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    boosts = [int(x) for x in a.boosts.split(',')]

    runs = {}
    em = None
    errors = []
    setting = {('schedtune', b): b for b in boosts}
    for d in a.dirs:
        em = read_em(os.path.join(d, 'em.txt'))
        sf = os.path.join(d, 'settings.txt')
        if os.path.exists(sf):
            with open(sf) as f:
                for line in f:
                    knob, b, v = line.split()
                    setting[(knob, int(b))] = int(v)
        for p in sorted(glob.glob(os.path.join(d, '*.trace.gz'))):
            knob, duty, b, cpu = os.path.basename(p)[:-len('.trace.gz')].split('-')
            r, e = model(p, em, int(cpu))
            errors += e
            runs.setdefault((knob, int(duty), int(b)), {})[int(cpu)] = r
    duties = sorted({k[1] for k in runs})
    table = []
    for knob in ('schedtune', 'uclamp'):
        for duty in duties:
            base = runs.get((knob, duty, boosts[0]))
            if base is None:
                errors.append(f'no run {knob}-{duty}-{boosts[0]}: no baseline')
                continue
            for b in boosts:
                r = runs.get((knob, duty, b))
                if r is None:
                    errors.append(f'no run {knob}-{duty}-{b}')
                    continue
                for c, v in r.items():
                    if v is None or v['activations'] < 100:
                        errors.append(f'{knob}-{duty}-{b}: CPU {c} has too few activations')
                        break
                else:
                    sm, sb = summary(r), summary(base)
                    table.append({'knob': knob, 'duty': duty, 'boost': b,
                                  'setting': setting.get((knob, b), -1), **sm,
                                  'energy_pct': pct(sm['uj_per_ms'], sb['uj_per_ms']),
                                  'perf_pct': pct(sm['perf'], sb['perf']), 'cpus': r})

    def row(knob, duty, b):
        return next((t for t in table if (t['knob'], t['duty'], t['boost']) == (knob, duty, b)),
                    None)

    print('**Modelled from the request trace.** One rt-app thread, period 2 ms, '
          'pinned on CPU 0 (capacity 1024), then one on CPU 2 (capacity 512) of the '
          'asymmetric boot, the test driver\'s CMOS-like energy model (200-2000 MHz '
          'in 10 OPPs; work costs 2.2 times as much energy at the highest OPP as at '
          'the lowest). Duty: work per period at the highest OPP of a big CPU, '
          'nominal (measured). Energy: per ms of work, of the big and the little '
          'CPU\'s thread together; idle not counted. Perf index: mean over '
          'activations of (period - time) / (period - time at fmax), 1 = as fast '
          'as the highest OPP. MHz: the OPP in force while the thread ran, '
          'weighted by its guest running time. SchedTune: the thread in a '
          'schedtune group of that boost (the series); uclamp.min: per task, on '
          '6.1 without the series, at the value that gives the middle duty '
          'cycle\'s thread on the big CPU the request the boost gives it, from '
          'its utilization measured with no clamp (no clamp at boost 0).')
    print()
    print('| duty | boost | knob | setting | energy µJ/ms | ΔE % | perf index | ΔPerf % '
          '| big MHz | little MHz | late % |')
    print('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for duty in duties:
        for b in boosts:
            for knob in ('schedtune', 'uclamp'):
                t = row(knob, duty, b)
                if t is None:
                    continue
                print(f"| {duty} % ({t['duty_measured']:.1f} %) | {b} | {knob} | {t['setting']} | {t['uj_per_ms']:.1f} "
                      f"| {t['energy_pct']:+.1f} | {t['perf']:.3f} | {t['perf_pct']:+.1f} "
                      f"| {t['mhz_big']:.0f} | {t['mhz_little']:.0f} | {100 * t['late']:.1f} |")
    print()

    # Monotonic in boost: energy and performance never fall as it rises.
    mono = {}
    for knob in ('schedtune', 'uclamp'):
        for duty in duties:
            rs = [row(knob, duty, b) for b in boosts]
            rs = [r for r in rs if r]
            e = all(y['uj_per_ms'] >= x['uj_per_ms'] * 0.99 for x, y in zip(rs, rs[1:]))
            p = all(y['perf'] >= x['perf'] - 0.01 for x, y in zip(rs, rs[1:]))
            mono[f'{knob}-{duty}'] = {'energy': e, 'perf': p}
    print('Monotonic in the setting (no step below the one before by more than '
          '1 % of energy or 0.01 of perf index): ' +
          '; '.join(f"{k}: energy {'yes' if v['energy'] else 'NO'}, perf "
                    f"{'yes' if v['perf'] else 'NO'}" for k, v in mono.items()) + '.')
    print()

    # The margin against the floor: the lightest and the heaviest duty cycle
    # on the big CPUs, requested MHz at each boost.
    if len(duties) >= 2:
        lo, hi = duties[0], duties[-1]
        print(f'Light ({lo} %) and heavy ({hi} %) thread at the same setting, mean '
              'request on the big CPUs in MHz (and its rise over the setting 0):')
        print()
        print('| boost | SchedTune light | uclamp light | SchedTune heavy | uclamp heavy |')
        print('|---:|---:|---:|---:|---:|')
        for b in boosts:
            cells = []
            for duty in (lo, hi):
                for knob in ('schedtune', 'uclamp'):
                    t, t0 = row(knob, duty, b), row(knob, duty, boosts[0])
                    cells.append(f"{t['mhz_big']:.0f} ({pct(t['mhz_big'], t0['mhz_big']):+.0f} %)"
                                 if t and t0 else '-')
            print(f'| {b} | ' + ' | '.join(cells) + ' |')
        print()

    # Boost 100: every CPU at its highest OPP while the threads run.
    top = {}
    for duty in duties:
        t = row('schedtune', duty, 100)
        if t:
            top[duty] = {c: v['top'] for c, v in t['cpus'].items() if v}
    if top:
        print('Boost 100, share of the threads\' running time at the CPU\'s highest OPP: ' +
              '; '.join(f'{d} %: ' + ', '.join(f'CPU {c} {100 * v:.1f} %' for c, v in cs.items())
                        for d, cs in top.items()) + '.')
        for d, cs in top.items():
            for c, v in cs.items():
                if v < 0.95:
                    errors.append(f'boost 100, duty {d} %: CPU {c} at its highest OPP '
                                  f'only {100 * v:.1f} % of the time')
    # A boost that does nothing must fail here: boost 100 costs more energy
    # per unit of work and performs at least as well as boost 0, and it
    # raises the big CPU's OPP unless boost 0 already ran at the highest.
    for duty in duties:
        t0, t1 = row('schedtune', duty, boosts[0]), row('schedtune', duty, boosts[-1])
        if not (t0 and t1):
            continue
        if not (t1['uj_per_ms'] > t0['uj_per_ms'] and t1['perf'] >= t0['perf']):
            errors.append(f'duty {duty} %: boost {boosts[-1]} does not cost more energy '
                          f'and perform at least as well as boost {boosts[0]}')
        if t0['cpus'][0]['top'] < 0.95 and not t1['mhz_big'] > t0['mhz_big']:
            errors.append(f'duty {duty} %: boost {boosts[-1]} does not raise the big '
                          f'CPU above boost {boosts[0]}\'s {t0["mhz_big"]:.0f} MHz')

    with open(a.json, 'w') as f:
        json.dump({'rows': table, 'monotonic': mono, 'top': top, 'em': em,
                   'settings': {f'{k}-{b}': v for (k, b), v in setting.items()},
                   'errors': errors}, f, indent=1)
    for e in errors:
        print(f'effect: {e}', file=sys.stderr)
    if errors and a.quick:
        sys.exit(1)


if __name__ == '__main__':
    main()
