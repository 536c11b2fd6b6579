#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Integration tests of boostd's process classification in auto mode on a
real private D-Bus daemon, against a temporary root: a fake cgroup v2 tree
at <root>/sys/fs/cgroup whose units the test makes, with the PIDs of real
sleep processes in their cgroup.procs; the proc root (BOOSTD_PROC_ROOT) is
<root>/proc, where each of them links to its real files but has the cgroup
the fake tree gives it;
exec and exit events through the BOOSTD_EXEC_SOURCE socket; GameMode's
signals from a python-dbusmock service that owns
com.feralinteractive.GameMode on the private bus. What boostd does shows
in the fake schedtune tree's <group>/cgroup.procs.

Usage: test-boostd-procs.py BOOSTD BOOSTCTL
"""

import os
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import boostd_harness as harness  # noqa: E402  (exits 77 without dbus and dbusmock)

import dbus  # noqa: E402  (checked by the harness)
import dbusmock  # noqa: E402

from boostd_harness import IFACE, eventually, never  # noqa: E402
from benchlib import fake_proc  # noqa: E402  (the harness put tests/bench on the path)

GM_NAME = 'com.feralinteractive.GameMode'
GM_PATH = '/com/feralinteractive/GameMode'
GM_IFACE = 'com.feralinteractive.GameMode'

CONFIG = '''[Rule:foo]
Unit=foo.service
Class=background
[Rule:steam]
Unit=app-steam-*.scope
Manager=user
Class=performance
[Rule:builds]
Slice=build.slice
Class=background
[Rule:ticker]
Comm=ticker
Class=performance
[Rule:pinned]
Comm=pinned
Class=background
Pin=yes
'''

USER_APPS = 'user.slice/user-1000.slice/user@1000.service/app.slice'


class ProcsTest(harness.BoostdTest):
    def setUp(self):
        self.root = os.path.join(self.tmp, 'root-' + self.id().split('.')[-1])
        harness.make_tree(self.root)
        with open(f'{self.root}/etc/boostd.conf', 'w') as f:
            f.write(CONFIG)
        os.makedirs(f'{self.root}/sys/fs/cgroup/system.slice')
        # programs whose comm is their name: symlinks to sleep
        self.bin = os.path.join(self.root, 'bin')
        os.makedirs(self.bin)
        for name in ('ticker', 'pinned'):
            os.symlink(shutil.which('sleep'), os.path.join(self.bin, name))
        self.sock = os.path.join(self.root, 'exec.sock')
        self.proc = os.path.join(self.root, 'proc')
        self.daemon_env = {'BOOSTD_EXEC_SOURCE': self.sock, 'BOOSTD_PROC_ROOT': self.proc}
        self.client = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.children = []
        self.gamemode = None
        self.polkit.SetAllowed(dbus.Array([], signature='s'))
        self.daemon = None
        self.start_daemon()

    def tearDown(self):
        self.client.close()
        if self.gamemode:
            self.gamemode.terminate()
            self.gamemode.wait()
        super().tearDown()

    # helpers
    def spawn(self, name='sleep'):
        prog = os.path.join(self.bin, name) if name != 'sleep' else 'sleep'
        p = subprocess.Popen([prog, '300'])
        self.children.append(p)
        eventually(lambda: self.comm(p.pid) == name, msg=f'{name} running')
        self.proc_cgroup(p.pid, '/')
        return p.pid

    def proc_cgroup(self, pid, cgroup):
        """The process as boostd sees it: its real files, this cgroup."""
        fake_proc(self.proc, pid, cgroup)

    @staticmethod
    def comm(pid):
        with open(f'/proc/{pid}/comm') as f:
            return f.read().strip()

    def unit(self, path, *pids):
        """Makes (or fills) a unit's directory, as systemd does."""
        d = f'{self.root}/sys/fs/cgroup/{path}'
        os.makedirs(d, exist_ok=True)
        for p in pids:
            self.proc_cgroup(p, f'/{path}')
        with open(f'{d}/cgroup.procs', 'w') as f:
            f.write(''.join(f'{p}\n' for p in pids))

    def in_group(self, group, pid):
        return pid in self.procs_file(group)

    def wait_in(self, group, pid, msg=None):
        eventually(lambda: self.in_group(group, pid), msg=msg or f'{pid} in {group}')

    def event(self, kind, pid):
        self.client.sendto(f'{kind} {pid}'.encode(), self.sock)

    def log(self):
        with open(self.log_path()) as f:
            return f.read()

    def journal(self):
        """The list of placed PIDs (the journal's part that grows)."""
        try:
            with open(f'{self.root}/run/boostd/placed') as f:
                return f.read()
        except FileNotFoundError:
            return ''


    def start_gamemode(self):
        self.gamemode = self.spawn_server(GM_NAME, GM_PATH, GM_IFACE, system_bus=True,
                                          stdout=subprocess.DEVNULL)
        mock = dbus.Interface(self.sysbus.get_object(GM_NAME, GM_PATH), dbusmock.MOCK_IFACE)
        mock.AddMethod('', 'ListGames', '', 'a(io)', 'ret = dbus.Array([], signature="(io)")')
        eventually(lambda: 'GameMode: service on the bus' in self.log(), msg='boostd sees GameMode')
        return mock

    @staticmethod
    def game_args(pid):
        return [dbus.Int32(pid), dbus.ObjectPath(f'{GM_PATH}/Games/{pid}')]

    # tests
    def test_units_existing_before_start(self):
        self.stop_daemon()
        a, b, c = self.spawn(), self.spawn(), self.spawn()
        self.unit('system.slice/foo.service', a, b)
        self.unit('build.slice/inner.slice/make-1.scope', c)
        self.start_daemon()
        # placed before boostd answers its first call
        for pid in (a, b, c):
            self.assertTrue(self.in_group('background', pid), pid)

    def test_units_appearing_after_start(self):
        a, b, c = self.spawn(), self.spawn(), self.spawn()
        self.unit('system.slice/foo.service', a)
        self.wait_in('background', a)
        # a user manager's app scope, with all its parents new
        self.unit(f'{USER_APPS}/app-steam-9.scope', b)
        self.wait_in('performance', b)
        # a process moved into a known unit later
        self.unit('system.slice/foo.service', a, c)
        self.wait_in('background', c)
        self.assertNotIn(c, self.procs_file('performance'))

    def test_exec_events(self):
        t, s = self.spawn('ticker'), self.spawn()
        self.event('exec', t)
        self.event('exec', s)                # no rule: stays in root
        self.event('nonsense', 1)
        self.wait_in('performance', t)
        # recorded once the burst is handled (saves are batched)
        eventually(lambda: f'placed {t} ' in self.journal(), msg='placed recorded')
        self.assertNotIn(s, self.procs_file('performance') + self.procs_file('background'))
        # it exits: boostd forgets it
        p = next(c for c in self.children if c.pid == t)
        p.kill()
        p.wait()
        self.event('exit', t)
        eventually(lambda: f'placed {t} ' not in self.journal(), msg='exit forgotten')
        self.assertIsNone(self.daemon.poll())

    def test_foreground_takes_the_whole_unit(self):
        a, b, c = self.spawn(), self.spawn(), self.spawn()
        self.unit('system.slice/foo.service', a, b)
        self.wait_in('background', b)
        self.iface.SetForeground(dbus.UInt32(a))
        self.assertTrue(self.in_group('interactive', a))
        self.assertTrue(self.in_group('interactive', b))
        # focus elsewhere: the unit goes back to its rule
        self.iface.SetForeground(dbus.UInt32(c))
        self.assertEqual(self.procs_file('interactive'), [c])
        self.assertTrue(self.in_group('background', a))
        self.assertTrue(self.in_group('background', b))

    def spawn_as(self, user):
        p = subprocess.Popen(['setpriv', *harness.as_user(user), 'sleep', '300'])
        self.children.append(p)
        eventually(lambda: self.comm(p.pid) == 'sleep', msg='sleep running')
        self.proc_cgroup(p.pid, '/')
        return p.pid

    def test_own_foreground_takes_only_own_units(self):
        # nobody's processes in a system unit (a cron job, say) and in
        # nobody's own app scope
        self.polkit.SetAllowed(['org.boostd.classify'])
        a, b = self.spawn_as('nobody'), self.spawn_as('nobody')
        c, d = self.spawn_as('nobody'), self.spawn_as('nobody')
        self.unit('system.slice/cron.service', a, b)
        self.unit('user.slice/user-65534.slice/user@65534.service/app.slice/app-x.scope', c, d)
        r = self.busctl_as('nobody', 'call', harness.NAME, harness.PATH, IFACE, 'SetForeground', 'u', str(a))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(self.in_group('interactive', a))
        never(lambda: self.in_group('interactive', b), 0.5, msg='cron.service came up with its user\'s job')
        r = self.busctl_as('nobody', 'call', harness.NAME, harness.PATH, IFACE, 'SetForeground', 'u', str(c))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(self.procs_file('interactive')), sorted([c, d]))
        # root (the shell's compositor, say) names any process: its unit comes along
        self.iface.SetForeground(dbus.UInt32(a))
        self.assertEqual(sorted(self.procs_file('interactive')), sorted([a, b]))

    def test_authorized_process_is_the_one_moved(self):
        # polkit takes a second; meanwhile the PID comes to name another
        # process (as boostd sees it: another start time) -- nothing moves
        a, b = self.spawn_as('nobody'), self.spawn_as('nobody')
        self.polkit.SetAllowed(['org.boostd.classify'])
        self.polkit.SetDelay(1.0)
        try:
            call = subprocess.Popen(['setpriv', *harness.as_user('nobody'), 'busctl', f'--address={self.addr}',
                                     'call', harness.NAME, harness.PATH, IFACE, 'Classify', 'us', str(a),
                                     'performance'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(0.3)
            stat = f'{self.proc}/{a}/stat'
            os.unlink(stat)
            with open(f'/proc/{b}/stat') as f:
                fields = f.read().rsplit(') ', 1)
            start = fields[1].split()
            start[19] = str(int(start[19]) + 1000)        # field 22: another start time
            with open(stat, 'w') as f:
                f.write(f'{fields[0]}) ' + ' '.join(start) + '\n')
            out, err = call.communicate(timeout=20)
        finally:
            self.polkit.SetDelay(0.0)
        self.assertNotEqual(call.returncode, 0)
        self.assertIn('No process', err)
        self.assertNotIn(a, self.procs_file('performance'))

    def test_pidfd_methods(self):
        a = self.spawn()
        fd = os.pidfd_open(a)
        try:
            self.iface.ClassifyPidFD(dbus.types.UnixFd(fd), 'performance')
            self.assertIn(a, self.procs_file('performance'))
            self.iface.SetForegroundPidFD(dbus.types.UnixFd(fd))
            self.assertEqual(self.iface.GetProcess(dbus.UInt32(a))[2], 'classified')
        finally:
            os.close(fd)
        # an exited process's pidfd, and a descriptor that is no pidfd
        gone = subprocess.Popen(['true'])
        fd = os.pidfd_open(gone.pid)
        gone.wait()
        try:
            with self.assertRaises(dbus.exceptions.DBusException) as e:
                self.iface.ClassifyPidFD(dbus.types.UnixFd(fd), 'performance')
            self.assertEqual(e.exception.get_dbus_name(), harness.ERR + 'NoSuchProcess')
        finally:
            os.close(fd)
        with open('/dev/null') as f:
            with self.assertRaises(dbus.exceptions.DBusException) as e:
                self.iface.SetForegroundPidFD(dbus.types.UnixFd(f.fileno()))
            self.assertEqual(e.exception.get_dbus_name(), 'org.freedesktop.DBus.Error.InvalidArgs')

    def test_pinned_rule_outranks_foreground(self):
        p = self.spawn('pinned')
        self.event('exec', p)
        self.wait_in('background', p)
        self.iface.SetForeground(dbus.UInt32(p))
        self.assertTrue(self.in_group('background', p))
        self.assertEqual(self.procs_file('interactive'), [])

    def test_gamemode(self):
        mock = self.start_gamemode()
        g, pinned, classified, forged = (self.spawn(), self.spawn('pinned'), self.spawn(),
                                         self.spawn())
        self.unit('system.slice/foo.service', g)
        self.wait_in('background', g)
        mock.EmitSignal('', 'GameRegistered', 'io', self.game_args(g))
        self.wait_in('performance', g, 'game in performance')
        # Pin= and Classify() outrank GameMode
        self.event('exec', pinned)
        self.wait_in('background', pinned)
        self.iface.Classify(dbus.UInt32(classified), 'interactive')
        mock.EmitSignal('', 'GameRegistered', 'io', self.game_args(pinned))
        mock.EmitSignal('', 'GameRegistered', 'io', self.game_args(classified))
        eventually(lambda: f'PID {classified} registered' in self.log(), msg='registered')
        self.assertTrue(self.in_group('background', pinned))
        self.assertTrue(self.in_group('interactive', classified))
        # a signal from someone who does not own the name, sent straight to
        # boostd, does nothing
        msg = dbus.lowlevel.SignalMessage(GM_PATH, GM_IFACE, 'GameRegistered')
        msg.set_destination(self.sysbus.get_name_owner(harness.NAME))
        msg.append(*self.game_args(forged), signature='io')
        self.sysbus.send_message(msg)
        eventually(lambda: 'ignoring GameRegistered' in self.log(), msg='forged signal seen')
        self.assertNotIn(forged, self.procs_file('performance'))
        # unregistered: back to its rule
        mock.EmitSignal('', 'GameUnregistered', 'io', self.game_args(g))
        self.wait_in('background', g, 'game back to its rule')
        # registered again, then GameMode goes away: its games end
        mock.EmitSignal('', 'GameRegistered', 'io', self.game_args(g))
        self.wait_in('performance', g)
        self.gamemode.terminate()
        self.gamemode.wait()
        self.gamemode = None
        self.wait_in('background', g, 'games end with the service')

    def test_manual_mode_does_nothing(self):
        mock = self.start_gamemode()
        a, t, g = self.spawn(), self.spawn('ticker'), self.spawn()
        self.props.Set(IFACE, 'Mode', 'manual')
        self.unit('system.slice/foo.service', a)
        self.event('exec', t)
        mock.EmitSignal('', 'GameRegistered', 'io', self.game_args(g))
        eventually(lambda: f'PID {g} registered' in self.log(), msg='registered')
        never(lambda: any(self.procs_file(n) for n in ('background', 'performance')), 0.5,
              'a process placed in manual mode')
        # back to auto: the tree is read again, and games take their place
        self.props.Set(IFACE, 'Mode', 'auto')
        self.wait_in('background', a)
        self.wait_in('performance', g)
        self.assertNotIn(t, self.procs_file('performance'))   # its exec is past

    def test_tree_vanishes_and_comes_back(self):
        a, b = self.spawn(), self.spawn()
        self.unit('system.slice/foo.service', a)
        self.wait_in('background', a)
        shutil.rmtree(f'{self.root}/sys/fs/cgroup')
        eventually(lambda: 'vanished' in self.log(), msg='tree gone')
        time.sleep(0.1)
        self.unit(f'{USER_APPS}/app-steam-2.scope', b)
        self.wait_in('performance', b, 'unit in the new tree')
        eventually(lambda: 'is back' in self.log(), msg='tree back')
        self.assertEqual(self.log().count('vanished'), 1)
        self.assertEqual(self.log().count('is back'), 1)
        self.assertIsNone(self.daemon.poll())

    def test_clean_stop_puts_everyone_back(self):
        a, t = self.spawn(), self.spawn('ticker')
        self.unit('system.slice/foo.service', a)
        self.event('exec', t)
        self.wait_in('background', a)
        self.wait_in('performance', t)
        self.stop_daemon()
        self.assertEqual(sorted(self.procs_file('root')), sorted([a, t]))
        self.assertEqual(self.procs_file('background'), [])
        self.assertFalse(os.path.exists(self.sock))
        self.start_daemon()


if __name__ == '__main__':
    harness.main(__doc__, ('sleep',))
