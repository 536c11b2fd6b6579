#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The benchmarks' plots, from the JSON they wrote into DIR:

  scale.png   each cost of bench-scale.py against the number of
              processes, log-log (a slope of 1 is linear growth)
  peers.png   round trip and time until applied, median and p99, of
              boostd's, GameMode's and power-profiles-daemon's requests
  kernel-response.png
              the wakeup -> highest-frequency request distribution of each
              kernel and knob (stacked share of the wakeups per bin)
  kernel-effect.png
              the rt-app effect table (modelled from the request trace):
              energy and performance index against the boost, per duty
              cycle, SchedTune and uclamp.min side by side

Usage: plot.py DIR
"""

import json
import os
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import percentile  # noqa: E402


def plot_scale(rows, path):
    ns = [r['n'] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, label in (('start_ms', 'start: all placed (ms)'),
                       ('start_base_ms', 'baseline walk and write (ms)'),
                       ('rescan_ms', 'rescan, Mode -> auto (ms)'),
                       ('reload_ms', 'Reload() (ms)'),
                       ('exec_us', 'exec event -> moved (us)'),
                       ('burst_us', 'exec burst, CPU per event (us)')):
        ax.plot(ns, [r[key] for r in rows], marker='o', label=label)
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlabel('processes placed (10 per unit)')
    ax.set_ylabel('time')
    ax.set_title('boostd at scale')
    ax.grid(True, which='both', alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_peers(data, path):
    rows = data['rows']
    labels = [f'{d}\n{w.split(" (")[0]}' for d, w, _, _ in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    w = 0.2
    for i, (name, idx, p) in enumerate((('round trip, median', 2, 50), ('round trip, p99', 2, 99),
                                        ('until applied, median', 3, 50),
                                        ('until applied, p99', 3, 99))):
        ax.bar([k + (i - 1.5) * w for k in x], [percentile(r[idx], p) for r in rows], w, label=name)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel('ms')
    ax.set_title('boostd and its peers on one private bus')
    ax.legend(fontsize=8)
    ax.grid(True, axis='y', alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


RESPONSE_BINS = ['<100 µs', '100-200 µs', '200-500 µs', '0.5-1 ms', '1-5 ms',
                 '5-10 ms', '≥10 ms', 'none before the next wakeup']


def plot_response(rows, path):
    rows = [r for r in rows if r.get('hist')]
    labels = [f"{r['kernel']}\n{r['what']}" for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(rows) + 1.8))
    left = [0.0] * len(rows)
    cmap = plt.get_cmap('RdYlGn_r')
    for i, name in enumerate(RESPONSE_BINS):
        share = [100.0 * r['hist'][i] / sum(r['hist']) if sum(r['hist']) else 0.0
                 for r in rows]
        color = 'lightgrey' if i == len(RESPONSE_BINS) - 1 else cmap(i / (len(RESPONSE_BINS) - 2))
        ax.barh(range(len(rows)), share, left=left, color=color, label=name)
        left = [a + b for a, b in zip(left, share)]
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel('% of wakeups: waking -> request for the highest frequency (guest trace time)')
    ax.set_title('Wakeup response of a boosted task, 10 ms rate limit')
    ax.legend(fontsize=7, ncol=4, loc='upper center', bbox_to_anchor=(0.5, -0.25))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_effect(data, path):
    rows = data['rows']
    duties = sorted({r['duty'] for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    for i, duty in enumerate(duties):
        color = f'C{i}'
        for knob, style in (('schedtune', '-'), ('uclamp', '--')):
            rs = sorted((r for r in rows if r['duty'] == duty and r['knob'] == knob),
                        key=lambda r: r['boost'])
            if not rs:
                continue
            label = f'{duty} %, ' + ('SchedTune boost' if knob == 'schedtune' else 'uclamp.min')
            axes[0].plot([r['boost'] for r in rs], [r['energy_pct'] for r in rs],
                         style, color=color, marker='o', label=label)
            axes[1].plot([r['boost'] for r in rs], [r['perf'] for r in rs],
                         style, color=color, marker='o', label=label)
    axes[0].set_ylabel('energy per unit of work, % over boost 0')
    axes[1].set_ylabel('performance index (1 = highest OPP)')
    for ax in axes:
        ax.set_xlabel('boost (uclamp.min: the value matched to it)')
        ax.grid(True, alpha=0.3)
    axes[1].legend(fontsize=7)
    fig.suptitle('rt-app, 2 ms period: modelled from the request trace')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    made = []
    for name, fn in (('scale', plot_scale), ('peers', plot_peers),
                     ('kernel-response', plot_response), ('kernel-effect', plot_effect)):
        src = os.path.join(d, name + '.json')
        if not os.path.exists(src):
            continue
        with open(src) as f:
            fn(json.load(f), os.path.join(d, name + '.png'))
        made.append(name + '.png')
    print('plots: ' + (', '.join(made) if made else 'none (no figures)'))


if __name__ == '__main__':
    main()
