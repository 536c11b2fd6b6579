#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Integration tests of boostd on a real private D-Bus daemon, against a
temporary tree laid out like /proc/cgroups and a mounted schedtune
hierarchy, with polkit mocked by python-dbusmock's polkitd template.

Usage: test-boostd-dbus.py BOOSTD BOOSTCTL
"""

import os
import pwd
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boostd_harness as harness  # noqa: E402  (exits 77 without dbus and dbusmock)
from boostd_harness import IFACE, ERR, NAME, PATH, GROUPS, eventually  # noqa: E402

import dbus  # noqa: E402


class DBusTest(harness.BoostdTest):
    def test_properties(self):
        self.assertEqual(self.props.Get(IFACE, 'Backend'), 'schedtune')
        # and why: what its probe found
        self.assertEqual(self.props.Get(IFACE, 'BackendReason'),
                         'the schedtune cgroup v1 controller is enabled in /proc/cgroups')
        self.assertRegex(self.boostctl('status').stdout,
                         r'\nBackend +schedtune\n  why +the schedtune cgroup v1 controller is enabled')
        self.assertEqual(self.props.Get(IFACE, 'Mode'), 'auto')
        self.assertEqual(self.props.Get(IFACE, 'PowerState'), 'ac')
        self.assertEqual(self.props.Get(IFACE, 'Version'), '0.1.0')
        self.assertEqual(list(self.props.Get(IFACE, 'Holds')), [])
        g = self.groups()
        self.assertEqual(set(g), {'root', *GROUPS})
        self.assertEqual(g['performance'], (50, 50))
        self.assertEqual(self.boost_file('performance'), 50)
        self.assertEqual(self.boost_file('interactive'), 10)

    def test_set_get_boost(self):
        self.iface.SetBoost('interactive', dbus.UInt32(42))
        self.assertEqual(self.boost_file('interactive'), 42)
        self.assertEqual(tuple(self.iface.GetBoost('interactive')), (42, 42))
        self.assertEqual(self.groups()['interactive'], (42, 42))

    def test_reset_boost_and_overrides(self):
        self.assertEqual(self.props.Get(IFACE, 'Overrides'), [])
        self.iface.SetBoost('performance', dbus.UInt32(77))
        self.assertEqual(self.props.Get(IFACE, 'Overrides'), [('performance', 77)])
        r = self.boostctl('status')
        self.assertRegex(r.stdout, r'performance +base +77 +effective +77 +\(override\)')
        self.assertRegex(r.stdout, r'interactive +base +10 +effective +10 +\(config\)')
        # kept across a reload and a restart
        self.iface.Reload()
        self.stop_daemon()
        self.start_daemon()
        self.assertEqual(self.props.Get(IFACE, 'Overrides'), [('performance', 77)])
        self.assertEqual(self.boost_file('performance'), 77)
        # back to the configured value, through the API and through boostctl
        self.iface.ResetBoost('performance')
        self.assertEqual(self.props.Get(IFACE, 'Overrides'), [])
        self.assertEqual(self.iface.GetBoost('performance'), (50, 50))
        self.assertEqual(self.boost_file('performance'), 50)
        self.iface.SetBoost('interactive', dbus.UInt32(30))
        self.assertEqual(self.boostctl('set', 'interactive', 'default').returncode, 0)
        self.assertEqual(self.boost_file('interactive'), 10)
        self.iface.ResetBoost('interactive')        # nothing to reset: fine
        self.assertDBusError(ERR + 'UnknownGroup', self.iface.ResetBoost, 'nope')
        r = self.busctl_as('nobody', 'call', NAME, PATH, IFACE, 'ResetBoost', 's', 'interactive')
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Access denied', r.stderr)
        # and the reset survives a restart
        self.stop_daemon()
        self.start_daemon()
        self.assertEqual(self.props.Get(IFACE, 'Overrides'), [])

    def test_bad_input_keeps_state(self):
        self.iface.SetBoost('interactive', dbus.UInt32(7))
        self.assertDBusError(ERR + 'InvalidBoost', self.iface.SetBoost, 'interactive',
                             dbus.UInt32(101))
        self.assertDBusError(ERR + 'UnknownGroup', self.iface.SetBoost, 'nope', dbus.UInt32(1))
        self.assertDBusError(ERR + 'UnknownGroup', self.iface.GetBoost, 'nope')
        self.assertDBusError(ERR + 'UnknownGroup', self.iface.Classify,
                             dbus.UInt32(os.getpid()), 'nope')
        self.assertDBusError(ERR + 'NoSuchProcess', self.iface.Classify,
                             dbus.UInt32(self.dead_pid()), 'performance')
        self.assertDBusError(ERR + 'NoSuchProcess', self.iface.SetForeground,
                             dbus.UInt32(self.dead_pid()))
        self.assertDBusError(ERR + 'InvalidBoost', self.iface.Hold, 'interactive',
                             dbus.UInt32(200), dbus.UInt32(0), 'x')
        self.assertDBusError(ERR + 'UnknownGroup', self.iface.Hold, 'nope',
                             dbus.UInt32(20), dbus.UInt32(0), 'x')
        self.assertDBusError(ERR + 'NoSuchHold', self.iface.Release, dbus.UInt32(12345))
        self.assertDBusError(ERR + 'InvalidMode', self.props.Set, IFACE, 'Mode', 'turbo')
        self.assertEqual(self.boost_file('interactive'), 7)
        self.assertEqual(self.props.Get(IFACE, 'Mode'), 'auto')
        self.assertTrue(self.daemon.poll() is None)

    def test_classify(self):
        pid = self.spawn_sleep()
        self.iface.Classify(dbus.UInt32(pid), 'performance')
        self.assertIn(pid, self.procs_file('performance'))
        self.iface.Classify(dbus.UInt32(pid), 'root')
        self.assertIn(pid, self.procs_file('root'))

    def test_get_process_and_why(self):
        # a shell and its sleeping child: the child inherits the shell's
        # Classify()
        sh = subprocess.Popen(['sh', '-c', 'sleep 300 & echo $!; wait'], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
        self.children.append(sh)
        child = int(sh.stdout.readline())
        sh.stdout.close()
        self.addCleanup(os.kill, child, signal.SIGKILL)
        self.iface.Classify(dbus.UInt32(sh.pid), 'performance')
        self.assertEqual(tuple(self.iface.GetProcess(dbus.UInt32(sh.pid))),
                         ('performance', 'performance', 'classified', '', 0))
        # the child was not moved (no exec seen here): where it is and
        # where it belongs differ
        self.assertEqual(tuple(self.iface.GetProcess(dbus.UInt32(child))),
                         ('root', 'performance', 'inherited', '', sh.pid))
        r = self.boostctl('why', str(child))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, f'PID {child} is in root: inherited from PID {sh.pid} (classified)'
                                   ' (its class: performance)\n')
        # a process no one decided for, and one moved by hand
        other = self.spawn_sleep()
        self.assertEqual(tuple(self.iface.GetProcess(dbus.UInt32(other))), ('root', 'root', 'default', '', 0))
        with open(f'{self.root}/dev/stune/background/cgroup.procs', 'a') as f:
            f.write(f'{other}\n')
        self.assertEqual(self.boostctl('why', str(other)).stdout,
                         f'PID {other} is in background: left where it is (its class: root)\n')
        self.assertDBusError(ERR + 'NoSuchProcess', self.iface.GetProcess, dbus.UInt32(self.dead_pid()))
        self.assertEqual(self.boostctl('why', 'x').returncode, 2)
        self.assertEqual(self.boostctl('why').returncode, 2)
        # a user looks at their own processes; another user's take the
        # admin action (boostd sees what /proc may hide from them)
        mine = self.spawn_sleep(user='nobody')
        r = self.boostctl('--no-ask-password', 'why', str(mine), user='nobody')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f'PID {mine} is in root', r.stdout)
        r = self.boostctl('--no-ask-password', 'why', str(other), user='nobody')
        self.assertEqual(r.returncode, 4, r.stderr)
        self.polkit.SetAllowed(['org.boostd.classify-any'])
        r = self.boostctl('--no-ask-password', 'why', str(other), user='nobody')
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_set_foreground(self):
        a, b = self.spawn_sleep(), self.spawn_sleep()
        self.iface.SetForeground(dbus.UInt32(a))
        self.assertEqual(self.procs_file('interactive'), [a])
        self.iface.SetForeground(dbus.UInt32(b))
        # b in interactive, a back to what the rules say (root)
        self.assertEqual(self.procs_file('interactive'), [b])
        self.assertEqual(self.procs_file('root'), [a])

    def test_launch_boost(self):
        self.stop_daemon()
        with open(f'{self.root}/etc/boostd.conf', 'w') as f:
            f.write('[Launch]\nBoost=70\nDurationMs=3000\n')
        self.start_daemon()
        # an app brought to the foreground just after it started: its
        # group (interactive) at 70 as a hold named launch
        a = self.spawn_sleep()
        self.iface.SetForeground(dbus.UInt32(a))
        self.assertEqual(self.procs_file('interactive'), [a])
        self.assertEqual(self.boost_file('interactive'), 70)
        holds = self.props.Get(IFACE, 'Holds')
        self.assertEqual([(str(h[0]), int(h[1]), str(h[4])) for h in holds], [('interactive', 70, 'launch')])
        # the focus on the same app keeps it; another app ends it early
        self.iface.SetForeground(dbus.UInt32(a))
        self.assertEqual(self.boost_file('interactive'), 70)
        b = self.spawn_sleep()
        time.sleep(1.2)         # b is no longer just started
        self.iface.SetForeground(dbus.UInt32(b))
        self.assertEqual(self.boost_file('interactive'), 10)
        self.assertEqual(len(self.props.Get(IFACE, 'Holds')), 0)
        # and one that lasts its DurationMs ends by itself
        c = self.spawn_sleep()
        self.iface.SetForeground(dbus.UInt32(c))
        self.assertEqual(self.boost_file('interactive'), 70)
        eventually(lambda: self.boost_file('interactive') == 10, msg='launch boost over')

    def test_no_launch_boost_by_default(self):
        a = self.spawn_sleep()
        self.iface.SetForeground(dbus.UInt32(a))
        self.assertEqual(self.procs_file('interactive'), [a])
        self.assertEqual(self.boost_file('interactive'), 10)
        self.assertEqual(len(self.props.Get(IFACE, 'Holds')), 0)

    def test_hold_release_timeout(self):
        cookie = self.iface.Hold('background', dbus.UInt32(60), dbus.UInt32(0), 'build')
        self.assertEqual(self.boost_file('background'), 60)
        self.assertEqual(tuple(self.iface.GetBoost('background')), (0, 60))
        holds = self.props.Get(IFACE, 'Holds')
        self.assertEqual(len(holds), 1)
        self.assertNotIn(' left', self.boostctl('status').stdout)
        self.assertEqual((str(holds[0][0]), int(holds[0][1]), str(holds[0][4])),
                         ('background', 60, 'build'))
        self.iface.Release(cookie)
        self.assertEqual(self.boost_file('background'), 0)
        self.assertDBusError(ERR + 'NoSuchHold', self.iface.Release, cookie)
        self.iface.Hold('background', dbus.UInt32(30), dbus.UInt32(300), 'short')
        self.assertEqual(self.boost_file('background'), 30)
        self.assertRegex(self.boostctl('status').stdout, r'background +at least +30 +uid 0 +0\.[0-3] s left +short')
        eventually(lambda: self.boost_file('background') == 0, msg='hold timeout')
        self.assertEqual(list(self.props.Get(IFACE, 'Holds')), [])

    def test_hold_reason_cannot_forge_a_log_line(self):
        for reason in ('x\n<0>forged emergency', 'bell\a', 'x' * 129):
            self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.iface.Hold,
                                 'interactive', dbus.UInt32(50), dbus.UInt32(0), reason)
        self.assertEqual(self.props.Get(IFACE, 'Holds'), [])
        self.assertEqual(self.boost_file('interactive'), 10)
        with open(self.log_path()) as f:
            self.assertNotIn('forged', f.read())

    def test_release_other_clients_cookie(self):
        other = dbus.bus.BusConnection(self.addr)
        cookie = dbus.Interface(other.get_object(NAME, PATH), IFACE).Hold(
            'performance', dbus.UInt32(80), dbus.UInt32(0), 'theirs')
        self.assertDBusError(ERR + 'NoSuchHold', self.iface.Release, cookie)
        self.assertEqual(self.boost_file('performance'), 80)
        other.close()
        # the holder leaving the bus ends the hold
        eventually(lambda: self.boost_file('performance') == 50, msg='hold dropped')

    def test_client_disconnect_drops_hold(self):
        r = subprocess.run(['busctl', f'--address={self.addr}', 'call', NAME, PATH, IFACE,
                            'Hold', 'suus', 'interactive', '77', '0', 'gone'],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        eventually(lambda: self.boost_file('interactive') == 10, msg='hold dropped')
        self.assertEqual(list(self.props.Get(IFACE, 'Holds')), [])

    def match_rules_of_boostd(self):
        bus = dbus.Interface(self.sysbus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus'),
                             'org.freedesktop.DBus')
        stats = dbus.Interface(self.sysbus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus'),
                               'org.freedesktop.DBus.Debug.Stats')
        try:
            return int(stats.GetConnectionStats(bus.GetNameOwner(NAME))['MatchRules'])
        except dbus.exceptions.DBusException as e:
            self.skipTest(f'no bus statistics: {e.get_dbus_name()}')

    def test_one_track_per_client(self):
        # a client's holds share one watch of its name: one match rule on
        # the bus, not one per hold
        before = self.match_rules_of_boostd()
        cookies = [self.iface.Hold('interactive', dbus.UInt32(20 + i), dbus.UInt32(0), 'n') for i in range(10)]
        self.assertEqual(self.match_rules_of_boostd() - before, 1)
        # releasing some keeps the watch for the rest; the client leaving
        # ends them all, and the watch goes
        for c in cookies[:9]:
            self.iface.Release(c)
        self.assertEqual(self.boost_file('interactive'), 29)
        other = subprocess.Popen(['busctl', f'--address={self.addr}', 'call', NAME, PATH, IFACE,
                                  'Hold', 'suus', 'performance', '90', '0', 'gone'],
                                 stdout=subprocess.DEVNULL)
        other.wait()
        eventually(lambda: self.boost_file('performance') == 50, msg='the other client\'s hold dropped')
        eventually(lambda: self.match_rules_of_boostd() - before == 1, msg='its watch dropped')
        self.iface.Release(cookies[9])
        eventually(lambda: self.match_rules_of_boostd() == before, msg='the last watch dropped')

    def test_too_many_holds(self):
        for i in range(16):
            self.iface.Hold('interactive', dbus.UInt32(i), dbus.UInt32(0), 'n')
        self.assertDBusError(ERR + 'TooManyHolds', self.iface.Hold, 'interactive',
                             dbus.UInt32(99), dbus.UInt32(0), 'n')
        self.assertEqual(self.boost_file('interactive'), 15)

    def test_mode_property(self):
        self.props.Set(IFACE, 'Mode', 'manual')
        self.assertEqual(self.props.Get(IFACE, 'Mode'), 'manual')

    def test_properties_changed(self):
        p = subprocess.Popen([harness.BOOSTCTL, 'monitor'], stdout=subprocess.PIPE, text=True)
        self.children.append(p)
        self.assertIn('Monitoring', p.stdout.readline())
        time.sleep(0.2)
        self.iface.SetBoost('performance', dbus.UInt32(66))
        line = p.stdout.readline()
        self.assertEqual(line.strip(), 'Groups')
        found = False
        for _ in range(4):
            line = p.stdout.readline()
            if line.split()[:1] == ['performance']:
                self.assertIn('66', line)
                found = True
                break
        self.assertTrue(found)

    def test_unprivileged_denied_and_allowed(self):
        r = self.busctl_as('nobody', 'call', NAME, PATH, IFACE, 'SetBoost', 'su',
                           'interactive', '33')
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Access denied', r.stderr)
        self.assertEqual(self.boost_file('interactive'), 10)
        self.polkit.SetAllowed(['org.boostd.set-boost'])
        r = self.busctl_as('nobody', 'call', NAME, PATH, IFACE, 'SetBoost', 'su',
                           'interactive', '33')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.boost_file('interactive'), 33)
        # reading is open to anyone
        r = self.busctl_as('nobody', 'call', NAME, PATH, IFACE, 'GetBoost', 's', 'interactive')
        self.assertEqual(r.stdout.strip(), 'uu 33 33')

    def test_interactive_authorization(self):
        # a polkit that grants set-boost only when it may ask the user
        # (AllowUserInteraction, flag 1) and otherwise says it would have
        # to ask
        auth = 'org.freedesktop.PolicyKit1.Authority'
        self.polkit_obj.AddMethod(auth, 'CheckAuthorization', '(sa{sv})sa{ss}us', '(bba{ss})',
                                  'ret = (args[3] == 1, args[3] != 1, {})')
        try:
            r = self.boostctl('--no-ask-password', 'set', 'interactive', '33', user='nobody')
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn('InteractiveAuthorizationRequired', r.stderr)
            self.assertEqual(self.boost_file('interactive'), 10)
            # the Mode property is checked the same way
            r = self.busctl_as('nobody', '--allow-interactive-authorization=no', 'set-property',
                               NAME, PATH, IFACE, 'Mode', 's', 'manual')
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(self.props.Get(IFACE, 'Mode'), 'auto')
            # boostctl allows interaction by default
            r = self.boostctl('set', 'interactive', '33', user='nobody')
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.boost_file('interactive'), 33)
            r = self.boostctl('mode', 'manual', user='nobody')
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.props.Get(IFACE, 'Mode'), 'manual')
            # a polkit with no agent to ask: an interactive caller is denied,
            # one that did not allow asking is told it would have to
            self.polkit_obj.AddMethod(auth, 'CheckAuthorization', '(sa{sv})sa{ss}us', '(bba{ss})',
                                      'ret = (False, True, {})')
            r = self.boostctl('set', 'interactive', '44', user='nobody')
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn('org.freedesktop.DBus.Error.AccessDenied', r.stderr)
            r = self.boostctl('--no-ask-password', 'set', 'interactive', '44', user='nobody')
            self.assertIn('InteractiveAuthorizationRequired', r.stderr)
            self.assertEqual(self.boost_file('interactive'), 33)
        finally:
            # back to the template's answer for the other tests
            self.polkit_obj.AddMethod(auth, 'CheckAuthorization', '(sa{sv})sa{ss}us', '(bba{ss})',
                                      "ret = (args[1] in self.allowed, False, {})")

    def test_unprivileged_mode_and_reload(self):
        r = self.busctl_as('nobody', 'set-property', NAME, PATH, IFACE, 'Mode', 's', 'manual')
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(self.props.Get(IFACE, 'Mode'), 'auto')
        r = self.boostctl('reload', user='nobody')
        self.assertEqual(r.returncode, 4, r.stderr)
        self.polkit.SetAllowed(['org.boostd.set-boost'])
        r = self.busctl_as('nobody', 'set-property', NAME, PATH, IFACE, 'Mode', 's', 'manual')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.props.Get(IFACE, 'Mode'), 'manual')
        self.assertEqual(self.boostctl('reload', user='nobody').returncode, 0)

    def test_foreground_rule_to_performance(self):
        self.stop_daemon()
        with open(f'{self.root}/etc/boostd.conf', 'w') as f:
            f.write('[Rule:games]\nComm=sleep\nClass=performance\n')
        self.start_daemon()
        pid = self.spawn_sleep()
        self.iface.SetForeground(dbus.UInt32(pid))
        self.assertEqual(self.procs_file('performance'), [pid])
        self.assertEqual(self.procs_file('interactive'), [])

    def test_unprivileged_classify(self):
        mine = self.spawn_sleep(user='nobody')
        roots = self.spawn_sleep()
        eventually(lambda: pwd.getpwuid(os.stat(f'/proc/{mine}').st_uid).pw_name == 'nobody')
        r = self.boostctl('classify', str(mine), 'performance', user='nobody')
        self.assertEqual(r.returncode, 4, r.stderr)
        self.polkit.SetAllowed(['org.boostd.classify'])
        r = self.boostctl('classify', str(mine), 'performance', user='nobody')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(mine, self.procs_file('performance'))
        # someone else's process needs classify-any
        r = self.boostctl('classify', str(roots), 'performance', user='nobody')
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertNotIn(roots, self.procs_file('performance'))

    def test_unprivileged_hold(self):
        r = self.boostctl('hold', 'performance', '90', '--', 'true', user='nobody')
        self.assertEqual(r.returncode, 4, r.stderr)
        self.polkit.SetAllowed(['org.boostd.hold'])
        r = self.boostctl('hold', 'performance', '90', '--', 'cat',
                          f'{self.root}/dev/stune/performance/schedtune.boost', user='nobody')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), '90')
        self.assertEqual(self.boost_file('performance'), 50)

    def test_boostctl(self):
        r = self.boostctl('status')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('Backend     schedtune', r.stdout)
        self.assertRegex(r.stdout, r'performance +base +50 +effective +50')
        self.assertEqual(self.boostctl('set', 'interactive', '20').returncode, 0)
        r = self.boostctl('get', 'interactive')
        self.assertEqual(r.stdout.strip(), '20 20')
        r = self.boostctl('set', 'interactive', '101')
        self.assertEqual(r.returncode, 5)
        self.assertIn(ERR + 'InvalidBoost', r.stderr)
        self.assertEqual(self.boostctl('get', 'nope').returncode, 5)
        self.assertEqual(self.boostctl('set', 'interactive').returncode, 2)
        self.assertEqual(self.boostctl('frobnicate').returncode, 2)
        # the command is checked before connecting: a typo is a usage error
        # even without a bus, and --timeout-call works
        nobus = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS='unix:path=/nonexistent')
        self.assertEqual(self.boostctl('frobnicate', env=nobus).returncode, 2)
        self.assertEqual(self.boostctl('get', env=nobus).returncode, 2)
        self.assertEqual(self.boostctl('status', env=nobus).returncode, 3)
        self.assertEqual(self.boostctl('--timeout-call', '0', 'status').returncode, 2)
        r = self.boostctl('--timeout-call', '5', 'get', 'interactive')
        self.assertEqual((r.returncode, r.stdout.strip()), (0, '20 20'), r.stderr)
        self.assertEqual(self.boostctl('--timeout-call=2.5', 'get', 'interactive').returncode, 0)
        r = self.boostctl('hold', 'background', '40', '--', 'sh', '-c', 'exit 3')
        self.assertEqual(r.returncode, 3)
        self.assertEqual(self.boostctl('mode', 'manual').returncode, 0)
        self.assertEqual(self.boostctl('mode').stdout.strip(), 'manual')
        self.assertEqual(self.boostctl('mode', 'turbo').returncode, 5)
        self.stop_daemon()
        r = self.boostctl('status')
        self.assertEqual(r.returncode, 3, r.stderr)
        self.start_daemon()

    def test_reload(self):
        conf = f'{self.root}/etc/boostd.conf'
        with open(conf, 'w') as f:
            f.write('[Class:interactive]\nBoostAC=25\n[Class:games]\nBoost=70\n')
        os.makedirs(f'{self.root}/dev/stune/games')
        for n in ('schedtune.boost', 'cgroup.procs'):
            with open(f'{self.root}/dev/stune/games/{n}', 'w') as f:
                f.write('0\n' if n == 'schedtune.boost' else '')
        self.iface.Reload()
        self.assertEqual(self.boost_file('interactive'), 25)
        self.assertEqual(self.boost_file('games'), 70)
        # an invalid config is rejected, the running one stays
        with open(conf, 'w') as f:
            f.write('[Class:interactive]\nBoostAC=250\n')
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            self.iface.Reload()
        self.assertEqual(cm.exception.get_dbus_name(), ERR + 'InvalidConfig')
        self.assertIn('boostd.conf:2: BoostAC=250: value out of range 0..100',
                      cm.exception.get_dbus_message())
        self.assertEqual(self.boost_file('interactive'), 25)
        # SIGHUP takes the same path
        self.daemon.send_signal(signal.SIGHUP)
        time.sleep(0.3)
        self.assertIsNone(self.daemon.poll())
        self.assertEqual(self.boost_file('interactive'), 25)
        with open(conf, 'w') as f:
            f.write('[Class:interactive]\nBoostAC=12\n')
        self.daemon.send_signal(signal.SIGHUP)
        eventually(lambda: self.boost_file('interactive') == 12, msg='SIGHUP reload')

    def test_invalid_config_is_fatal(self):
        self.stop_daemon()
        with open(f'{self.root}/etc/boostd.conf', 'w') as f:
            f.write('[Rule:x]\nComm=foo\nClass=nope\n')
        r = subprocess.run([harness.BOOSTD], env=dict(os.environ, BOOSTD_ROOT=self.root),
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 6)
        self.assertIn("boostd.conf:3: rule 'x' names unknown class 'nope'", r.stderr)
        r = subprocess.run([harness.BOOSTD, '--check-config'], env=dict(os.environ, BOOSTD_ROOT=self.root),
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 1)
        os.unlink(f'{self.root}/etc/boostd.conf')
        self.start_daemon()

    def test_check_config_and_mount_only(self):
        env = dict(os.environ, BOOSTD_ROOT=self.root)
        with open(f'{self.root}/etc/boostd.conf', 'w') as f:
            f.write('[Class:games]\nBoost=70\n[Rule:g]\nComm=game*\nClass=games\n')
        r = subprocess.run([harness.BOOSTD, '--check-config'], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, f'{self.root}/etc/boostd.conf: ok (5 classes, 1 rules)\n')
        bad = f'{self.root}/bad.conf'
        with open(bad, 'w') as f:
            f.write('[Daemon]\nBackend=schedtune\nMountPoint=relative\n')
        r = subprocess.run([harness.BOOSTD, '--check-config', bad], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, f'{bad}:3: MountPoint=relative: not a normalized absolute path\n')
        # the hierarchy is already there: --mount adopts it and changes nothing
        r = subprocess.run([harness.BOOSTD, '--mount'], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.boost_file('performance'), 50)
        r = subprocess.run([harness.BOOSTD, '--frobnicate'], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)

    def read_run(self, root, name):
        try:
            with open(f'{root}/run/boostd/{name}') as f:
                return f.read()
        except FileNotFoundError:
            return None

    def test_second_instance_changes_nothing(self):
        pid = self.spawn_sleep()
        self.iface.SetBoost('interactive', dbus.UInt32(42))
        self.iface.Classify(dbus.UInt32(pid), 'performance')
        before = (self.read_run(self.root, 'journal'), self.read_run(self.root, 'state'))
        self.assertIsNotNone(before[0])
        # the same root: the lock says no before anything is read
        env = dict(os.environ, BOOSTD_ROOT=self.root)
        r = subprocess.run([harness.BOOSTD, '--log-level=debug'], env=env, capture_output=True,
                           text=True, timeout=20)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('Another boostd is running', r.stderr)
        self.assertNotIn('Restored', r.stderr)
        self.assertEqual(self.boost_file('interactive'), 42)
        self.assertEqual(self.procs_file('performance'), [pid])
        self.assertEqual((self.read_run(self.root, 'journal'), self.read_run(self.root, 'state')),
                         before)
        # another root, the bus name taken: its tree is left untouched
        other = os.path.join(self.tmp, 'root-other-instance')
        harness.make_tree(other)
        with open(f'{other}/dev/stune/interactive/schedtune.boost', 'w') as f:
            f.write('7\n')
        env = dict(os.environ, BOOSTD_ROOT=other)
        r = subprocess.run([harness.BOOSTD, '--log-level=debug'], env=env, capture_output=True,
                           text=True, timeout=20)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('Failed to take the bus name', r.stderr)
        self.assertIsNone(self.read_run(other, 'journal'))
        with open(f'{other}/dev/stune/interactive/schedtune.boost') as f:
            self.assertEqual(f.read(), '7\n')
        # and the running one still serves what it had
        self.assertEqual(self.iface.GetBoost('interactive'), (42, 42))
        self.assertEqual(self.procs_file('performance'), [pid])

    def test_bus_loss_exits_and_keeps_groups(self):
        self.stop_daemon()
        sock = os.path.join(self.tmp, 'bus-lost')
        conf = os.path.join(self.tmp, 'bus-lost.conf')
        with open(conf, 'w') as f:
            f.write(harness.BUS_CONF.format(sock=sock, limits=""))
        bus = subprocess.Popen(['dbus-daemon', '--config-file', conf, '--nofork', '--print-address'],
                               stdout=subprocess.PIPE, universal_newlines=True)
        addr = bus.stdout.readline().strip()
        with open(f'{self.root}/etc/boostd.conf', 'w') as f:
            f.write('[Class:performance]\nBoost=60\n')
        env = dict(os.environ, BOOSTD_ROOT=self.root, DBUS_SYSTEM_BUS_ADDRESS=addr)
        with open(self.log_path(), 'a') as log:
            daemon = subprocess.Popen([harness.BOOSTD, '--log-level=debug'], env=env, stdout=log,
                                      stderr=subprocess.STDOUT)
            try:
                eventually(lambda: self.boost_file('performance') == 60, msg='started on its bus')
                bus.terminate()
                bus.wait()
                # a failure status, so that Restart=on-failure restarts it
                self.assertEqual(daemon.wait(15), 1)
            finally:
                if daemon.poll() is None:
                    daemon.kill()
                    daemon.wait()
                if bus.poll() is None:
                    bus.kill()
                    bus.wait()
                bus.stdout.close()
        # left as they are, like a crash: the restart adopts them
        self.assertEqual(self.boost_file('performance'), 60)
        self.assertIsNotNone(self.read_run(self.root, 'journal'))
        self.start_daemon()
        self.assertEqual(self.boost_file('performance'), 60)

    def test_clean_stop_restores_and_restart_keeps_api_state(self):
        with open(f'{self.root}/dev/stune/schedtune.boost', 'w') as f:
            f.write('5\n')
        self.stop_daemon()
        self.start_daemon()
        pid = self.spawn_sleep()
        self.iface.SetBoost('performance', dbus.UInt32(77))
        self.iface.SetBoost('root', dbus.UInt32(3))
        self.iface.Classify(dbus.UInt32(pid), 'performance')
        self.props.Set(IFACE, 'Mode', 'manual')
        self.stop_daemon()
        # clean stop: groups back to 0, root to what was found, PID to root
        self.assertEqual(self.boost_file('performance'), 0)
        self.assertEqual(self.boost_file('interactive'), 0)
        self.assertEqual(self.boost_file('root'), 5)
        self.assertEqual(self.procs_file('root'), [pid])
        # restart: the API state comes back
        self.start_daemon()
        self.assertEqual(self.boost_file('performance'), 77)
        self.assertEqual(self.procs_file('performance'), [pid])
        self.assertEqual(self.props.Get(IFACE, 'Mode'), 'manual')

    def test_crash_adoption(self):
        self.iface.SetBoost('background', dbus.UInt32(20))
        pid = self.spawn_sleep()
        self.iface.Classify(dbus.UInt32(pid), 'background')
        self.stop_daemon(signal.SIGKILL)
        self.assertTrue(os.path.exists(f'{self.root}/run/boostd/journal'))
        # someone changes a value by hand while boostd is down
        with open(f'{self.root}/dev/stune/interactive/schedtune.boost', 'w') as f:
            f.write('44\n')
        self.start_daemon()
        self.assertEqual(self.boost_file('background'), 20)
        self.assertEqual(self.procs_file('background'), [pid])
        with open(f'{self.root}/dev/stune/performance/schedtune.boost', 'w') as f:
            f.write('9\n')
        self.stop_daemon()
        self.assertEqual(self.boost_file('background'), 0)
        self.assertEqual(self.procs_file('root'), [pid])
        # the value changed by hand since boostd wrote it is left alone
        self.assertEqual(self.boost_file('performance'), 9)
        self.assertFalse(os.path.exists(f'{self.root}/run/boostd/journal'))
        self.start_daemon()

    def test_reach(self):
        # where a boost reaches the CPU, from the tree's sysfs: none here
        self.assertEqual([tuple(x) for x in self.props.Get(IFACE, 'FrequencyReach')],
                         [('', '', False, self.props.Get(IFACE, 'FrequencyReach')[0][3])])
        self.assertIn('no cpufreq policy', self.props.Get(IFACE, 'FrequencyReach')[0][3])
        self.assertFalse(self.props.Get(IFACE, 'PlacementReach')[0])
        # a big.LITTLE board: schedutil on one policy, performance on the other
        cpu = f'{self.root}/sys/devices/system/cpu'
        for n, cpus, gov in ((0, '0 1', 'schedutil'), (2, '2 3', 'performance')):
            os.makedirs(f'{cpu}/cpufreq/policy{n}')
            for name, v in (('related_cpus', cpus), ('scaling_driver', 'cpufreq-dt'), ('scaling_governor', gov)):
                with open(f'{cpu}/cpufreq/policy{n}/{name}', 'w') as f:
                    f.write(v + '\n')
        for c, cap in enumerate((346, 346, 1024, 1024)):
            os.makedirs(f'{cpu}/cpu{c}')
            with open(f'{cpu}/cpu{c}/cpu_capacity', 'w') as f:
                f.write(f'{cap}\n')
        self.stop_daemon()
        self.start_daemon()
        reach = self.props.Get(IFACE, 'FrequencyReach')
        self.assertEqual([(str(x[0]), str(x[1]), bool(x[2])) for x in reach],
                         [('policy0', '0 1', True), ('policy2', '2 3', False)])
        self.assertTrue(self.props.Get(IFACE, 'PlacementReach')[0])
        out = self.boostctl('status').stdout
        self.assertIn('Frequency:\n  policy0 (CPUs 0 1): yes: schedutil on cpufreq-dt: a boost raises the '
                      'frequency it asks for\n  policy2 (CPUs 2 3): no: the performance governor keeps the '
                      'highest frequency', out)
        self.assertIn('Placement:  yes: CPU capacities 346 to 1024', out)
        with open(self.log_path()) as f:
            self.assertIn('Frequency, policy2 (CPUs 2 3): a boost cannot change it', f.read())

    def test_backend_none(self):
        self.stop_daemon()
        os.unlink(f'{self.root}/proc/cgroups')
        shutil.rmtree(f'{self.root}/dev/stune')
        self.start_daemon()
        self.assertEqual(self.props.Get(IFACE, 'Backend'), 'none')
        # why: each backend before it said why not
        self.assertEqual(self.props.Get(IFACE, 'BackendReason'),
                         'it needs nothing of the kernel: boosts are tracked, not applied; '
                         'not schedtune: no /proc/cgroups yet; '
                         'not schedtune2: no /proc/sys/kernel/sched_cfs_boost (a kernel without SchedTune); '
                         'not uclamp: no /proc/sys/kernel/sched_util_clamp_min (a kernel without CONFIG_UCLAMP_TASK)')
        self.iface.SetBoost('interactive', dbus.UInt32(30))
        self.assertEqual(tuple(self.iface.GetBoost('interactive')), (30, 30))


class BusLimitsTest(harness.BoostdTest):
    """A bus that refuses boostd's match rules past the first (its
    max_match_rules_per_connection): GameMode's second match is not
    installed, and boostd says so and serves on. (sd-bus closes the whole
    connection over a failed match that has no install callback.)"""
    bus_limits = '  <limit name="max_match_rules_per_connection">1</limit>'

    def test_a_refused_match_is_not_fatal(self):
        eventually(lambda: 'did not take a match' in open(self.log_path()).read(),
                   msg='the refused match logged')
        self.assertIsNone(self.daemon.poll(), 'boostd exited')
        self.iface.SetBoost('interactive', dbus.UInt32(30))
        self.assertEqual(tuple(self.iface.GetBoost('interactive')), (30, 30))


if __name__ == '__main__':
    harness.main(__doc__)
