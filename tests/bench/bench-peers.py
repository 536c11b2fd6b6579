#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""boostd against the daemons a user runs today for the same wish ("this
should go faster now"), side by side on one private bus, same machine,
same run:

  boostd    SetBoost() and Hold() of a group: the round trip, and the time
            until the group's schedtune.boost is written (fake SchedTune
            tree under a temporary root)
  GameMode  gamemoded (Debian's gamemode-daemon, unpacked, not installed)
            on the private bus as its session bus, renice=5 in its
            configuration: RegisterGame(pid) round trip, and the time until
            the game's nice value is -5 (read from /proc in a tight loop)
  ppd       power-profiles-daemon (Debian's, unpacked) with its fake
            driver, in a mount namespace of its own (its state file goes
            to a temporary /var/lib), python-dbusmock's polkit granting its
            hold action: HoldProfile("performance") round trip, and the
            time until ActiveProfile reads "performance" (Get in a loop on
            a second connection, so within one Get round trip)

and each daemon's footprint: peak RSS, CPU per 1 000 requests, and
context switches per minute when idle. A daemon that cannot start here is
skipped with the reason.

Usage: bench-peers.py [--boostd PATH] [--pkgs DIR] [--reps N] [--idle-seconds S]
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
from benchlib import (TOP, IFACE, NAME, PATH, PrivateBus, Watch, cpu_ns,  # noqa: E402
                      make_stune_root, percentile, status_field)

import dbus  # noqa: E402

GM = ('com.feralinteractive.GameMode', '/com/feralinteractive/GameMode',
      'com.feralinteractive.GameMode')
PPD = ('net.hadess.PowerProfiles', '/net/hadess/PowerProfiles', 'net.hadess.PowerProfiles')
GM_INI = '[general]\nrenice=5\ninhibit_screensaver=0\n'


def nice_of(pid):
    with open(f'/proc/{pid}/stat') as f:
        return int(f.read().rsplit(')', 1)[1].split()[16])


def switches(pid):
    return (status_field(pid, 'voluntary_ctxt_switches') +
            status_field(pid, 'nonvoluntary_ctxt_switches'))


class Peers:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix='boostd-peers-')
        self.bus = PrivateBus(self.tmp)
        self.procs = []
        self.rows = []          # (daemon, request, rtt list ms, effect list ms)
        self.footprint = []     # (daemon, rss KiB, cpu ms per 1000, switches/min)
        self.skipped = []       # (daemon, reason)

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.bus.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, argv, env, name):
        log = open(os.path.join(self.tmp, name + '.log'), 'w')
        p = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.procs.append(p)
        return p

    def log_of(self, name):
        with open(os.path.join(self.tmp, name + '.log')) as f:
            return f.read()[-2000:]

    def wait_name(self, conn, name, proc, timeout=20.0):
        deadline = time.monotonic() + timeout
        while not conn.name_has_owner(name):
            if proc.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def idle_and_footprint(self, daemon, proc, cpu_ms_per_1000):
        s0 = switches(proc.pid)
        time.sleep(self.args.idle_seconds)
        per_min = (switches(proc.pid) - s0) * 60 / self.args.idle_seconds
        self.footprint.append((daemon, status_field(proc.pid, 'VmHWM'), cpu_ms_per_1000, per_min))

    @staticmethod
    def timed(fn):
        t0 = time.perf_counter_ns()
        out = fn()
        return (time.perf_counter_ns() - t0) / 1e6, out, t0

    def run_boostd(self):
        root = os.path.join(self.tmp, 'root')
        make_stune_root(root, 40, 40)
        p = self.start([self.args.boostd, '--log-level=warning'],
                       dict(self.bus.env, BOOSTD_ROOT=root), 'boostd')
        conn = dbus.bus.BusConnection(self.bus.address)
        if not self.wait_name(conn, NAME, p):
            self.skipped.append(('boostd', 'did not start: ' + self.log_of('boostd')))
            return
        b = dbus.Interface(conn.get_object(NAME, PATH), IFACE)
        path = f'{root}/dev/stune/performance/schedtune.boost'
        cpu0 = cpu_ns(p.pid)
        rtt, eff = [], []
        for i in range(self.args.reps):
            w = Watch(path)
            try:
                ms, _, t0 = self.timed(lambda: b.SetBoost('performance', dbus.UInt32(30 + i % 2)))
                t1 = w.wait(5.0)
            finally:
                w.close()
            if t1 is None:
                raise RuntimeError('SetBoost wrote nothing')
            rtt.append(ms)
            eff.append((t1 - t0) / 1e6)
        self.rows.append(('boostd', 'SetBoost(performance, 30/31)', rtt, eff))
        b.SetBoost('performance', dbus.UInt32(0))
        rtt, eff = [], []
        for i in range(self.args.reps):
            w = Watch(path)
            try:
                ms, cookie, t0 = self.timed(lambda: b.Hold('performance', dbus.UInt32(50),
                                                           dbus.UInt32(60000), 'bench'))
                t1 = w.wait(5.0)
            finally:
                w.close()
            if t1 is None:
                raise RuntimeError('Hold wrote nothing')
            rtt.append(ms)
            eff.append((t1 - t0) / 1e6)
            b.Release(cookie)
        self.rows.append(('boostd', 'Hold(performance, 50) (Release between)', rtt, eff))
        cpu = (cpu_ns(p.pid) - cpu0) / 1e6 / (3 * self.args.reps) * 1000
        self.idle_and_footprint('boostd', p, cpu)

    def run_gamemode(self, exe):
        cfg = os.path.join(self.tmp, 'gm-config')
        os.makedirs(cfg)
        with open(os.path.join(cfg, 'gamemode.ini'), 'w') as f:
            f.write(GM_INI)
        # no pkexec on its PATH: it must not try the host's CPU governor
        env = dict(self.bus.env, DBUS_SESSION_BUS_ADDRESS=self.bus.address,
                   XDG_CONFIG_HOME=cfg, PATH=os.path.join(self.tmp, 'empty'))
        p = self.start([exe], env, 'gamemoded')
        conn = dbus.bus.BusConnection(self.bus.address)
        if not self.wait_name(conn, GM[0], p):
            self.skipped.append(('GameMode', 'did not start: ' + self.log_of('gamemoded')))
            return
        gm = dbus.Interface(conn.get_object(GM[0], GM[1]), GM[2])
        cpu0 = cpu_ns(p.pid)
        rtt, eff, refused = [], [], 0
        for _ in range(self.args.reps):
            # GameMode renices only a game at nice 0 (this script may run
            # under nice)
            game = subprocess.Popen(['sleep', '60'],
                                    preexec_fn=lambda: os.setpriority(os.PRIO_PROCESS, 0, 0))
            try:
                t0 = time.perf_counter_ns()
                r = gm.RegisterGame(dbus.Int32(game.pid))
                t_rtt = time.perf_counter_ns()
                if r != 0:
                    refused += 1        # GameMode said no: nothing to time
                    continue
                while nice_of(game.pid) != -5:
                    if time.perf_counter_ns() - t0 > 5e9:
                        raise RuntimeError('GameMode registered the game but never reniced it')
                t1 = time.perf_counter_ns()
                gm.UnregisterGame(dbus.Int32(game.pid))
            finally:
                game.kill()
                game.wait()
            rtt.append((t_rtt - t0) / 1e6)
            eff.append((t1 - t0) / 1e6)
        if not rtt:
            self.skipped.append(('GameMode', f'RegisterGame refused all {refused} games'))
            return
        self.rows.append(('GameMode', 'RegisterGame(pid) (UnregisterGame between)' +
                          (f', {refused} refused' if refused else ''), rtt, eff))
        cpu = (cpu_ns(p.pid) - cpu0) / 1e6 / (2 * self.args.reps) * 1000
        self.idle_and_footprint('GameMode', p, cpu)

    def run_ppd(self, exe):
        polkit = self.start([sys.executable, '-m', 'dbusmock', '--template', 'polkitd'],
                            self.bus.env, 'polkit')
        conn = dbus.bus.BusConnection(self.bus.address)
        if not self.wait_name(conn, 'org.freedesktop.PolicyKit1', polkit):
            self.skipped.append(('power-profiles-daemon', 'no polkit mock: ' + self.log_of('polkit')))
            return
        dbus.Interface(conn.get_object('org.freedesktop.PolicyKit1',
                                       '/org/freedesktop/PolicyKit1/Authority'),
                       'org.freedesktop.DBus.Mock').SetAllowed(
            ['net.hadess.PowerProfiles.hold-profile', 'net.hadess.PowerProfiles.switch-profile'])
        varlib = os.path.join(self.tmp, 'varlib')
        os.makedirs(varlib)
        p = self.start(['unshare', '--mount', '--propagation', 'private', 'sh', '-c',
                        f'mount --bind "{varlib}" /var/lib && exec "{exe}"'],
                       dict(self.bus.env, POWER_PROFILE_DAEMON_FAKE_DRIVER='1'), 'ppd')
        if not self.wait_name(conn, PPD[0], p):
            self.skipped.append(('power-profiles-daemon', 'did not start: ' + self.log_of('ppd')))
            return
        ppd = dbus.Interface(conn.get_object(PPD[0], PPD[1]), PPD[2])
        watcher = dbus.bus.BusConnection(self.bus.address)
        props = dbus.Interface(watcher.get_object(PPD[0], PPD[1]), 'org.freedesktop.DBus.Properties')
        if 'performance' not in [str(x['Profile']) for x in props.Get(PPD[2], 'Profiles')]:
            self.skipped.append(('power-profiles-daemon', 'no performance profile'))
            return
        cpu0 = cpu_ns(p.pid)
        rtt, eff = [], []
        for _ in range(self.args.reps):
            t0 = time.perf_counter_ns()
            try:
                cookie = ppd.HoldProfile('performance', 'bench', 'bench')
            except dbus.exceptions.DBusException as e:
                self.skipped.append(('power-profiles-daemon', f'HoldProfile: {e.get_dbus_name()}'))
                return
            t_rtt = time.perf_counter_ns()
            while str(props.Get(PPD[2], 'ActiveProfile')) != 'performance':
                if time.perf_counter_ns() - t0 > 5e9:
                    raise RuntimeError('the profile never changed')
            t1 = time.perf_counter_ns()
            ppd.ReleaseProfile(cookie)
            rtt.append((t_rtt - t0) / 1e6)
            eff.append((t1 - t0) / 1e6)
        self.rows.append(('power-profiles-daemon', 'HoldProfile(performance) (ReleaseProfile between)',
                          rtt, eff))
        cpu = (cpu_ns(p.pid) - cpu0) / 1e6 / (2 * self.args.reps) * 1000
        self.idle_and_footprint('power-profiles-daemon', p, cpu)

    def report(self):
        out = ['| daemon | request | round trip, median (ms) | p99 | until applied, median (ms) | p99 |',
               '|---|---|---:|---:|---:|---:|']
        for d, what, rtt, eff in self.rows:
            out.append(f'| {d} | {what} | {percentile(rtt, 50):.3f} | {percentile(rtt, 99):.3f} | '
                       f'{percentile(eff, 50):.3f} | {percentile(eff, 99):.3f} |')
        out += ['', '| daemon | peak RSS (KiB) | CPU per 1 000 requests (ms) | idle: context switches per minute |',
                '|---|---:|---:|---:|']
        for d, rss, cpu, sw in self.footprint:
            out.append(f'| {d} | {rss} | {cpu:.1f} | {sw:.0f} |')
        for d, why in self.skipped:
            out.append(f'\n{d} skipped: {why.strip().splitlines()[-1] if why.strip() else why}')
        return '\n'.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--boostd', default=os.path.join(TOP, 'build/meson/daemon/boostd'))
    ap.add_argument('--pkgs', default=os.path.join(TOP, 'build/bench/pkgs'),
                    help='where gamemode-daemon and power-profiles-daemon are unpacked')
    ap.add_argument('--reps', type=int, default=200)
    ap.add_argument('--idle-seconds', type=float, default=60.0)
    ap.add_argument('--quick', action='store_true', help='20 repetitions, 5 s idle')
    ap.add_argument('--json', help='write the figures to this file too')
    a = ap.parse_args()
    if a.quick:
        a.reps, a.idle_seconds = 20, 5.0
    if not os.access(a.boostd, os.X_OK):
        sys.exit(f'{a.boostd} missing: build with meson first (tests/run-daemon-tests)')
    p = Peers(a)
    try:
        p.run_boostd()
        gm = os.path.join(a.pkgs, 'usr/bin/gamemoded')
        if os.access(gm, os.X_OK):
            p.run_gamemode(gm)
        else:
            p.skipped.append(('GameMode', f'{gm} missing (tests/bench/run unpacks it)'))
        ppd = os.path.join(a.pkgs, 'usr/libexec/power-profiles-daemon')
        if os.access(ppd, os.X_OK):
            p.run_ppd(ppd)
        else:
            p.skipped.append(('power-profiles-daemon', f'{ppd} missing (tests/bench/run unpacks it)'))
    finally:
        p.close()
    print(f'boostd and its peers: {a.reps} requests each, {os.cpu_count()} CPUs, '
          f'{os.uname().release}\n')
    print(p.report())
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'rows': [(d, w, r, e) for d, w, r, e in p.rows],
                       'footprint': p.footprint, 'skipped': p.skipped}, f, indent=1)
    return 0 if any(r[0] == 'boostd' for r in p.rows) else 1


if __name__ == '__main__':
    sys.exit(main())
