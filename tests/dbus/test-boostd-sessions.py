#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Integration tests of boostd's work sessions (org.boostd.Session1) on a
real private D-Bus daemon. The caller is this process: its sessions name
threads of its own, real ones in /proc; what boostd gives a thread shows in
the file proc/TID/util_min of the temporary root, which the test creates
for each thread (boostd's test seam for uclamp.min: the build machine's
kernel may have no uclamp; the guest system test uses the real one).

Usage: test-boostd-sessions.py BOOSTD BOOSTCTL
"""

import os
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import boostd_harness as harness  # noqa: E402  (exits 77 without dbus and dbusmock)

import dbus  # noqa: E402  (checked by the harness)

from boostd_harness import ERR, NAME, eventually  # noqa: E402

SESSION_IFACE = 'org.boostd.Session1'
T = 16666667    # a 60 Hz frame, ns


class Threads:
    """n threads of this process that wait until stop()."""

    def __init__(self, n):
        self.done = threading.Event()
        self.tids = []
        ready = threading.Barrier(n + 1)

        def body():
            self.tids.append(threading.get_native_id())
            ready.wait()
            self.done.wait()
        self.threads = [threading.Thread(target=body) for _ in range(n)]
        for t in self.threads:
            t.start()
        ready.wait()

    def stop(self):
        self.done.set()
        for t in self.threads:
            t.join()


class SessionsTest(harness.BoostdTest):
    def setUp(self):
        super().setUp()
        self.polkit.SetAllowed(['org.boostd.session'])
        self.workers = Threads(3)
        for t in self.workers.tids:
            self.clamp_file(t, 0)

    def tearDown(self):
        try:
            super().tearDown()
        finally:
            self.workers.stop()

    def clamp_file(self, tid, value=None):
        path = f'{self.root}/proc/{tid}/util_min'
        if value is not None:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(f'{value}\n')
        return path

    def util_min(self, tid):
        with open(self.clamp_file(tid)) as f:
            return int(f.read())

    def create(self, tids, target=T, bus=None):
        for t in tids:
            if not os.path.exists(self.clamp_file(t)):
                self.clamp_file(t, 0)
        iface = dbus.Interface((bus or self.sysbus).get_object(NAME, '/org/boostd/Boost1'),
                               'org.boostd.Boost1')
        path = iface.CreateSession(dbus.Array(tids, signature='u'), dbus.UInt64(target))
        return self.session(path, bus)

    def session(self, path, bus=None):
        obj = (bus or self.sysbus).get_object(NAME, path)
        return dbus.Interface(obj, SESSION_IFACE), dbus.Interface(obj, dbus.PROPERTIES_IFACE)

    def drop_in(self, name, text):
        """boostd again with a drop-in of the configuration."""
        self.stop_daemon()
        os.makedirs(f'{self.root}/etc/boostd.conf.d', exist_ok=True)
        with open(f'{self.root}/etc/boostd.conf.d/{name}', 'w') as f:
            f.write(text)
        self.start_daemon()

    def without_integral(self):
        # the integral runs on boostd's clock (the time between reports):
        # with it, what a report does here would depend on how many
        # milliseconds the test took between calls; the controller's unit
        # tests check it with a clock of their own
        self.drop_in('00-no-integral.conf', '[Sessions]\nIntegral=0\n')

    def report(self, s, *actual):
        s.ReportActualWorkDurations(dbus.Array([dbus.Struct((dbus.UInt64(i + 1), dbus.UInt64(a)))
                                                for i, a in enumerate(actual)], signature='(tt)'))

    def assertDBusError(self, name, fn, *args):
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            fn(*args)
        self.assertEqual(cm.exception.get_dbus_name(), name, cm.exception.get_dbus_message())
        return cm.exception.get_dbus_message()

    def test_loop_and_give_back(self):
        self.without_integral()
        a, b, c = self.workers.tids
        self.clamp_file(b, 250)
        s, props = self.create([a, b])
        # the initial output at once, on both threads
        self.assertEqual(self.util_min(a), 100)
        self.assertEqual(self.util_min(b), 100)
        self.assertEqual(props.Get(SESSION_IFACE, 'Boost'), 100)
        self.assertEqual(list(props.Get(SESSION_IFACE, 'Threads')), [a, b])
        self.assertEqual(props.Get(SESSION_IFACE, 'Target'), T)
        # frames over their target raise it: 1 ms over is +80 (by hand:
        # P 50, D 30.12), far over reaches the high bound
        self.report(s, T + 1000000)
        self.assertEqual(self.util_min(a), 180)
        self.report(s, 3 * T, 3 * T)
        self.assertEqual(self.util_min(a), 384)
        self.assertEqual(props.Get(SESSION_IFACE, 'Boost'), 384)
        # under the target it comes down
        self.report(s, T // 2)
        self.assertLess(self.util_min(a), 384)
        # SetThreads: b leaves and gets its 250 back, c joins
        s.SetThreads(dbus.Array([a, c], signature='u'))
        self.assertEqual(self.util_min(b), 250)
        self.assertEqual(self.util_min(c), self.util_min(a))
        # hints: load-reset keeps a value above the initial one and gives
        # LoadUp (384) until the next report
        before = self.util_min(a)
        self.assertGreater(before, 100)
        s.SendHint('load-reset')
        self.assertEqual(self.util_min(a), 384)
        self.report(s, T)
        self.assertEqual(self.util_min(a), before)
        s.SendHint('load-up')
        self.assertEqual(self.util_min(a), 384)
        s.SendHint('load-down')
        self.assertEqual(self.util_min(a), 0)
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', s.SendHint, 'load-sideways')
        s.UpdateTargetWorkDuration(dbus.UInt64(2 * T))
        self.assertEqual(props.Get(SESSION_IFACE, 'Target'), 2 * T)
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', s.UpdateTargetWorkDuration,
                             dbus.UInt64(99999))
        self.assertEqual(props.Get(SESSION_IFACE, 'Target'), 2 * T)
        # Sessions on Boost1, and boostctl sessions
        listed = self.props.Get('org.boostd.Boost1', 'Sessions')
        self.assertEqual(len(listed), 1)
        self.assertEqual(listed[0][1], os.getpid())
        self.assertEqual(listed[0][3], 2)
        r = self.boostctl('why', str(c))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, rf'thread {c} is in work session /org/boostd/Boost1/session/\d+: '
                         r'uclamp.min 0\n')
        r = self.boostctl('why', str(b))
        self.assertNotIn('work session', r.stdout)
        r = self.boostctl('sessions')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, rf'/org/boostd/Boost1/session/\d+ +pid {os.getpid()} +uid 0 '
                         r'+threads 2 +boost 0\n')
        # Close gives every value back (0 as a reset, which reads 0)
        s.Close()
        self.assertEqual(self.util_min(a), 0)
        self.assertEqual(self.util_min(c), 0)
        self.assertEqual(self.util_min(b), 250)
        # its object is gone with it
        self.assertDBusError('org.freedesktop.DBus.Error.UnknownObject', s.Close)
        self.assertEqual(len(self.props.Get('org.boostd.Boost1', 'Sessions')), 0)

    def test_bad_calls_change_nothing(self):
        a, b, _ = self.workers.tids
        other = subprocess.Popen(['setpriv', *harness.as_user('nobody'), 'sleep', '60'])
        self.children.append(other)
        eventually(lambda: os.stat(f'/proc/{other.pid}').st_uid != 0, msg='sleep as nobody')
        self.clamp_file(other.pid, 0)
        # a thread of another user's process, none, twice, a bad target
        msg = self.assertDBusError(ERR + 'NoSuchProcess', self.create, [a, other.pid])
        self.assertIn("caller's process", msg)
        self.assertEqual(self.util_min(a), 0)
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.create, [])
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.create, [a, a])
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.create, [a], 99999)
        self.assertEqual(len(self.props.Get('org.boostd.Boost1', 'Sessions')), 0)
        # another client cannot drive this client's session
        s, _ = self.create([a])
        other_bus = dbus.bus.BusConnection(self.addr)
        s2, _ = self.session(s.object_path, other_bus)
        self.assertDBusError('org.freedesktop.DBus.Error.AccessDenied', self.report, s2, 3 * T)
        self.assertDBusError('org.freedesktop.DBus.Error.AccessDenied', s2.Close)
        self.assertEqual(self.util_min(a), 100)
        # bad reports: empty, a zero duration, too many
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.report, s)
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.report, s, T, 0)
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.report, s, *([T] * 65))
        self.assertDBusError(ERR + 'NoSuchProcess', s.SetThreads,
                             dbus.Array([b, other.pid], signature='u'))
        self.assertEqual(self.util_min(a), 100)
        self.assertEqual(self.util_min(b), 0)
        other_bus.close()

    def test_report_with_cpu_and_gpu_parts(self):
        # ReportActualWorkDurations2: (start, total, cpu, gpu), Android's
        # AWorkDuration; the total drives the controller, the parts are
        # checked and not acted on
        self.without_integral()
        a, b, _ = self.workers.tids
        s, _ = self.create([a])
        ref, _ = self.create([b])

        def report2(*items):
            s.ReportActualWorkDurations2(dbus.Array([dbus.Struct(tuple(dbus.UInt64(v) for v in it))
                                                     for it in items], signature='(tttt)'))
        self.assertIn('start above 0', self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', report2, (0, 3 * T, T, 0)))
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', report2, (5, 3 * T, 0, 0))
        self.assertEqual(self.util_min(a), 100)
        # a late frame, mostly the GPU's: as late as a late frame is
        report2((5, 3 * T, T // 10, 3 * T))
        self.report(ref, 3 * T)
        self.assertGreater(self.util_min(a), 100)
        self.assertEqual(self.util_min(a), self.util_min(b))
        # then an early one, through either method
        report2((5 + 3 * T, T // 2, T // 2, 0))
        self.report(ref, T // 2)
        self.assertEqual(self.util_min(a), self.util_min(b))

    def test_android_hints_and_power_efficiency(self):
        # the Pixel profile through a drop-in: its bounds, its heuristic
        # boost, its spike and power-efficiency rules over the bus
        self.drop_in('50-pixel.conf', '[Sessions]\nProfile=pixel-2024\n')
        # a target of 1 s: stale after 15 s, whatever the test's pace
        T = 1000000000
        a, b, _ = self.workers.tids
        s, props = self.create([a], target=T)
        self.assertEqual(self.util_min(a), 231)
        self.assertEqual(props.Get(SESSION_IFACE, 'JankLevel'), 'light')
        self.assertEqual(props.Get(SESSION_IFACE, 'PreferPowerEfficiency'), False)
        # an announced spike: LoadUp (480) now, and the spiked frame is
        # not fed: the report moves the output as the other frame alone
        s.SendHint('workload-spike')
        self.assertEqual(self.util_min(a), 480)
        ref, _ = self.create([b], target=T)
        self.report(s, T, 4 * T)
        self.report(ref, T)
        self.assertEqual(self.util_min(a), self.util_min(b))
        self.assertEqual(props.Get(SESSION_IFACE, 'JankLevel'), 'light')
        ref.Close()
        # janks: 8 of them make it severe, the output above 480
        for _ in range(4):
            self.report(s, 2 * T, 2 * T)
        self.assertEqual(props.Get(SESSION_IFACE, 'JankLevel'), 'severe')
        self.assertGreater(self.util_min(a), 480)
        time.sleep(0.55)        # the client's bucket full again (one per 50 ms)
        # prefer power efficiency: down to 231 at once, announced once
        mon = subprocess.Popen(['dbus-monitor', '--address', self.addr,
                                f"type='signal',member='PropertiesChanged',path='{s.object_path}'"],
                               stdout=subprocess.PIPE, text=True)
        self.addCleanup(mon.kill)
        lines = []
        threading.Thread(target=lambda: lines.extend(mon.stdout), daemon=True).start()
        eventually(lambda: any('NameAcquired' in l or 'signal' in l for l in lines), msg='dbus-monitor')
        s.SetPreferPowerEfficiency(True)
        self.assertEqual(self.util_min(a), 231)
        self.assertEqual(props.Get(SESSION_IFACE, 'PreferPowerEfficiency'), True)
        s.SendHint('workload-increase')
        self.assertEqual(self.util_min(a), 231)
        s.SetPreferPowerEfficiency(True)
        s.SetPreferPowerEfficiency(False)
        eventually(lambda: sum('PreferPowerEfficiency' in l for l in lines) >= 2,
                   msg='the changes announced')
        # on, on again (no change: not announced), off
        self.assertEqual(sum('PreferPowerEfficiency' in l for l in lines), 2)
        self.report(s, 2 * T)
        self.assertGreater(self.util_min(a), 480)
        # an unknown hint changes nothing
        v = self.util_min(a)
        msg = self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', s.SendHint, 'workload-sideways')
        self.assertIn('workload-spike', msg)
        self.assertEqual(self.util_min(a), v)

    def test_rate_limit(self):
        a = self.workers.tids[0]
        s, _ = self.create([a])
        for _ in range(10):
            self.report(s, T)
        msg = self.assertDBusError(ERR + 'RateLimited', self.report, s, 3 * T)
        self.assertIn('batch', msg)
        # the rejected report changed nothing
        self.assertEqual(self.util_min(a), 100)

    def test_crash_gives_values_back_at_start(self):
        # boostd killed with a session open: its restart gives the
        # thread the value it had before its session, from the journal
        a, b, _ = self.workers.tids
        self.clamp_file(a, 33)
        bus = dbus.bus.BusConnection(self.addr)
        s, _ = self.create([a, b], bus=bus)
        self.report(s, 3 * T)
        self.assertEqual(self.util_min(a), 384)
        with open(f'{self.root}/run/boostd/journal') as f:
            self.assertIn(f'clamp {a} ', f.read())
        self.stop_daemon(signal.SIGKILL)
        bus.close()
        self.assertEqual(self.util_min(a), 384)
        self.start_daemon()
        self.assertEqual(self.util_min(a), 33)
        self.assertEqual(self.util_min(b), 0)
        with open(self.log_path()) as f:
            self.assertIn('uclamp.min they had before hint sessions of an earlier run', f.read())
        journal = f'{self.root}/run/boostd/journal'
        if os.path.exists(journal):
            with open(journal) as f:
                self.assertNotIn('clamp ', f.read())

    def test_one_track_per_client(self):
        # a client's sessions share one match rule of boostd's on the bus
        stats = dbus.Interface(self.sysbus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus'),
                               'org.freedesktop.DBus.Debug.Stats')
        owner = self.sysbus.get_name_owner(NAME)

        def rules():
            return int(stats.GetConnectionStats(owner)['MatchRules'])
        before = rules()
        a, b, c = self.workers.tids
        bus = dbus.bus.BusConnection(self.addr)
        for t in (a, b, c):
            self.create([t], bus=bus)
        self.assertEqual(rules(), before + 1)
        other = dbus.bus.BusConnection(self.addr)
        self.create([a], bus=other)
        self.assertEqual(rules(), before + 2)
        bus.close()
        eventually(lambda: len(self.props.Get('org.boostd.Boost1', 'Sessions')) == 1,
                   msg="the first client's three sessions closed")
        eventually(lambda: rules() == before + 1, msg='its track gone')
        other.close()
        eventually(lambda: rules() == before, msg='the last track gone')

    def test_client_leaving_closes(self):
        a, b, _ = self.workers.tids
        self.clamp_file(a, 33)
        bus = dbus.bus.BusConnection(self.addr)
        s, _ = self.create([a, b], bus=bus)
        self.report(s, 3 * T)
        self.assertEqual(self.util_min(a), 384)
        bus.close()
        eventually(lambda: self.util_min(a) == 33, msg='value given back')
        self.assertEqual(self.util_min(b), 0)
        eventually(lambda: len(self.props.Get('org.boostd.Boost1', 'Sessions')) == 0,
                   msg='session closed')

    def test_stale_and_limits(self):
        a = self.workers.tids[0]
        # a 1 ms target: stale 10 ms after the last report, at the low bound
        s, props = self.create([a], target=1000000)
        self.report(s, 3000000)
        self.assertEqual(self.util_min(a), 384)
        eventually(lambda: self.util_min(a) == 0, msg='stale session at the low bound')
        self.assertTrue(props.Get(SESSION_IFACE, 'Stale'))
        self.report(s, 3000000)
        self.assertEqual(self.util_min(a), 384)
        self.assertFalse(props.Get(SESSION_IFACE, 'Stale'))
        # at most 4 sessions per client
        for _ in range(3):
            self.create([a])
        self.assertDBusError(ERR + 'TooManySessions', self.create, [a])

    def unprivileged_create(self, tid=None):
        """CreateSession of a client running as nobody for thread tid (its
        own main thread by default): what it printed, the error's name or
        the session's path."""
        helper = subprocess.Popen(
            ['setpriv', *harness.as_user('nobody'), sys.executable, '-c', UNPRIVILEGED, self.addr],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.children.append(helper)
        tid = tid or helper.pid
        self.clamp_file(tid, 0)
        helper.stdin.write(f'{tid}\n')
        helper.stdin.flush()
        out = helper.stdout.readline().strip()
        helper.stdin.close()
        helper.wait(20)
        return out

    def test_set_threads_keeps_the_action_granted(self):
        # a session made with org.boostd.session (its own thread) may not
        # take another process's thread later, even of its user, even when
        # polkit would grant org.boostd.session-any now
        theirs = subprocess.Popen(['setpriv', *harness.as_user('nobody'), 'sleep', '60'])
        self.children.append(theirs)
        eventually(lambda: os.stat(f'/proc/{theirs.pid}').st_uid != 0, msg='sleep as nobody')
        self.clamp_file(theirs.pid, 0)
        self.polkit.SetAllowed(['org.boostd.session', 'org.boostd.session-any'])
        helper = subprocess.Popen(
            ['setpriv', *harness.as_user('nobody'), sys.executable, '-c', UNPRIVILEGED, self.addr],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.children.append(helper)
        self.clamp_file(helper.pid, 0)
        helper.stdin.write(f'{helper.pid}\n')
        helper.stdin.flush()
        self.assertRegex(helper.stdout.readline().strip(), r'^/org/boostd/Boost1/session/\d+$')
        helper.stdin.write(f'{theirs.pid}\n')
        helper.stdin.flush()
        self.assertEqual(helper.stdout.readline().strip(), ERR + 'NoSuchProcess')
        self.assertEqual(self.util_min(theirs.pid), 0)
        # its own thread, again: fine
        helper.stdin.write(f'{helper.pid}\n')
        helper.stdin.flush()
        self.assertEqual(helper.stdout.readline().strip(), 'ok')
        helper.stdin.close()
        helper.wait(20)

    def test_needs_authorization(self):
        self.polkit.SetAllowed(dbus.Array([], signature='s'))
        self.assertEqual(self.unprivileged_create(), 'org.freedesktop.DBus.Error.AccessDenied')
        self.assertEqual(len(self.props.Get('org.boostd.Boost1', 'Sessions')), 0)
        self.polkit.SetAllowed(['org.boostd.session'])
        self.assertRegex(self.unprivileged_create(), r'^/org/boostd/Boost1/session/\d+$')
        # it left the bus: its session is gone
        eventually(lambda: len(self.props.Get('org.boostd.Boost1', 'Sessions')) == 0,
                   msg='session closed')

    def test_threads_of_other_processes(self):
        theirs = subprocess.Popen(['setpriv', *harness.as_user('nobody'), 'sleep', '60'])
        self.children.append(theirs)
        eventually(lambda: os.stat(f'/proc/{theirs.pid}').st_uid != 0, msg='sleep as nobody')
        # another process of the same user takes org.boostd.session-any
        self.polkit.SetAllowed(['org.boostd.session'])
        self.assertEqual(self.unprivileged_create(theirs.pid), 'org.freedesktop.DBus.Error.AccessDenied')
        self.polkit.SetAllowed(['org.boostd.session', 'org.boostd.session-any'])
        self.assertRegex(self.unprivileged_create(theirs.pid), r'^/org/boostd/Boost1/session/\d+$')
        # another user's process, not even with it
        self.assertEqual(self.unprivileged_create(self.workers.tids[0]),
                         ERR + 'NoSuchProcess')
        eventually(lambda: len(self.props.Get('org.boostd.Boost1', 'Sessions')) == 0,
                   msg='sessions closed')


class SessionsPoolTest(harness.BoostdTest):
    """A kernel with SchedTune and no uclamp: the threads' folders under
    proc/ of the root have no util_min (boostd's seam says "no uclamp"),
    so the outputs go to pool groups of the schedtune tree."""

    clamp_file = SessionsTest.clamp_file
    session = SessionsTest.session
    report = SessionsTest.report
    assertDBusError = SessionsTest.assertDBusError

    def setUp(self):
        super().setUp()
        self.polkit.SetAllowed(['org.boostd.session'])
        self.workers = Threads(2)
        for t in self.workers.tids:
            os.makedirs(f'{self.root}/proc/{t}', exist_ok=True)

    def tearDown(self):
        try:
            super().tearDown()
        finally:
            self.workers.stop()

    def create(self, tids, target=T, bus=None):
        iface = dbus.Interface((bus or self.sysbus).get_object(NAME, '/org/boostd/Boost1'),
                               'org.boostd.Boost1')
        path = iface.CreateSession(dbus.Array(tids, signature='u'), dbus.UInt64(target))
        return self.session(path, bus)

    def tasks(self, group):
        d = '' if group == 'root' else group
        try:
            with open(f'{self.root}/dev/stune/{d}/tasks') as f:
                return [int(x) for x in f.read().split()]
        except FileNotFoundError:
            return []

    def test_pool(self):
        a, b = self.workers.tids
        s, props = self.create([a])
        self.assertFalse(os.path.exists(self.clamp_file(a)))
        # the initial output, 100 of 1024 (9.8 %): the first step, 20
        self.assertEqual(self.tasks('session.20'), [a])
        self.assertEqual(self.boost_file('session.20'), 20)
        self.assertEqual(props.Get(SESSION_IFACE, 'Group'), 'session.20')
        self.assertEqual(self.tasks('root'), [])
        # the high bound, 384 (37.5 %): the step above, 40
        self.report(s, 3 * T)
        self.assertEqual(props.Get(SESSION_IFACE, 'Boost'), 384)
        self.assertEqual(props.Get(SESSION_IFACE, 'Group'), 'session.40')
        self.assertEqual(self.tasks('session.40'), [a])
        self.assertEqual(self.tasks('session.20'), [])
        self.assertEqual(self.boost_file('session.40'), 40)
        r = self.boostctl('why', str(a))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, rf'thread {a} is in work session /org/boostd/Boost1/session/\d+: '
                         r'output 384 of 1024, group session.40\n')
        # load-down: the low bound, 0, is no pool group: back home
        s.SendHint('load-down')
        self.assertEqual(props.Get(SESSION_IFACE, 'Group'), '')
        self.assertEqual(self.tasks('root'), [a])
        self.assertEqual(self.tasks('session.40'), [])
        # a second thread joins at the output of now; Close sends both home
        s.SendHint('load-up')
        s.SetThreads(dbus.Array([a, b], signature='u'))
        self.assertEqual(sorted(self.tasks('session.40')), sorted([a, b]))
        s.Close()
        self.assertEqual(sorted(self.tasks('root')), sorted([a, b]))
        # the pool groups go with boostd
        self.stop_daemon()
        self.assertFalse(os.path.exists(f'{self.root}/dev/stune/session.20'))
        self.assertFalse(os.path.exists(f'{self.root}/dev/stune/session.40'))
        self.assertTrue(os.path.exists(f'{self.root}/dev/stune/performance'))
        self.start_daemon()

    def test_uclamp_only(self):
        self.stop_daemon()
        with open(f'{self.root}/etc/boostd.conf', 'a') as f:
            f.write('[Sessions]\nActuator=uclamp\n')
        self.start_daemon()
        a, _ = self.workers.tids
        self.assertDBusError(ERR + 'BackendFailed', self.create, [a])
        self.assertEqual(len(self.props.Get('org.boostd.Boost1', 'Sessions')), 0)
        self.assertFalse(os.path.exists(f'{self.root}/dev/stune/session.20'))


# A client of its own: reads a thread's id, asks for a session for it,
# prints the session's path or the error's name; then for each further
# line (a thread's id) calls SetThreads with it and prints "ok" or the
# error's name, until the end of its input.
UNPRIVILEGED = """
import os, sys, dbus
bus = dbus.bus.BusConnection(sys.argv[1])
b = dbus.Interface(bus.get_object('org.boostd.Boost1', '/org/boostd/Boost1'), 'org.boostd.Boost1')
tid = int(sys.stdin.readline())
path = None
try:
    path = b.CreateSession(dbus.Array([tid], signature='u'), dbus.UInt64(16666667))
    print(path, flush=True)
except dbus.exceptions.DBusException as e:
    print(e.get_dbus_name(), flush=True)
for line in sys.stdin:
    s = dbus.Interface(bus.get_object('org.boostd.Boost1', path), 'org.boostd.Session1')
    try:
        s.SetThreads(dbus.Array([int(line)], signature='u'))
        print('ok', flush=True)
    except dbus.exceptions.DBusException as e:
        print(e.get_dbus_name(), flush=True)
"""


if __name__ == '__main__':
    harness.main(__doc__)
