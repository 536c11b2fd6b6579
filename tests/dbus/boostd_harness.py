# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the D-Bus integration tests share: a private system bus with
python-dbusmock's polkitd, a temporary root laid out like a kernel with
SchedTune, and BoostdTest, which starts boostd there for each test and
shows its log when a test fails. main() runs a test file's tests:

    test-boostd-*.py BOOSTD BOOSTCTL [unittest arguments]
"""

import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import dbus
    import dbusmock
except ImportError as e:
    print(f'skipping: {e}', file=sys.stderr)
    sys.exit(77)

BOOSTD = BOOSTCTL = None
NAME = 'org.boostd.Boost1'
PATH = '/org/boostd/Boost1'
IFACE = 'org.boostd.Boost1'
ERR = 'org.boostd.Boost1.Error.'
GROUPS = ['background', 'interactive', 'performance']

# The private bus's configuration ({sock}, {limits}) and the fake /proc
# entries are the benchmarks' too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bench'))
from benchlib import BUS_CONF  # noqa: E402


def eventually(cond, timeout=15.0, msg='condition'):
    """cond becomes true. The timeout is a deadline for what must happen,
    generous for a loaded machine under the sanitizers, not a latency budget
    (tests/bench measures latencies)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f'timed out waiting for {msg}')


def never(cond, duration, msg):
    """cond stays false for duration seconds."""
    deadline = time.monotonic() + duration
    while time.monotonic() < deadline:
        if cond():
            raise AssertionError(f'unexpected: {msg}')
        time.sleep(0.01)


def as_user(user):
    pw = pwd.getpwnam(user)
    return [f'--reuid={pw.pw_uid}', f'--regid={pw.pw_gid}', '--clear-groups']


def make_tree(root):
    """A tree like a kernel with SchedTune and the groups in place."""
    os.makedirs(f'{root}/proc', exist_ok=True)
    with open(f'{root}/proc/cgroups', 'w') as f:
        f.write('#subsys_name\thierarchy\tnum_cgroups\tenabled\n'
                'cpu\t0\t1\t1\nschedtune\t3\t4\t1\n')
    for d in ['.'] + GROUPS:
        os.makedirs(f'{root}/dev/stune/{d}', exist_ok=True)
        with open(f'{root}/dev/stune/{d}/schedtune.boost', 'w') as f:
            f.write('0\n')
        open(f'{root}/dev/stune/{d}/cgroup.procs', 'w').close()
    os.makedirs(f'{root}/etc', exist_ok=True)


class BoostdTest(dbusmock.DBusTestCase):
    # <limit> lines of the private bus's configuration (a subclass's)
    bus_limits = ''

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='boostd-dbus-')
        os.chmod(cls.tmp, 0o755)
        sock = os.path.join(cls.tmp, 'bus')
        conf = os.path.join(cls.tmp, 'bus.conf')
        with open(conf, 'w') as f:
            f.write(BUS_CONF.format(sock=sock, limits=cls.bus_limits))
        cls.bus_proc = subprocess.Popen(
            ['dbus-daemon', '--config-file', conf, '--nofork', '--print-address'],
            stdout=subprocess.PIPE, universal_newlines=True)
        addr = cls.bus_proc.stdout.readline().strip()
        os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = addr
        dbusmock.DBusTestCase.system_bus_address = addr  # noqa
        cls.addr = addr
        cls.polkitd, cls.polkit_obj = cls.spawn_server_template(
            'polkitd', {}, stdout=subprocess.DEVNULL)
        cls.polkit = dbus.Interface(cls.polkit_obj, dbusmock.MOCK_IFACE)
        cls.sysbus = dbus.bus.BusConnection(addr)

    @classmethod
    def tearDownClass(cls):
        cls.polkitd.terminate()
        cls.polkitd.wait()
        cls.bus_proc.terminate()
        cls.bus_proc.wait()
        cls.bus_proc.stdout.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.root = os.path.join(self.tmp, 'root-' + self.id().split('.')[-1])
        make_tree(self.root)
        self.children = []
        self.polkit.SetAllowed(dbus.Array([], signature='s'))
        self.daemon = None
        self.start_daemon()

    def tearDown(self):
        try:
            self.stop_daemon()
        finally:
            for c in self.children:
                c.kill()
                c.wait()
                if c.stdout:
                    c.stdout.close()

    def run(self, result=None):
        # dump the daemon log when a test fails
        r = super().run(result)
        if result and (result.failures or result.errors):
            last = (result.failures + result.errors)[-1][0]
            if last is self and os.path.exists(self.log_path()):
                with open(self.log_path()) as f:
                    sys.stderr.write('---- boostd log ----\n' + f.read() + '----\n')
        return r

    def log_path(self):
        return os.path.join(self.root, 'boostd.log')

    daemon_env = {}     # more environment for boostd (test seams)

    def start_daemon(self, extra=()):
        self.logf = open(self.log_path(), 'a')
        env = dict(os.environ, BOOSTD_ROOT=self.root, **self.daemon_env)
        self.daemon = subprocess.Popen([BOOSTD, '--log-level=debug', *extra],
                                       env=env, stdout=self.logf, stderr=subprocess.STDOUT)
        eventually(lambda: self.sysbus.name_has_owner(NAME) or self.daemon.poll() is not None,
                   msg='boostd on the bus')
        self.assertIsNone(self.daemon.poll(), 'boostd exited')
        self.obj = self.sysbus.get_object(NAME, PATH)
        self.iface = dbus.Interface(self.obj, IFACE)
        self.props = dbus.Interface(self.obj, dbus.PROPERTIES_IFACE)
        # boostd takes its name before it starts (a second instance must
        # fail before touching anything) and answers once started: the
        # first answer is the sign it is ready
        self.props.Get(IFACE, 'Version')

    def stop_daemon(self, sig=signal.SIGTERM):
        daemon, self.daemon = self.daemon, None
        try:
            if daemon:
                # a daemon that died by itself (a sanitizer's report, say)
                # fails the test even when what the test waited for came
                # before
                self.assertIsNone(daemon.poll(), f'boostd exited by itself with {daemon.returncode}')
                daemon.send_signal(sig)
                self.assertEqual(daemon.wait(10), 0 if sig == signal.SIGTERM else -sig)
        finally:
            self.logf.close()
        eventually(lambda: not self.sysbus.name_has_owner(NAME), msg='name released')

    # helpers
    def boost_file(self, group):
        d = '' if group == 'root' else group
        with open(f'{self.root}/dev/stune/{d}/schedtune.boost') as f:
            return int(f.read())

    def procs_file(self, group):
        d = '' if group == 'root' else group
        with open(f'{self.root}/dev/stune/{d}/cgroup.procs') as f:
            return [int(x) for x in f.read().split()]

    def spawn_sleep(self, user=None):
        cmd = ['sleep', '300']
        if user:
            cmd = ['setpriv', *as_user(user)] + cmd
        p = subprocess.Popen(cmd)
        self.children.append(p)
        return p.pid

    def dead_pid(self):
        p = subprocess.Popen(['true'])
        p.wait()
        return p.pid

    def assertDBusError(self, name, fn, *args):
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            fn(*args)
        self.assertEqual(cm.exception.get_dbus_name(), name, str(cm.exception))

    def busctl_as(self, user, *args):
        """busctl as another user on the private bus."""
        cmd = ['setpriv', *as_user(user), 'busctl', f'--address={self.addr}', *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20)

    def boostctl(self, *args, user=None, **kw):
        cmd = [BOOSTCTL, *args]
        if user:
            cmd = ['setpriv', *as_user(user)] + cmd
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20, **kw)

    def groups(self):
        return {str(n): (int(b), int(e)) for n, b, e in self.props.Get(IFACE, 'Groups')}


def main(doc, tools=()):
    """Runs the tests of the calling file; 77 (skipped) without what they need."""
    global BOOSTD, BOOSTCTL
    if len(sys.argv) < 3:
        print(doc, file=sys.stderr)
        sys.exit(2)
    BOOSTD, BOOSTCTL = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for tool in ('dbus-daemon', 'busctl', 'setpriv', *tools):
        if not shutil.which(tool):
            print(f'skipping: {tool} not found', file=sys.stderr)
            sys.exit(77)
    if os.geteuid() != 0:
        print('skipping: needs root (runs clients as nobody)', file=sys.stderr)
        sys.exit(77)
    unittest.main(module='__main__', argv=sys.argv[:1] + sys.argv[3:], verbosity=2)
