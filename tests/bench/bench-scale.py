#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How boostd's costs grow with the number of processes it places.

For each size N: N real sleep processes in N/10 units of a fake cgroup v2
tree (half with a rule to background, half to performance), a fake
SchedTune tree and proc root under a temporary root, a private system
bus, and input events at 100 a second the whole time. Measured:

  start     boostd started -> all N processes in their groups (ms), side
            by side with a baseline C program that walks the same tree and
            writes each PID into its group (the least any placer does)
  rescan    Mode set to auto from manual (every process looked at again,
            none to move) and Reload(): the method's round trip (ms)
  exec      "exec PID" of a new process with a rule -> moved (us, median)
  burst     CPU per exec event of processes already in place (us)
  memory    boostd's peak RSS (KiB)
  lost      exec events sent back to back for 1 000 new processes: how
            many were not placed within 10 s (expected 0)
  holds     1 000 Hold() calls from 100 clients (bus connections): how
            many were granted (the limit is 256 in all) and the round trip

and the slope of each figure against N (log-log: 1 is linear).

Usage: bench-scale.py [--boostd PATH] [--sizes 100,1000,10000] [--quick]
                      [--json FILE]
"""

import argparse
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (TOP, EVENT, IFACE, NAME, PATH, PrivateBus, Watch, compile_c,  # noqa: E402
                      cpu_ns, fake_proc, make_stune_root, ratio, status_field)

import dbus  # noqa: E402

RULES = '''[Rule:scale-bg]
Unit=scale-*-bg.service
Class=background
[Rule:scale-perf]
Unit=scale-*-perf.service
Class=performance
[Rule:ticker]
Comm=ticker
Class=performance
'''
PER_UNIT = 10

# The baseline of the start: walks system.slice once, reads each unit's
# cgroup.procs and appends its PIDs to the group its name ends with.
BASELINE_C = r'''
#include <dirent.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
        struct dirent *de;
        DIR *d = opendir(argv[1]);
        if (!d || argc < 4)
                return 1;
        while ((de = readdir(d))) {
                char p[4096];
                FILE *f, *o;
                int pid;
                if (de->d_name[0] == '.')
                        continue;
                snprintf(p, sizeof(p), "%s/%s/cgroup.procs", argv[1], de->d_name);
                f = fopen(p, "r");
                if (!f)
                        continue;
                o = fopen(strstr(de->d_name, "-bg.") ? argv[2] : argv[3], "a");
                while (o && fscanf(f, "%d", &pid) == 1) {
                        fprintf(o, "%d\n", pid);
                        fflush(o);
                }
                if (o)
                        fclose(o);
                fclose(f);
        }
        return 0;
}
'''


def count_lines(path):
    with open(path) as f:
        return sum(1 for _ in f)


def slope(xs, ys):
    """Least-squares slope of log(y) against log(x)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return float('nan')
    mx = statistics.fmean(p[0] for p in pts)
    my = statistics.fmean(p[1] for p in pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den if den else float('nan')


class Scale:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix='boostd-scale-')
        self.bus = PrivateBus(self.tmp)
        self.baseline = os.path.join(self.tmp, 'baseline')
        compile_c(BASELINE_C, self.baseline)
        self.ticker = os.path.join(self.tmp, 'ticker')
        os.symlink(shutil.which('sleep'), self.ticker)
        self.children = []
        self.daemon = None
        self.stop_input = threading.Event()

    def close(self):
        self.stop_input.set()
        if self.daemon and self.daemon.poll() is None:
            self.daemon.kill()
            self.daemon.wait()
        for p in self.children:
            p.kill()
        for p in self.children:
            p.wait()
        self.bus.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def spawn(self, n, prog='sleep'):
        ps = [subprocess.Popen([prog, '3600']) for _ in range(n)]
        self.children.extend(ps)
        return [p.pid for p in ps]

    def reap(self, pids):
        keep = []
        for p in self.children:
            if p.pid in pids:
                p.kill()
                p.wait()
            else:
                keep.append(p)
        self.children = keep

    def make_root(self, name, pids):
        """The trees for pids, PER_UNIT to a unit."""
        root = os.path.join(self.tmp, name)
        make_stune_root(root, 40, 40)
        with open(f'{root}/etc/boostd.conf', 'a') as f:
            f.write(RULES)
        top = f'{root}/sys/fs/cgroup/system.slice'
        os.makedirs(top)
        for u in range(0, len(pids), PER_UNIT):
            unit = f'scale-{u // PER_UNIT}-{"bg" if (u // PER_UNIT) % 2 == 0 else "perf"}.service'
            os.makedirs(f'{top}/{unit}')
            chunk = pids[u:u + PER_UNIT]
            with open(f'{top}/{unit}/cgroup.procs', 'w') as f:
                f.write(''.join(f'{p}\n' for p in chunk))
            for p in chunk:
                fake_proc(f'{root}/proc', p, f'/system.slice/{unit}')
        return root

    def placed(self, root):
        return sum(count_lines(f'{root}/dev/stune/{g}/cgroup.procs')
                   for g in ('background', 'performance'))

    def wait_placed(self, root, n, timeout):
        deadline = time.monotonic() + timeout
        while self.placed(root) < n:
            if self.daemon.poll() is not None:
                raise RuntimeError(f'boostd exited with {self.daemon.returncode}')
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)
        return True

    def input_feed(self, root):
        """100 key presses a second into the keyboard FIFO until stopped."""
        fd = None
        while fd is None and not self.stop_input.is_set():
            try:
                fd = os.open(f'{root}/dev/input/event0', os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.01)
        press = EVENT.pack(0, 0, 1, 30, 1) + EVENT.pack(0, 0, 0, 0, 0)
        try:
            while not self.stop_input.wait(0.01):
                try:
                    os.write(fd, press)
                except BlockingIOError:
                    pass
        finally:
            if fd is not None:
                os.close(fd)

    def proxy(self, conn):
        return dbus.Interface(conn.get_object(NAME, PATH), IFACE)

    def timed(self, fn):
        t0 = time.perf_counter_ns()
        fn()
        return (time.perf_counter_ns() - t0) / 1e6

    def one_size(self, n):
        r = {'n': n}
        pids = self.spawn(n)
        root = self.make_root(f'boostd-{n}', pids)
        sock = f'{root}/exec.sock'
        env = dict(self.bus.env, BOOSTD_ROOT=root, BOOSTD_PROC_ROOT=f'{root}/proc',
                   BOOSTD_EXEC_SOURCE=sock)
        log = open(f'{root}/boostd.log', 'w')
        t0 = time.perf_counter_ns()
        self.daemon = subprocess.Popen([self.args.boostd, '--log-level=warning'], env=env,
                                       stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.stop_input.clear()
        feeder = threading.Thread(target=self.input_feed, args=(root,), daemon=True)
        feeder.start()
        if not self.wait_placed(root, n, 600):
            raise RuntimeError(f'{n}: only {self.placed(root)} placed after 600 s')
        r['start_ms'] = (time.perf_counter_ns() - t0) / 1e6

        base = self.make_root(f'baseline-{n}', pids)
        r['start_base_ms'] = self.timed(lambda: subprocess.run(
            [self.baseline, f'{base}/sys/fs/cgroup/system.slice',
             f'{base}/dev/stune/background/cgroup.procs',
             f'{base}/dev/stune/performance/cgroup.procs'], check=True))
        if self.placed(base) != n:
            raise RuntimeError(f'baseline placed {self.placed(base)} of {n}')

        conn = dbus.bus.BusConnection(self.bus.address)
        boost = self.proxy(conn)
        props = dbus.Interface(conn.get_object(NAME, PATH), 'org.freedesktop.DBus.Properties')
        props.Set(IFACE, 'Mode', 'manual', timeout=600)
        r['rescan_ms'] = self.timed(lambda: props.Set(IFACE, 'Mode', 'auto', timeout=600))
        r['reload_ms'] = self.timed(lambda: boost.Reload(timeout=600))

        # exec events of new processes with a rule, one at a time
        c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        tick = self.spawn(self.args.exec_samples, self.ticker)
        for p in tick:
            fake_proc(f'{root}/proc', p, '/')
        perf = f'{root}/dev/stune/performance/cgroup.procs'
        lat = []
        for p in tick:
            w = Watch(perf)
            try:
                t0 = time.perf_counter_ns()
                c.sendto(f'exec {p}'.encode(), sock)
                while True:
                    t1 = w.wait(5.0)
                    if t1 is None:
                        raise RuntimeError(f'exec of {p} never placed')
                    with open(perf) as f:
                        if str(p) in f.read().split():
                            break
                lat.append((t1 - t0) / 1000)
            finally:
                w.close()
        r['exec_us'] = statistics.median(lat)

        # a burst of exec events of processes in place: the common case
        cpu0, k = cpu_ns(self.daemon.pid), 0
        end = time.monotonic() + self.args.burst_seconds
        while time.monotonic() < end:
            for _ in range(10):
                c.sendto(f'exec {pids[k % n]}'.encode(), sock)
                k += 1
            time.sleep(0.005)
        time.sleep(0.3)
        r['burst_us'] = (cpu_ns(self.daemon.pid) - cpu0) / 1000 / k

        # back to back: none may be lost
        flood = self.spawn(self.args.flood, self.ticker)
        for p in flood:
            fake_proc(f'{root}/proc', p, '/')
        before = count_lines(perf)
        for p in flood:
            c.sendto(f'exec {p}'.encode(), sock)
        deadline = time.monotonic() + 10
        while count_lines(perf) < before + len(flood) and time.monotonic() < deadline:
            time.sleep(0.01)
        with open(perf) as f:
            got = set(f.read().split())
        r['lost'] = sum(1 for p in flood if str(p) not in got)
        c.close()

        # holds from many clients
        clients = [self.proxy(dbus.bus.BusConnection(self.bus.address))
                   for _ in range(self.args.clients)]
        granted, refused, rtt = 0, {}, []
        for i in range(self.args.holds):
            t0 = time.perf_counter_ns()
            try:
                clients[i % len(clients)].Hold('interactive', dbus.UInt32(20), dbus.UInt32(600000),
                                               f'scale {i}')
                granted += 1
            except dbus.exceptions.DBusException as e:
                refused[e.get_dbus_name()] = refused.get(e.get_dbus_name(), 0) + 1
            rtt.append((time.perf_counter_ns() - t0) / 1e6)
        r['holds_granted'] = granted
        r['holds_refused'] = refused
        r['hold_ms'] = statistics.median(rtt)
        r['rss_kib'] = status_field(self.daemon.pid, 'VmHWM')

        self.stop_input.set()
        feeder.join()
        self.daemon.terminate()
        if self.daemon.wait(60) != 0:
            raise RuntimeError(f'boostd exited with {self.daemon.returncode}')
        self.daemon = None
        self.reap(set(pids) | set(tick) | set(flood))
        return r


def report(rows):
    ns = [r['n'] for r in rows]
    lines = ['| measure | ' + ' | '.join(f'{n} processes' for n in ns) + ' | slope |',
             '|---|' + '---:|' * (len(ns) + 1)]

    def line(what, key, fmt):
        vals = [r[key] for r in rows]
        lines.append(f'| {what} | ' + ' | '.join(fmt.format(v) for v in vals) +
                     f' | {slope(ns, vals):.2f} |')
    line('start: all placed (ms)', 'start_ms', '{:.0f}')
    line('... baseline walk and write (ms)', 'start_base_ms', '{:.0f}')
    lines.append('| ... ratio | ' + ' | '.join(ratio(r['start_ms'], r['start_base_ms'])
                                               for r in rows) + ' | |')
    line('rescan: Mode manual -> auto (ms)', 'rescan_ms', '{:.1f}')
    line('Reload() (ms)', 'reload_ms', '{:.1f}')
    line('exec event -> moved, median (us)', 'exec_us', '{:.0f}')
    line('exec burst: CPU per event (us)', 'burst_us', '{:.1f}')
    line('peak RSS (KiB)', 'rss_kib', '{}')
    lines.append('| exec events lost (of a back-to-back flood) | ' +
                 ' | '.join(str(r['lost']) for r in rows) + ' | |')
    lines.append('| holds granted (of 1 000 from 100 clients) | ' +
                 ' | '.join(str(r['holds_granted']) for r in rows) + ' | |')
    line('Hold() round trip, median (ms)', 'hold_ms', '{:.2f}')
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--boostd', default=os.path.join(TOP, 'build/meson/daemon/boostd'))
    ap.add_argument('--sizes', help='numbers of processes (default 100,1000,10000; '
                    'with --quick 100,1000)')
    ap.add_argument('--quick', action='store_true', help='sizes 100 and 1000, short bursts')
    ap.add_argument('--json', help='write the figures to this file too')
    a = ap.parse_args()
    a.exec_samples, a.burst_seconds, a.flood, a.clients, a.holds = 50, 5.0, 1000, 100, 1000
    if a.quick:
        a.exec_samples, a.burst_seconds, a.flood = 20, 1.0, 200
    a.sizes = a.sizes or ('100,1000' if a.quick else '100,1000,10000')
    if not os.access(a.boostd, os.X_OK):
        sys.exit(f'{a.boostd} missing: build with meson first (tests/run-daemon-tests)')
    s = Scale(a)
    rows = []
    try:
        for n in (int(x) for x in a.sizes.split(',')):
            rows.append(s.one_size(n))
            print(f'{n}: {rows[-1]}', file=sys.stderr)
    except Exception:
        for d in sorted(os.listdir(s.tmp)):
            log = os.path.join(s.tmp, d, 'boostd.log')
            if os.path.exists(log):
                with open(log) as f:
                    sys.stderr.write(f'---- {log} ----\n{f.read()[-4000:]}')
        raise
    finally:
        s.close()
    print(f'boostd at scale: {PER_UNIT} processes per unit, input at 100 events/s, '
          f'{os.cpu_count()} CPUs, {os.uname().release}\n')
    print(report(rows))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(rows, f, indent=1)
    lost = sum(r['lost'] for r in rows)
    if lost:
        print(f'{lost} exec events lost', file=sys.stderr)
    return 1 if lost else 0


if __name__ == '__main__':
    sys.exit(main())
