# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the benchmarks of tests/bench share (and the D-Bus tests use too:
the bus configuration, fake_proc()): a private system bus, an
inotify watch timed to the ns, percentiles and ratios, process figures
from /proc, and a root that looks like a SchedTune kernel to boostd."""

import ctypes
import os
import threading
import struct
import select
import subprocess
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = 'org.boostd.Boost1'
PATH = '/org/boostd/Boost1'
IFACE = 'org.boostd.Boost1'
GROUPS = ['background', 'interactive', 'performance']
EVENT = struct.Struct('@llHHi')          # struct input_event

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
{limits}
</busconfig>
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


def ratio(a, b):
    return f'{a / b:.2f}' if b else '-'




class PrivateBus:
    """A dbus-daemon of its own, a system bus for what runs with env."""

    def __init__(self, tmp):
        sock = os.path.join(tmp, 'bus')
        conf = os.path.join(tmp, 'bus.conf')
        with open(conf, 'w') as f:
            f.write(BUS_CONF.format(sock=sock, limits=''))
        self.proc = subprocess.Popen(['dbus-daemon', '--config-file', conf, '--nofork',
                                      '--print-address'], stdout=subprocess.PIPE, text=True)
        self.address = self.proc.stdout.readline().strip()
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address)

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self.proc.stdout.close()


def compile_c(src, out):
    subprocess.run(['cc', '-O2', '-x', 'c', '-o', out, '-'], input=src, text=True, check=True)


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


def make_stune_tree(root, conf=''):
    """A root with a SchedTune hierarchy at dev/stune (the groups of
    GROUPS, boost 0) and etc/boostd.conf holding conf."""
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
        f.write(conf)


def make_stune_root(root, boost, duration_ms):
    """make_stune_tree() with one keyboard whose events come through the
    FIFO dev/input/event0, and etc/boostd.conf boosting interactive by
    boost for duration_ms at each input event."""
    make_stune_tree(root)
    with open(f'{root}/etc/boostd.conf', 'w') as f:
        f.write(f'[Input]\nGroup=interactive\nBoost={boost}\nDurationMs={duration_ms}\n'
                'Devices=keyboard\n')
    os.makedirs(f'{root}/run/udev/data')
    os.makedirs(f'{root}/dev/input')
    with open(f'{root}/run/udev/data/+input:event0', 'w') as f:
        f.write('E:ID_INPUT=1\nE:ID_INPUT_KEYBOARD=1\n')
    os.mkfifo(f'{root}/dev/input/event0', 0o600)


def fake_proc(proc_root, pid, cgroup):
    """Process pid as boostd sees it under proc_root: its real stat,
    status, comm, task and exe, and the cgroup v2 path cgroup."""
    d = f'{proc_root}/{pid}'
    os.makedirs(d, exist_ok=True)
    for name in ('stat', 'status', 'comm', 'task'):
        if not os.path.lexists(f'{d}/{name}'):
            os.symlink(f'/proc/{pid}/{name}', f'{d}/{name}')
    if not os.path.lexists(f'{d}/exe'):
        os.symlink(os.readlink(f'/proc/{pid}/exe'), f'{d}/exe')
    with open(f'{d}/cgroup', 'w') as f:
        f.write(f'0::{cgroup}\n')
