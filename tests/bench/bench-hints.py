#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a hint session's call costs boostd with the sessions at their
caps: 16 sessions of 32 threads each (4 clients of 4 sessions, as root:
what one user may open), on a private D-Bus daemon against a temporary
root (the threads' uclamp.min are files there; the threads are this
program's own, real ones, so /proc is read as boostd reads it).

Two boostd builds side by side, the same way: the current one and a
baseline built from another commit (by default the one before hint
sessions applied only the calling session's threads). For each, N calls
on one session, paced 55 ms apart so that the rate limit refuses none:

  hint     SendHint alternating load-up and load-down: each changes the
           session's output, so each is an actuation of its 32 threads
  report   ReportActualWorkDurations alternating a late and an early
           frame

and boostd's CPU time (schedstat) over them, per call. The ratio current /
baseline is what to compare between runs.

Usage: bench-hints.py [--boostd PATH] [--baseline-rev REV] [--calls N]
                      [--quick] [--json FILE]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import TOP, PrivateBus, Threads, cpu_ns, make_stune_tree, ratio  # noqa: E402

import dbus  # noqa: E402

NAME = 'org.boostd.Boost1'
PATH = '/org/boostd/Boost1'
T = 16666667
CLIENTS, SESSIONS, THREADS = 4, 4, 32
PACE = 0.055


def build_baseline(rev):
    """boostd built from rev in a worktree of its own under build/."""
    wt = os.path.join(TOP, 'build', 'bench-hints', 'src')
    bld = os.path.join(TOP, 'build', 'bench-hints', 'build')
    want = subprocess.run(['git', '-C', TOP, 'rev-parse', rev], check=True, capture_output=True,
                          text=True).stdout.strip()
    have = ''
    if os.path.isdir(wt):
        have = subprocess.run(['git', '-C', wt, 'rev-parse', 'HEAD'], capture_output=True,
                              text=True).stdout.strip()
    if have != want:
        shutil.rmtree(os.path.dirname(wt), ignore_errors=True)
        subprocess.run(['git', '-C', TOP, 'worktree', 'prune'], check=True)
        subprocess.run(['git', '-C', TOP, 'worktree', 'add', '-q', '--detach', wt, want], check=True)
    if not os.path.exists(os.path.join(bld, 'build.ninja')):
        subprocess.run(['meson', 'setup', '-Dtests=false', bld, wt], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(['ninja', '-C', bld, 'daemon/boostd'], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(bld, 'daemon', 'boostd'), want[:12]


def make_root(root, tids):
    """make_stune_tree() and each thread's uclamp.min, as a file."""
    make_stune_tree(root)
    for t in tids:
        os.makedirs(f'{root}/proc/{t}', exist_ok=True)
        with open(f'{root}/proc/{t}/util_min', 'w') as f:
            f.write('0\n')


def measure(boostd, tids, calls):
    """CPU ns per call of each kind, on one boostd."""
    tmp = tempfile.mkdtemp(prefix='boostd-bench-hints-')
    root = os.path.join(tmp, 'root')
    make_root(root, tids)
    bus = PrivateBus(tmp)
    env = dict(bus.env, BOOSTD_ROOT=root)
    log = open(os.path.join(tmp, 'boostd.log'), 'w')
    proc = subprocess.Popen([boostd, '--log-level=warning'], env=env, stdout=log, stderr=subprocess.STDOUT)
    conns = []
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                c = dbus.bus.BusConnection(bus.address)
                dbus.Interface(c.get_object(NAME, PATH), dbus.PROPERTIES_IFACE).Get(NAME, 'Version')
                conns.append(c)
                break
            except dbus.exceptions.DBusException:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f'{boostd} did not come up')
                time.sleep(0.1)
        sessions = []
        k = 0
        for ci in range(CLIENTS):
            c = conns[0] if ci == 0 else dbus.bus.BusConnection(bus.address)
            if ci:
                conns.append(c)
            boost = dbus.Interface(c.get_object(NAME, PATH), NAME)
            for _ in range(SESSIONS):
                path = boost.CreateSession(dbus.Array(tids[k:k + THREADS], signature='u'), dbus.UInt64(T))
                sessions.append(dbus.Interface(c.get_object(NAME, path), 'org.boostd.Session1'))
                k += THREADS
                time.sleep(PACE)
        s = sessions[0]
        kinds = {
            'hint': lambda i: s.SendHint('load-up' if i % 2 == 0 else 'load-down'),
            'report': lambda i: s.ReportActualWorkDurations(dbus.Array(
                [dbus.Struct((dbus.UInt64(i + 1), dbus.UInt64(3 * T if i % 2 == 0 else T // 2)))],
                signature='(tt)')),
        }
        out = {}
        for kind, call in kinds.items():
            time.sleep(0.6)     # a full bucket
            before = cpu_ns(proc.pid)
            for i in range(calls):
                call(i)
                time.sleep(PACE)
            out[kind] = (cpu_ns(proc.pid) - before) / calls
        if proc.poll() is not None:
            raise RuntimeError(f'{boostd} exited')
        return out
    finally:
        for c in conns:
            c.close()
        proc.terminate()
        proc.wait()
        log.close()
        bus.close()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--boostd', default=os.path.join(TOP, 'build/meson/daemon/boostd'))
    ap.add_argument('--baseline-rev', default='f092aca')
    ap.add_argument('--calls', type=int, default=100)
    ap.add_argument('--quick', action='store_true', help='10 calls of each kind')
    ap.add_argument('--json')
    args = ap.parse_args()
    calls = 10 if args.quick else args.calls
    if os.geteuid() != 0:
        sys.exit('bench-hints: run as root (the sessions are root\'s, whom polkit does not ask)')

    base, rev = build_baseline(args.baseline_rev)
    here = subprocess.run(['git', '-C', TOP, 'rev-parse', '--short=12', 'HEAD'], capture_output=True,
                          text=True).stdout.strip()
    workers = Threads(CLIENTS * SESSIONS * THREADS)
    try:
        res = {'baseline': measure(base, workers.tids, calls),
               'current': measure(args.boostd, workers.tids, calls)}
    finally:
        workers.stop()
    print(f'Hint sessions at their caps ({CLIENTS * SESSIONS} sessions of {THREADS} threads), '
          f'{calls} calls on one session, paced {int(PACE * 1000)} ms: boostd CPU per call')
    print()
    print(f'| call | baseline ({rev}) | current ({here}) | current / baseline |')
    print('|---|---|---|---|')
    for kind in ('hint', 'report'):
        b, c = res['baseline'][kind], res['current'][kind]
        print(f'| {kind} | {b / 1000:.0f} µs | {c / 1000:.0f} µs | {ratio(c, b)} |')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'baseline_rev': rev, 'current_rev': here, 'calls': calls,
                       'sessions': CLIENTS * SESSIONS, 'threads': THREADS, 'cpu_ns_per_call': res}, f,
                      indent=1)


if __name__ == '__main__':
    main()
