#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Integration tests of boostd-session, the agent in a user's session,
with boostd on a private system bus and a private session bus beside it.
GameMode on the session bus is python-dbusmock standing in for gamemoded
(its GameRegistered/GameUnregistered signals and ListGames()); polkit is
python-dbusmock's. What boostd does shows in the fake schedtune tree's
<group>/cgroup.procs and in boostctl's answers.

Usage: test-boostd-agent.py BOOSTD BOOSTCTL (boostd-session beside BOOSTD)
"""

import json
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import boostd_harness as harness  # noqa: E402  (exits 77 without dbus and dbusmock)

import dbus  # noqa: E402  (checked by the harness)
import dbusmock  # noqa: E402

from boostd_harness import ERR, IFACE, NAME, PATH, eventually, never  # noqa: E402
from benchlib import BUS_CONF  # noqa: E402

GM_NAME = 'com.feralinteractive.GameMode'
GM_PATH = '/com/feralinteractive/GameMode'
GM_IFACE = 'com.feralinteractive.GameMode'
AGENT_NAME = 'org.boostd.SessionAgent1'
AGENT_PATH = '/org/boostd/SessionAgent1'


def game(pid):
    return [dbus.Int32(pid), dbus.ObjectPath(f'{GM_PATH}/Games/{pid}')]


class AgentTest(harness.BoostdTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        conf = os.path.join(cls.tmp, 'session-bus.conf')
        with open(conf, 'w') as f:
            f.write(BUS_CONF.format(sock=os.path.join(cls.tmp, 'session-bus'), limits='')
                    .replace('<type>system</type>', '<type>session</type>'))
        cls.session_proc = subprocess.Popen(
            ['dbus-daemon', '--config-file', conf, '--nofork', '--print-address'],
            stdout=subprocess.PIPE, universal_newlines=True)
        cls.session_addr = cls.session_proc.stdout.readline().strip()
        os.environ['DBUS_SESSION_BUS_ADDRESS'] = cls.session_addr
        dbusmock.DBusTestCase.session_bus_address = cls.session_addr  # noqa
        cls.sessbus = dbus.bus.BusConnection(cls.session_addr)

    @classmethod
    def tearDownClass(cls):
        cls.session_proc.terminate()
        cls.session_proc.wait()
        cls.session_proc.stdout.close()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.polkit.SetAllowed(['org.boostd.classify'])
        self.agents = []
        self.gamemode = None

    def tearDown(self):
        try:
            for a, log in self.agents:
                if a.poll() is None:
                    a.kill()
                a.wait()
                log.close()
            self.stop_gamemode()
            eventually(lambda: not self.sessbus.name_has_owner(AGENT_NAME), msg='agent gone')
        finally:
            super().tearDown()

    def agent_log(self, i=0):
        with open(os.path.join(self.root, f'agent-{i}.log')) as f:
            return f.read()

    def start_agent(self, user=None, wait=True):
        i = len(self.agents)
        log = open(os.path.join(self.root, f'agent-{i}.log'), 'w')
        cmd = [os.path.join(os.path.dirname(harness.BOOSTD), 'boostd-session'), '--log-level=debug']
        if user:
            cmd = ['setpriv', *harness.as_user(user)] + cmd
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.addr,
                   DBUS_SESSION_BUS_ADDRESS=self.session_addr)
        p = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.agents.append((p, log))
        if wait:
            eventually(lambda: self.sessbus.name_has_owner(AGENT_NAME) or p.poll() is not None,
                       msg='agent on the session bus')
            self.assertIsNone(p.poll(), f'boostd-session exited: {self.agent_log(i)}')
            eventually(lambda: len(self.props.Get(IFACE, 'Agents')) > 0, msg='agent registered')
        return p

    def start_gamemode(self, *games):
        self.gamemode = self.spawn_server(GM_NAME, GM_PATH, GM_IFACE, system_bus=False,
                                          stdout=subprocess.DEVNULL)
        mock = dbus.Interface(self.sessbus.get_object(GM_NAME, GM_PATH), dbusmock.MOCK_IFACE)
        listed = ', '.join(f'(dbus.Int32({g}), dbus.ObjectPath("{GM_PATH}/Games/{g}"))' for g in games)
        mock.AddMethod('', 'ListGames', '', 'a(io)', f'ret = dbus.Array([{listed}], signature="(io)")')
        return mock

    def stop_gamemode(self):
        if self.gamemode:
            self.gamemode.terminate()
            self.gamemode.wait()
            self.gamemode = None

    def why(self, pid):
        r = self.boostctl('why', str(pid))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    # tests
    def test_games_forwarded(self):
        old, new = self.spawn_sleep(), self.spawn_sleep()
        mock = self.start_gamemode(old)
        self.start_agent()
        # a game registered before the agent started: ListGames()
        eventually(lambda: old in self.procs_file('performance'), msg='listed game placed')
        self.assertIn('game', self.why(old))
        # GameRegistered, then GameUnregistered
        mock.EmitSignal(GM_IFACE, 'GameRegistered', 'io', game(new))
        eventually(lambda: new in self.procs_file('performance'), msg='new game placed')
        self.assertRegex(self.why(new), rf'PID {new} is in performance: game')
        agents = self.props.Get(IFACE, 'Agents')
        self.assertEqual(len(agents), 1)
        self.assertEqual((int(agents[0][1]), int(agents[0][4])), (0, 2))
        status = self.boostctl('status').stdout
        self.assertRegex(status, r'Session agents:\n  :\d+\.\d+ uid 0 pid \d+ no session: 2 games\n')
        mock.EmitSignal(GM_IFACE, 'GameUnregistered', 'io', game(new))
        eventually(lambda: new not in self.procs_file('performance'), msg='unregistered game back')
        self.assertIn(old, self.procs_file('performance'))
        # signals from anyone but GameMode's owner do not count
        other = dbus.bus.BusConnection(self.session_addr)
        msg = dbus.lowlevel.SignalMessage(GM_PATH, GM_IFACE, 'GameRegistered')
        msg.append(*game(new), signature='io')
        other.send_message(msg)
        other.flush()
        never(lambda: new in self.procs_file('performance'), 1.0, msg='forged signal forwarded')
        other.close()

    def test_agent_leaving_ends_its_games(self):
        g = self.spawn_sleep()
        mock = self.start_gamemode()
        agent = self.start_agent()
        mock.EmitSignal(GM_IFACE, 'GameRegistered', 'io', game(g))
        eventually(lambda: g in self.procs_file('performance'), msg='game placed')
        agent.send_signal(signal.SIGKILL)
        eventually(lambda: g not in self.procs_file('performance'), msg='game back after the agent died')
        self.assertEqual(len(self.props.Get(IFACE, 'Agents')), 0)
        self.assertNotIn('game', self.why(g))

    def test_gamemode_leaving_ends_its_games(self):
        g = self.spawn_sleep()
        mock = self.start_gamemode()
        self.start_agent()
        mock.EmitSignal(GM_IFACE, 'GameRegistered', 'io', game(g))
        eventually(lambda: g in self.procs_file('performance'), msg='game placed')
        self.stop_gamemode()
        eventually(lambda: g not in self.procs_file('performance'), msg='game back after GameMode left')

    def test_boostd_restart(self):
        g = self.spawn_sleep()
        mock = self.start_gamemode()
        self.start_agent()
        mock.EmitSignal(GM_IFACE, 'GameRegistered', 'io', game(g))
        eventually(lambda: g in self.procs_file('performance'), msg='game placed')
        self.stop_daemon()
        # boostd put it back at its stop; the agent tells the new one again
        self.assertNotIn(g, self.procs_file('performance'))
        self.start_daemon()
        eventually(lambda: g in self.procs_file('performance'), msg='game placed again')
        eventually(lambda: len(self.props.Get(IFACE, 'Agents')) == 1, msg='agent registered again')

    def test_other_users_processes(self):
        mine, theirs = self.spawn_sleep(user='nobody'), self.spawn_sleep()
        eventually(lambda: os.stat(f'/proc/{mine}').st_uid != 0, msg='sleep as nobody')
        mock = self.start_gamemode()
        self.start_agent(user='nobody')
        # root's process, reported by nobody's GameMode: refused
        mock.EmitSignal(GM_IFACE, 'GameRegistered', 'io', game(theirs))
        eventually(lambda: self.agent_log().count(f'boostd refused game {theirs} (RegisterGame)') == 1,
                   msg='refusal logged, with the game')
        self.assertIn('AccessDenied', self.agent_log())
        self.assertNotIn(theirs, self.procs_file('performance'))
        # nobody's own, with org.boostd.classify
        mock.EmitSignal(GM_IFACE, 'GameRegistered', 'io', game(mine))
        eventually(lambda: mine in self.procs_file('performance'), msg="nobody's game placed")
        agents = self.props.Get(IFACE, 'Agents')
        self.assertEqual(int(agents[0][1]), 65534)
        # the call itself, as nobody: refused with the name
        r = self.busctl_as('nobody', 'call', NAME, PATH, IFACE, 'RegisterGame', 'u', str(theirs))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Access denied', r.stderr)
        # and a game it did not register is not its to end
        r = self.busctl_as('nobody', 'call', NAME, PATH, IFACE, 'UnregisterGame', 'u', str(theirs))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('not a game this client registered', r.stderr)
        # without the polkit grant, nobody's own is refused too
        self.polkit.SetAllowed(dbus.Array([], signature='s'))
        other = self.spawn_sleep(user='nobody')
        eventually(lambda: os.stat(f'/proc/{other}').st_uid != 0, msg='sleep as nobody')
        mock.EmitSignal(GM_IFACE, 'GameRegistered', 'io', game(other))
        eventually(lambda: self.agent_log().count(f'boostd refused game {other} (RegisterGame)') == 1,
                   msg='second refusal logged, with the game')
        never(lambda: other in self.procs_file('performance'), 1.0, msg='refused game placed')

    def test_set_foreground_forwarder(self):
        a = self.spawn_sleep()
        self.start_agent()
        agent = dbus.Interface(self.sessbus.get_object(AGENT_NAME, AGENT_PATH), AGENT_NAME)
        agent.SetForeground(dbus.UInt32(a))
        self.assertEqual(self.procs_file('interactive'), [a])
        # boostd's errors come back by name
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            agent.SetForeground(dbus.UInt32(self.dead_pid()))
        self.assertEqual(cm.exception.get_dbus_name(), ERR + 'NoSuchProcess')
        self.assertEqual(self.procs_file('interactive'), [a])

    def test_sway_example(self):
        a, b = self.spawn_sleep(), self.spawn_sleep()
        self.start_agent()
        # swaymsg as sway's IPC would answer a subscription: a new window,
        # a focus, a title change, a focus on a window without a PID, a
        # focus on b; one JSON object per line, then the end
        fake = os.path.join(self.root, 'fakebin')
        os.makedirs(fake)
        events = [
            {'change': 'new', 'container': {'pid': b}},
            {'change': 'focus', 'container': {'pid': a, 'app_id': 'foot'}},
            {'change': 'title', 'container': {'pid': b}},
            {'change': 'focus', 'container': {'app_id': 'xwayland'}},
            {'change': 'focus', 'container': {'pid': self.dead_pid()}},
            {'change': 'focus', 'container': {'pid': b, 'app_id': 'firefox'}},
        ]
        with open(os.path.join(fake, 'swaymsg'), 'w') as f:
            f.write('#!/bin/sh\n[ "$*" = "-t subscribe -m [\\"window\\"]" ] || exit 3\ncat <<"END"\n')
            f.write('\n'.join(json.dumps(e) for e in events) + '\nEND\n')
        os.chmod(os.path.join(fake, 'swaymsg'), 0o755)
        env = dict(os.environ, PATH=f'{fake}:{os.environ["PATH"]}', DBUS_SESSION_BUS_ADDRESS=self.session_addr)
        r = subprocess.run([os.path.join(TOP, 'examples', 'sway-focus')], env=env, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        # the dead PID's call failed and was reported; the last focus won
        self.assertEqual(r.stderr.count('SetForeground('), 1, r.stderr)
        self.assertEqual(self.procs_file('interactive'), [b])
        self.assertIn('foreground', self.why(b))
        self.assertNotIn(a, self.procs_file('interactive'))

    def test_one_agent_per_session(self):
        first = self.start_agent()
        second = self.start_agent(wait=False)
        self.assertEqual(second.wait(20), 1)
        self.assertIn('Another boostd-session serves this session', self.agent_log(1))
        self.assertEqual(len(self.props.Get(IFACE, 'Agents')), 1)
        # the session's end: SIGTERM, status 0, and boostd forgets it
        first.terminate()
        self.assertEqual(first.wait(20), 0)
        eventually(lambda: len(self.props.Get(IFACE, 'Agents')) == 0, msg='agent gone')

    def test_too_many_agents(self):
        # registering takes what forwarding one's own games takes (root
        # is always allowed)
        self.polkit.SetAllowed(dbus.Array([], signature='s'))
        r = self.busctl_as('nobody', 'call', NAME, PATH, IFACE, 'RegisterAgent')
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Access denied', r.stderr)
        self.assertEqual(len(self.props.Get(IFACE, 'Agents')), 0)
        self.polkit.SetAllowed(['org.boostd.classify'])
        clients = []
        for _ in range(4):
            c = dbus.bus.BusConnection(self.addr)
            clients.append(c)
            dbus.Interface(c.get_object(NAME, PATH), IFACE).RegisterAgent()
        c = dbus.bus.BusConnection(self.addr)
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            dbus.Interface(c.get_object(NAME, PATH), IFACE).RegisterAgent()
        self.assertEqual(cm.exception.get_dbus_name(), ERR + 'TooManyAgents')
        self.assertEqual(len(self.props.Get(IFACE, 'Agents')), 4)
        for x in clients + [c]:
            x.close()
        eventually(lambda: len(self.props.Get(IFACE, 'Agents')) == 0, msg='agents gone with their clients')

    def test_refused_registration(self):
        # nobody's agent without org.boostd.classify (a login that is not
        # an active local session): refused, says why, stays, and asks
        # again when the answer may have changed (here: boostd's restart)
        self.polkit.SetAllowed(dbus.Array([], signature='s'))
        self.start_gamemode()
        p = self.start_agent(user='nobody', wait=False)
        eventually(lambda: 'boostd refused to register this agent' in self.agent_log(), msg='refusal logged')
        self.assertIn('org.freedesktop.DBus.Error.AccessDenied', self.agent_log())
        self.assertIn('org.boostd.classify', self.agent_log())
        self.assertIsNone(p.poll())
        self.assertEqual(len(self.props.Get(IFACE, 'Agents')), 0)
        # boostctl status says so, from the agent on the user's bus
        status = self.boostctl('status').stdout
        self.assertRegex(status, r"This session's agent: refused: org\.freedesktop\.DBus\.Error\.AccessDenied: "
                         r".*\(asks again when a login session changes\)\n")
        self.polkit.SetAllowed(['org.boostd.classify'])
        self.stop_daemon()
        self.start_daemon()
        eventually(lambda: len(self.props.Get(IFACE, 'Agents')) == 1, msg='registered once allowed')
        eventually(lambda: 'Registered with boostd.' in self.agent_log(), msg='registration logged')
        self.assertIn("This session's agent: registered\n", self.boostctl('status').stdout)

    def test_too_many_games(self):
        # one agent registers at most 64 games; the 65th is refused by
        # name, the 64 stay placed, and they end with the agent
        games = [self.spawn_sleep() for _ in range(65)]
        c = dbus.bus.BusConnection(self.addr)
        boost = dbus.Interface(c.get_object(NAME, PATH), IFACE)
        for g in games[:64]:
            boost.RegisterGame(dbus.UInt32(g))
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            boost.RegisterGame(dbus.UInt32(games[64]))
        self.assertEqual(cm.exception.get_dbus_name(), ERR + 'TooManyGames')
        self.assertIn('At most 64 games per agent', str(cm.exception))
        placed = self.procs_file('performance')
        self.assertEqual(sorted(g for g in games if g in placed), sorted(games[:64]))
        self.assertEqual(int(self.props.Get(IFACE, 'Agents')[0][4]), 64)
        c.close()
        eventually(lambda: not any(g in self.procs_file('performance') for g in games),
                   msg='games back when their agent left')


if __name__ == '__main__':
    harness.main(__doc__)
