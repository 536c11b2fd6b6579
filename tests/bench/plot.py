#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The benchmarks' plots, from the JSON they wrote into DIR:

  scale.png   each cost of bench-scale.py against the number of
              processes, log-log (a slope of 1 is linear growth)
  peers.png   round trip and time until applied, median and p99, of
              boostd's, GameMode's and power-profiles-daemon's requests

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


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    made = []
    for name, fn in (('scale', plot_scale), ('peers', plot_peers)):
        src = os.path.join(d, name + '.json')
        if not os.path.exists(src):
            continue
        with open(src) as f:
            fn(json.load(f), os.path.join(d, name + '.png'))
        made.append(name + '.png')
    print('plots: ' + (', '.join(made) if made else 'none (no figures)'))


if __name__ == '__main__':
    main()
