#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The work-session scenario's loops, from the guest's console log: each
report's modelled frame time against the 16.67 ms target, and the
session's output after it with the frequency its CPU ran the frame at;
one column per run (uclamp.min, then the schedtune pool groups).

Usage: session-plot.py CONSOLE_LOG OUT.png
Exits 1 when the log has no report lines.
"""

import re
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

LINE = re.compile(r'report (\d+) (heavy|light) ([\d.]+) (\d+) (\d+) (\d+) (\S+)\s*$')
TITLES = ['uclamp.min set by boostd', 'schedtune pool groups (Actuator=schedtune)']


def runs(log):
    """The report lines, a list per run (the report number starts again)."""
    out = []
    with open(log, errors='replace') as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            row = (int(m[1]), m[2], float(m[3]), int(m[4]) / 1000, int(m[6]), m[7])
            if row[0] == 1 or not out:
                out.append([])
            out[-1].append(row)
    return out


def main(log, out):
    found = runs(log)
    if not found:
        print(f'session-plot: no report lines in {log}', file=sys.stderr)
        return 1
    fig, axes = plt.subplots(2, len(found), sharex=True, squeeze=False,
                             figsize=(6.5 * len(found), 5.5))
    for col, rows in enumerate(found):
        a, b = axes[0][col], axes[1][col]
        n = [r[0] for r in rows]
        light = next((r[0] for r in rows if r[1] == 'light'), None)
        a.plot(n, [r[2] for r in rows], 'o-', ms=3, label='modelled frame time (last frame of the report)')
        a.axhline(16.667, color='grey', ls='--', label='target 16.67 ms')
        a.set_ylabel('ms')
        a.legend(fontsize=8)
        a.set_title(TITLES[col] if col < len(TITLES) else f'run {col + 1}', fontsize=10)
        b.plot(n, [r[4] for r in rows], 'o-', ms=3, color='tab:red', label='session output (of 1024)')
        b.set_ylabel('output')
        b2 = b.twinx()
        b2.plot(n, [r[3] for r in rows], 's:', ms=2, color='tab:green', label='CPU frequency of the frame (MHz)')
        b2.set_ylabel('MHz')
        b.set_xlabel('report (8 frames each)')
        for ax in (a, b):
            if light:
                ax.axvline(light - 0.5, color='black', lw=0.8)
        h1, l1 = b.get_legend_handles_labels()
        h2, l2 = b2.get_legend_handles_labels()
        b.legend(h1 + h2, l1 + l2, fontsize=8, loc='upper right')
    fig.suptitle('Work sessions on the SchedTune kernel: heavy frames, then 0.6x the work', fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
