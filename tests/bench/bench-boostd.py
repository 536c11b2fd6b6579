#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Benchmark of boostd's auto mode against a temporary root, on a private
D-Bus daemon: no event reaches this machine's own input subsystem, cgroups
or process connector.

Every figure is measured side by side with a baseline: a minimal C program
that does the least the daemon has to do for the same event (read it, write
the file) and is timed the same way. Ratios (boostd / baseline) are what to
compare between runs; the absolute numbers depend on the machine.

  input  latency   input event written to a fake /dev/input FIFO -> the
                   interactive group's schedtune.boost written
  burst            CPU time and peak RSS while input events arrive at a
                   sustained rate (baseline: a program that only reads them)
  idle             context switches of the idle daemon over a period
                   (no polling timer: expected 0)

Usage: bench-boostd.py [--boostd PATH] [--reps N] [--burst-seconds S]
                       [--idle-seconds S] [--quick]
"""

import argparse
import ctypes
import glob
import os
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = 'org.boostd.Boost1'
GROUPS = ['background', 'interactive', 'performance']
EVENT = struct.Struct('@llHHi')          # struct input_event
EV_KEY, KEY_A = 1, 30
BOOST = 40
DURATION_MS = 40

BUS_CONF = '''<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={sock}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
'''

# The baseline: reads input events from a FIFO and, in "write" mode, writes
# the boost file once per event; in "read" mode only reads.
BASELINE_C = r'''
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
        struct input_event ev[64];
        int in = open(argv[1], O_RDONLY), w = !strcmp(argv[2], "write");
        ssize_t n;
        if (in < 0)
                return 1;
        while ((n = read(in, ev, sizeof(ev))) > 0) {
                if (w) {
                        int fd = open(argv[3], O_WRONLY | O_TRUNC);
                        if (fd < 0 || write(fd, "40\n", 3) != 3)
                                return 1;
                        close(fd);
                }
        }
        return 0;
}
'''

IN_CLOSE_WRITE = 0x8
libc = ctypes.CDLL('libc.so.6', use_errno=True)


class Watch:
    """inotify on one file: the time each writer closes it, to the ns."""

    def __init__(self, path):
        self.fd = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, path.encode(), IN_CLOSE_WRITE) < 0:
            raise OSError(ctypes.get_errno(), f'inotify on {path}')

    def wait(self, timeout):
        """Time of the next modification, or None after timeout seconds."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        t = time.perf_counter_ns()
        if not r:
            return None
        os.read(self.fd, 4096)
        return t

    def drain(self):
        try:
            while os.read(self.fd, 4096):
                pass
        except BlockingIOError:
            pass

    def close(self):
        os.close(self.fd)


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def cpu_ns(pid):
    """Time the process spent on a CPU, in ns (sum over its threads)."""
    with open(f'/proc/{pid}/schedstat') as f:
        return int(f.read().split()[0])


def status_field(pid, key):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1])
    raise KeyError(key)


class Bench:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix='boostd-bench-')
        self.procs = []
        self.writers = {}
        self.results = []
        sock = os.path.join(self.tmp, 'bus')
        conf = os.path.join(self.tmp, 'bus.conf')
        with open(conf, 'w') as f:
            f.write(BUS_CONF.format(sock=sock))
        self.bus = subprocess.Popen(['dbus-daemon', '--config-file', conf, '--nofork',
                                     '--print-address'], stdout=subprocess.PIPE, text=True)
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus.stdout.readline().strip())
        self.baseline = os.path.join(self.tmp, 'baseline')
        subprocess.run(['cc', '-O2', '-x', 'c', '-o', self.baseline, '-'],
                       input=BASELINE_C, text=True, check=True)

    def close(self):
        for fd in self.writers.values():
            os.close(fd)
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.bus.terminate()
        self.bus.wait()
        self.bus.stdout.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # a temporary root like a SchedTune kernel with one keyboard
    def make_root(self, name):
        root = os.path.join(self.tmp, name)
        os.makedirs(f'{root}/proc')
        with open(f'{root}/proc/cgroups', 'w') as f:
            f.write('#subsys_name\thierarchy\tnum_cgroups\tenabled\nschedtune\t3\t4\t1\n')
        for d in ['.'] + GROUPS:
            os.makedirs(f'{root}/dev/stune/{d}', exist_ok=True)
            with open(f'{root}/dev/stune/{d}/schedtune.boost', 'w') as f:
                f.write('0\n')
            open(f'{root}/dev/stune/{d}/cgroup.procs', 'w').close()
        os.makedirs(f'{root}/etc')
        with open(f'{root}/etc/boostd.conf', 'w') as f:
            f.write(f'[Input]\nGroup=interactive\nBoost={BOOST}\nDurationMs={DURATION_MS}\n'
                    'Devices=keyboard\n')
        os.makedirs(f'{root}/run/udev/data')
        os.makedirs(f'{root}/dev/input')
        with open(f'{root}/run/udev/data/+input:event0', 'w') as f:
            f.write('E:ID_INPUT=1\nE:ID_INPUT_KEYBOARD=1\n')
        os.mkfifo(f'{root}/dev/input/event0', 0o600)
        return root

    def start_boostd(self, root):
        log = open(os.path.join(root, 'boostd.log'), 'w')
        p = subprocess.Popen([self.args.boostd, '--log-level=warning'],
                             env=dict(self.env, BOOSTD_ROOT=root),
                             stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.procs.append(p)
        return p

    def start_baseline(self, root, mode):
        p = subprocess.Popen([self.baseline, f'{root}/dev/input/event0', mode,
                              f'{root}/dev/stune/interactive/schedtune.boost'])
        self.procs.append(p)
        return p

    def open_writer(self, root, proc, timeout=10.0):
        """The FIFO's writing end, once the reader has it open; kept open
        (closing it would look like the device went away)."""
        if root in self.writers:
            return self.writers[root]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f'{proc.args[0]} exited with {proc.returncode}')
            try:
                fd = os.open(f'{root}/dev/input/event0', os.O_WRONLY | os.O_NONBLOCK)
                self.writers[root] = fd
                return fd
            except OSError:
                time.sleep(0.01)
        raise RuntimeError('the reader never opened the input FIFO')

    @staticmethod
    def key_event():
        return EVENT.pack(0, 0, EV_KEY, KEY_A, 1) + EVENT.pack(0, 0, 0, 0, 0)

    def input_latency(self, root, proc, write_back):
        """Latencies (us) from an input event to the boost file's write."""
        path = f'{root}/dev/stune/interactive/schedtune.boost'
        w = self.open_writer(root, proc)
        watch = Watch(path)
        lat = []
        try:
            for _ in range(self.args.reps):
                watch.drain()
                t0 = time.perf_counter_ns()
                os.write(w, self.key_event())
                t1 = watch.wait(2.0)
                if t1 is None:
                    raise RuntimeError('no boost write after an input event')
                lat.append((t1 - t0) / 1000)
                if write_back:      # boostd: wait for the boost to come down
                    if watch.wait(2.0) is None:
                        raise RuntimeError('the input boost never came down')
                else:
                    time.sleep(DURATION_MS * 1.5 / 1000)
        finally:
            watch.close()
        return lat

    def burst(self, root, proc):
        """CPU ms and peak RSS (KiB) of proc over a sustained event burst."""
        w = self.open_writer(root, proc)
        rate, seconds = 2000, self.args.burst_seconds
        cpu0 = cpu_ns(proc.pid)
        n = 0
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            os.write(w, self.key_event() * 10)
            n += 10
            time.sleep(10 / rate)
        time.sleep(0.2)
        cpu_ms = (cpu_ns(proc.pid) - cpu0) / 1e6
        return n, cpu_ms, status_field(proc.pid, 'VmHWM')

    def idle(self, proc):
        pid = proc.pid
        sw0 = status_field(pid, 'voluntary_ctxt_switches') + \
            status_field(pid, 'nonvoluntary_ctxt_switches')
        time.sleep(self.args.idle_seconds)
        sw1 = status_field(pid, 'voluntary_ctxt_switches') + \
            status_field(pid, 'nonvoluntary_ctxt_switches')
        return sw1 - sw0

    def wait_ready(self, root, proc):
        """boostd is ready once it holds the input FIFO open."""
        self.open_writer(root, proc)

    def run(self):
        a = self.args
        # input latency, boostd and baseline side by side
        root = self.make_root('input-boostd')
        d = self.start_boostd(root)
        self.wait_ready(root, d)
        lat_d = self.input_latency(root, d, True)
        root_b = self.make_root('input-baseline')
        b = self.start_baseline(root_b, 'write')
        lat_b = self.input_latency(root_b, b, False)
        self.row('input event -> boost write (us)', lat_d, lat_b)

        # idle wakeups of the daemon (after the input boost came down)
        time.sleep(DURATION_MS * 2 / 1000)
        sw = self.idle(d)
        self.results.append(('idle: context switches in %d s' % a.idle_seconds,
                             str(sw), '0 expected', ''))
        if sw:
            print(f'boostd woke up {sw} times while idle', file=sys.stderr)

        # burst: CPU and RSS, boostd against a reader that does nothing else
        n, cpu_d, rss_d = self.burst(root, d)
        root_r = self.make_root('burst-baseline')
        r = self.start_baseline(root_r, 'read')
        _, cpu_r, rss_r = self.burst(root_r, r)
        self.results.append((f'input burst: CPU ms for {n} events', f'{cpu_d:.1f}',
                             f'{cpu_r:.1f}', ratio(cpu_d, cpu_r)))
        self.results.append(('input burst: peak RSS KiB', str(rss_d), str(rss_r),
                             ratio(rss_d, rss_r)))
        return sw

    def row(self, what, xs, base):
        for name, p in (('median', 50), ('p99', 99)):
            v, b = percentile(xs, p), percentile(base, p)
            self.results.append((f'{what}, {name}', f'{v:.0f}', f'{b:.0f}', ratio(v, b)))

    def report(self):
        print(f'boostd benchmark: {self.args.reps} repetitions, '
              f'{os.cpu_count()} CPUs, {os.uname().release}')
        print()
        print('| measure | boostd | baseline | ratio |')
        print('|---|---:|---:|---:|')
        for r in self.results:
            print('| ' + ' | '.join(r) + ' |')


def ratio(a, b):
    return f'{a / b:.2f}' if b else '-'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--boostd', default=os.path.join(TOP, 'build/meson/daemon/boostd'))
    ap.add_argument('--reps', type=int, default=500)
    ap.add_argument('--burst-seconds', type=float, default=10.0)
    ap.add_argument('--idle-seconds', type=float, default=60.0)
    ap.add_argument('--quick', action='store_true',
                    help='50 repetitions, 2 s burst, 5 s idle')
    a = ap.parse_args()
    if a.quick:
        a.reps, a.burst_seconds, a.idle_seconds = 50, 2.0, 5.0
    if not os.access(a.boostd, os.X_OK):
        sys.exit(f'{a.boostd} missing: build with meson first (tests/run-daemon-tests)')
    b = Bench(a)
    try:
        idle_switches = b.run()
    except Exception:
        for log in sorted(glob.glob(os.path.join(b.tmp, '*', 'boostd.log'))):
            with open(log) as f:
                sys.stderr.write(f'---- {log} ----\n{f.read()}')
        raise
    finally:
        b.close()
    b.report()
    return 1 if idle_switches else 0


if __name__ == '__main__':
    sys.exit(main())
