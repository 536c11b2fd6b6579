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
  unit   latency   a unit's directory made in a fake cgroup v2 tree and its
                   cgroup.procs written -> the PID in the group's
                   cgroup.procs (baseline: inotify on the slice, read the
                   unit's cgroup.procs, write the PID)
  exec   latency   "exec PID" sent to the BOOSTD_EXEC_SOURCE socket -> the
                   PID in the group's cgroup.procs (baseline: read the
                   event and /proc/PID/comm, write the PID)
  exec   burst     CPU time and peak RSS while exec events of processes
                   already in place arrive at a sustained rate, the common
                   case (baseline: reads the events and /proc/PID/comm)

Usage: bench-boostd.py [--boostd PATH] [--reps N] [--burst-seconds S]
                       [--idle-seconds S] [--quick]
"""

import argparse
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (TOP, EVENT, Watch, percentile, cpu_ns, status_field, ratio,  # noqa: E402
                      PrivateBus, compile_c, make_stune_root)

EV_KEY, KEY_A = 1, 30
BOOST = 40
DURATION_MS = 40

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

# The unit baseline: follows new units in one slice directory and writes
# their PIDs into the group the unit's name ends with (-bg or -perf).
BASELINE_UNITS_C = r'''
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>
static char dirs[4096][PATH_MAX];
static int done[4096];
static void place(int wd, const char *bg, const char *perf)
{
        char p[PATH_MAX + 16];
        int pid;
        FILE *f;
        snprintf(p, sizeof(p), "%s/cgroup.procs", dirs[wd]);
        f = fopen(p, "r");
        if (!f)
                return;
        while (fscanf(f, "%d", &pid) == 1) {
                FILE *o = fopen(strstr(dirs[wd], "-bg.") ? bg : perf, "a");
                if (!o)
                        break;
                fprintf(o, "%d\n", pid);
                fclose(o);
                done[wd] = 1;
        }
        fclose(f);
}
int main(int argc, char **argv)
{
        char buf[65536] __attribute__((aligned(8)));
        int in = inotify_init1(0), top;
        ssize_t n;
        if (argc < 4)
                return 2;
        top = inotify_add_watch(in, argv[1], IN_CREATE | IN_ONLYDIR);
        if (top < 0)
                return 1;
        while ((n = read(in, buf, sizeof(buf))) > 0)
                for (char *p = buf; p < buf + n;) {
                        struct inotify_event *e = (struct inotify_event *) p;
                        if (e->wd == top && (e->mask & IN_ISDIR)) {
                                char d[PATH_MAX];
                                int wd;
                                snprintf(d, sizeof(d), "%s/%s", argv[1], e->name);
                                wd = inotify_add_watch(in, d, IN_MODIFY);
                                if (wd > 0 && wd < 4096) {
                                        strcpy(dirs[wd], d);
                                        place(wd, argv[2], argv[3]);
                                }
                        } else if (e->wd > 0 && e->wd < 4096 && !done[e->wd] &&
                                   e->len && !strcmp(e->name, "cgroup.procs"))
                                place(e->wd, argv[2], argv[3]);
                        p += sizeof(*e) + e->len;
                }
        return 0;
}
'''

# The exec baseline: reads "exec PID" datagrams, the process's comm and,
# in "write" mode, appends the PID to a group's cgroup.procs.
BASELINE_EXEC_C = r'''
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(int argc, char **argv)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd = socket(AF_UNIX, SOCK_DGRAM, 0), w;
        char buf[64], p[64], comm[64];
        ssize_t n;
        if (argc < 4)
                return 2;
        w = !strcmp(argv[3], "write");
        strncpy(sa.sun_path, argv[1], sizeof(sa.sun_path) - 1);
        unlink(argv[1]);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return 1;
        while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) > 0) {
                int pid;
                FILE *f;
                buf[n] = 0;
                if (sscanf(buf, "exec %d", &pid) != 1)
                        continue;
                snprintf(p, sizeof(p), "/proc/%d/comm", pid);
                f = fopen(p, "r");
                if (!f)
                        continue;
                if (!fgets(comm, sizeof(comm), f))
                        comm[0] = 0;
                fclose(f);
                if (w) {
                        FILE *o = fopen(argv[2], "a");
                        if (!o)
                                return 1;
                        fprintf(o, "%d\n", pid);
                        fclose(o);
                }
        }
        return 0;
}
'''

UNITS_CONFIG = '''[Rule:bench-bg]
Unit=bench-*-bg.service
Class=background
[Rule:bench-perf]
Unit=bench-*-perf.service
Class=performance
[Rule:ticker]
Comm=ticker
Class=performance
'''

class Bench:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix='boostd-bench-')
        self.procs = []
        self.writers = {}
        self.results = []
        self.bus = PrivateBus(self.tmp)
        self.env = self.bus.env
        self.baseline = os.path.join(self.tmp, 'baseline')
        self.baseline_units = os.path.join(self.tmp, 'baseline-units')
        self.baseline_exec = os.path.join(self.tmp, 'baseline-exec')
        for out, src in ((self.baseline, BASELINE_C), (self.baseline_units, BASELINE_UNITS_C),
                         (self.baseline_exec, BASELINE_EXEC_C)):
            compile_c(src, out)
        self.sleepers = []

    def close(self):
        for fd in self.writers.values():
            os.close(fd)
        for p in self.sleepers:
            p.kill()
            p.wait()
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.bus.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # a temporary root like a SchedTune kernel with one keyboard
    def make_root(self, name):
        root = os.path.join(self.tmp, name)
        make_stune_root(root, BOOST, DURATION_MS)
        return root

    def make_procs_root(self, name):
        """A root with a fake cgroup v2 tree and rules for the process
        benchmarks."""
        root = self.make_root(name)
        with open(f'{root}/etc/boostd.conf', 'a') as f:
            f.write(UNITS_CONFIG)
        os.makedirs(f'{root}/sys/fs/cgroup/system.slice')
        return root

    def start_boostd(self, root, env=None):
        log = open(os.path.join(root, 'boostd.log'), 'w')
        p = subprocess.Popen([self.args.boostd, '--log-level=warning'],
                             env=dict(self.env, BOOSTD_ROOT=root, **(env or {})),
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

    def spawn_sleepers(self, n, name='sleep'):
        """n processes that sleep; name (a symlink to sleep) is their comm."""
        prog = shutil.which('sleep')
        if name != 'sleep':
            link = os.path.join(self.tmp, name)
            if not os.path.exists(link):
                os.symlink(prog, link)
            prog = link
        ps = [subprocess.Popen([prog, '3600']) for _ in range(n)]
        self.sleepers.extend(ps)
        return [p.pid for p in ps]

    @staticmethod
    def wait_file(path, proc, timeout=10.0):
        deadline = time.monotonic() + timeout
        while not os.path.exists(path):
            if proc.poll() is not None:
                raise RuntimeError(f'{proc.args[0]} exited with {proc.returncode}')
            if time.monotonic() > deadline:
                raise RuntimeError(f'{path} never appeared')
            time.sleep(0.01)

    @staticmethod
    def has_pid(path, pid):
        with open(path) as f:
            return str(pid) in f.read().split()

    def timed_move(self, path, pid, act):
        """Time (us) from act() to pid written into the cgroup.procs at path."""
        watch = Watch(path)
        try:
            watch.drain()
            t0 = time.perf_counter_ns()
            act()
            deadline = time.monotonic() + 2.0
            while True:
                t1 = watch.wait(max(0.0, deadline - time.monotonic()))
                if t1 is None:
                    raise RuntimeError(f'PID {pid} never reached {path}')
                if self.has_pid(path, pid):
                    return (t1 - t0) / 1000
        finally:
            watch.close()

    def unit_latency(self, root, proc):
        """Latencies (us) from a unit's directory and cgroup.procs made to
        its PID moved; the PID alternates between two groups."""
        slice_dir = f'{root}/sys/fs/cgroup/system.slice'
        pid = self.spawn_sleepers(1)[0]
        lat = []
        for i in range(self.args.reps):
            kind, group = ('bg', 'background') if i % 2 == 0 else ('perf', 'performance')
            unit = f'{slice_dir}/bench-{i}-{kind}.service'

            def make():
                os.mkdir(unit)
                with open(f'{unit}/cgroup.procs', 'w') as f:
                    f.write(f'{pid}\n')
            lat.append(self.timed_move(f'{root}/dev/stune/{group}/cgroup.procs', pid, make))
            if proc.poll() is not None:
                raise RuntimeError('the daemon exited')
        return lat

    def exec_latency(self, root, sock, pids):
        """Latencies (us) from "exec PID" sent to a new process moved."""
        c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        lat = []
        try:
            for pid in pids[:self.args.reps]:
                lat.append(self.timed_move(f'{root}/dev/stune/performance/cgroup.procs', pid,
                                           lambda: c.sendto(f'exec {pid}'.encode(), sock)))
        finally:
            c.close()
        return lat

    def exec_burst(self, sock, proc, pids):
        """CPU ms and peak RSS (KiB) of proc over a sustained burst of exec
        events of processes already in place."""
        c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        rate, seconds = 2000, self.args.burst_seconds
        cpu0 = cpu_ns(proc.pid)
        n = 0
        start = time.monotonic()
        try:
            while time.monotonic() - start < seconds:
                for _ in range(10):
                    c.sendto(f'exec {pids[n % len(pids)]}'.encode(), sock)
                    n += 1
                time.sleep(10 / rate)
        finally:
            c.close()
        time.sleep(0.2)
        return n, (cpu_ns(proc.pid) - cpu0) / 1e6, status_field(proc.pid, 'VmHWM')

    def run_procs(self):
        """The process classification figures, boostd and baselines."""
        # unit appearing -> PIDs moved
        root = self.make_procs_root('units-boostd')
        d = self.start_boostd(root)
        self.wait_ready(root, d)
        lat_d = self.unit_latency(root, d)
        self.stop(d)
        root_b = self.make_procs_root('units-baseline')
        b = subprocess.Popen([self.baseline_units, f'{root_b}/sys/fs/cgroup/system.slice',
                              f'{root_b}/dev/stune/background/cgroup.procs',
                              f'{root_b}/dev/stune/performance/cgroup.procs'])
        self.procs.append(b)
        time.sleep(0.2)
        lat_b = self.unit_latency(root_b, b)
        self.row('unit appears -> PIDs moved (us)', lat_d, lat_b)

        # exec event -> move, each time a new process
        tickers = self.spawn_sleepers(self.args.reps, 'ticker')
        others = self.spawn_sleepers(max(10, self.args.reps // 5))
        root = self.make_procs_root('exec-boostd')
        sock = f'{root}/exec.sock'
        d = self.start_boostd(root, {'BOOSTD_EXEC_SOURCE': sock})
        self.wait_file(sock, d)
        lat_d = self.exec_latency(root, sock, tickers)
        root_b = self.make_procs_root('exec-baseline')
        sock_b = f'{root_b}/exec.sock'
        b = subprocess.Popen([self.baseline_exec, sock_b,
                              f'{root_b}/dev/stune/performance/cgroup.procs', 'write'])
        self.procs.append(b)
        self.wait_file(sock_b, b)
        lat_b = self.exec_latency(root_b, sock_b, tickers)
        self.row('exec event -> PID moved (us)', lat_d, lat_b)

        # exec burst: the processes are in place (tickers in performance,
        # the others in root), so no move is due
        mix = [p for pair in zip(tickers, others * len(tickers)) for p in pair]
        n, cpu_d, rss_d = self.exec_burst(sock, d, mix)
        root_r = self.make_procs_root('exec-burst-baseline')
        sock_r = f'{root_r}/exec.sock'
        r = subprocess.Popen([self.baseline_exec, sock_r, '/dev/null', 'read'])
        self.procs.append(r)
        self.wait_file(sock_r, r)
        _, cpu_r, rss_r = self.exec_burst(sock_r, r, mix)
        self.results.append((f'exec burst: CPU ms for {n} events', f'{cpu_d:.1f}',
                             f'{cpu_r:.1f}', ratio(cpu_d, cpu_r)))
        self.results.append(('exec burst: peak RSS KiB', str(rss_d), str(rss_r),
                             ratio(rss_d, rss_r)))
        if d.poll() is not None:
            raise RuntimeError('the daemon exited during the exec burst')
        self.stop(d)

    @staticmethod
    def stop(proc):
        proc.terminate()
        if proc.wait(10) != 0:
            raise RuntimeError(f'{proc.args[0]} exited with {proc.returncode}')

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

        self.stop(d)               # one daemon owns the bus name at a time
        self.run_procs()
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
