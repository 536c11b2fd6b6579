#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Integration tests of boostd's power state and input boost sources on a
real private D-Bus daemon (polkit mocked by python-dbusmock), against a
temporary root: a fake /sys/class/power_supply tree the test rewrites, and
FIFOs standing in for /dev/input/eventN (with their udev properties in
<root>/run/udev/data/+input:eventN) that the test writes input events
into. Nothing touches this machine's own input subsystem or supplies.

Usage: test-boostd-auto.py BOOSTD BOOSTCTL
"""

import errno
import os
import shutil
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import boostd_harness as harness  # noqa: E402  (exits 77 without dbus and dbusmock)

import dbus  # noqa: E402  (checked by the harness)

from boostd_harness import IFACE, eventually, never  # noqa: E402

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
KEY_A, ABS_X = 30, 0
EVENT = struct.Struct('@llHHi')   # struct input_event on this machine

CONFIG = '''[Input]
Boost=40
DurationMs=200
Devices=keyboard,touchscreen
[Power]
LowBatteryPercent=20
LowBatteryHysteresis=5
'''


class AutoTest(harness.BoostdTest):
    def setUp(self):
        self.root = os.path.join(self.tmp, 'root-' + self.id().split('.')[-1])
        harness.make_tree(self.root)
        with open(f'{self.root}/etc/boostd.conf', 'w') as f:
            f.write(CONFIG)
        self.supply('AC', type='Mains', online='1')
        self.supply('BAT0', type='Battery', capacity='60', status='Charging')
        os.makedirs(f'{self.root}/dev/input')
        os.makedirs(f'{self.root}/run/udev/data')
        self.writers = {}
        self.children = []
        self.polkit.SetAllowed(dbus.Array([], signature='s'))
        self.daemon = None
        self.start_daemon()

    def tearDown(self):
        for fd in self.writers.values():
            os.close(fd)
        super().tearDown()

    # the fake power_supply tree
    def supply(self, name, **attrs):
        d = f'{self.root}/sys/class/power_supply/{name}'
        os.makedirs(d, exist_ok=True)
        for k, v in attrs.items():
            with open(f'{d}/{k}', 'w') as f:
                f.write(v + '\n')

    def remove_supply(self, name):
        shutil.rmtree(f'{self.root}/sys/class/power_supply/{name}')

    # fake input devices
    def add_device(self, name, *props):
        with open(f'{self.root}/run/udev/data/+input:{name}', 'w') as f:
            f.write('E:ID_INPUT=1\n' + ''.join(f'E:{p}=1\n' for p in props))
        path = f'{self.root}/dev/input/{name}'
        os.mkfifo(path, 0o600)

    def open_device(self, name):
        """Waits until boostd has the device open, keeps the writing end."""
        path = f'{self.root}/dev/input/{name}'

        def try_open():
            try:
                self.writers[name] = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                return True
            except OSError as e:
                if e.errno != errno.ENXIO:   # no reader yet
                    raise
                return False
        eventually(try_open, msg=f'boostd reading {name}')

    def unplug(self, name):
        os.close(self.writers.pop(name))
        os.unlink(f'{self.root}/dev/input/{name}')

    def events(self, name, *evs):
        data = b''.join(EVENT.pack(0, 0, t, c, v) for t, c, v in evs)
        os.write(self.writers[name], data)

    def key(self, name='event3'):
        self.events(name, (EV_KEY, KEY_A, 1), (EV_SYN, 0, 0), (EV_KEY, KEY_A, 0), (EV_SYN, 0, 0))

    def touch(self, name='event5'):
        self.events(name, (EV_ABS, ABS_X, 123), (EV_SYN, 0, 0))

    def log(self):
        with open(self.log_path()) as f:
            return f.read()

    def power_state(self):
        return str(self.props.Get(IFACE, 'PowerState'))

    def monitor(self):
        """boostctl monitor, its lines collected by a thread."""
        p = subprocess.Popen([harness.BOOSTCTL, 'monitor'], stdout=subprocess.PIPE, text=True)
        self.children.append(p)
        self.assertIn('Monitoring', p.stdout.readline())
        lines = []
        t = threading.Thread(target=lambda: lines.extend(iter(p.stdout.readline, '')),
                             daemon=True)
        t.start()
        time.sleep(0.2)
        return lines

    # tests
    def test_power_states_with_hysteresis(self):
        self.assertEqual(self.power_state(), 'ac')
        self.assertEqual(self.boost_file('interactive'), 10)
        lines = self.monitor()
        # unplugged: battery, every group at once
        self.supply('AC', online='0')
        self.supply('BAT0', status='Discharging')
        eventually(lambda: self.power_state() == 'battery', msg='battery')
        self.assertEqual(self.boost_file('interactive'), 5)
        self.assertEqual(self.boost_file('performance'), 30)
        self.assertEqual(self.groups()['performance'], (30, 30))
        eventually(lambda: 'PowerState battery\n' in lines, msg='PowerState signal')
        eventually(lambda: 'Groups\n' in lines[lines.index('PowerState battery\n'):],
                   msg='Groups signal after PowerState')
        # low at 20%, and it stays low until 25%
        self.supply('BAT0', capacity='20')
        eventually(lambda: self.power_state() == 'low', msg='low')
        self.assertEqual(self.boost_file('performance'), 10)
        self.assertEqual(self.boost_file('interactive'), 0)
        self.supply('BAT0', capacity='24')
        never(lambda: self.power_state() != 'low', 0.3, 'low ended before the hysteresis')
        self.supply('BAT0', capacity='25')
        eventually(lambda: self.power_state() == 'battery', msg='battery after hysteresis')
        self.assertEqual(self.boost_file('performance'), 30)
        # plugged in: ac at once
        self.supply('AC', online='1')
        eventually(lambda: self.power_state() == 'ac', msg='ac')
        self.assertEqual(self.boost_file('performance'), 50)

    def test_battery_vanishes_and_returns(self):
        self.supply('AC', online='0')
        self.supply('BAT0', status='Discharging', capacity='10')
        eventually(lambda: self.power_state() == 'low', msg='low')
        # no battery at all: ac
        self.remove_supply('BAT0')
        eventually(lambda: self.power_state() == 'ac', msg='ac without battery')
        self.assertEqual(self.boost_file('performance'), 50)
        self.supply('BAT0', type='Battery', capacity='50', status='Discharging')
        eventually(lambda: self.power_state() == 'battery', msg='battery back')
        self.assertEqual(self.boost_file('performance'), 30)

    def test_input_boost_rise_and_decay(self):
        self.add_device('event3', 'ID_INPUT_KEY', 'ID_INPUT_KEYBOARD')
        self.add_device('event5', 'ID_INPUT_TOUCHSCREEN')
        self.add_device('event6', 'ID_INPUT_MOUSE')      # not in Devices=
        self.open_device('event3')
        self.open_device('event5')
        time.sleep(0.2)
        with self.assertRaises(OSError):   # boostd never opened the mouse
            os.open(f'{self.root}/dev/input/event6', os.O_WRONLY | os.O_NONBLOCK)
        self.assertEqual(self.boost_file('interactive'), 10)
        self.key()
        eventually(lambda: self.boost_file('interactive') == 40, msg='input boost')
        self.assertEqual(self.groups()['interactive'], (10, 40))
        self.assertEqual(tuple(self.iface.GetBoost('interactive')), (10, 40))
        # activity keeps it up past DurationMs=200
        for _ in range(8):
            self.touch()
            time.sleep(0.05)
            self.assertEqual(self.boost_file('interactive'), 40)
        eventually(lambda: self.boost_file('interactive') == 10, msg='decay')
        self.assertEqual(self.groups()['interactive'], (10, 10))
        # a hold above the input boost wins, the input boost still decays
        cookie = self.iface.Hold('interactive', dbus.UInt32(60), dbus.UInt32(0), 'test')
        self.key()
        time.sleep(0.1)
        self.assertEqual(self.boost_file('interactive'), 60)
        self.iface.Release(cookie)
        self.assertEqual(self.boost_file('interactive'), 40)
        eventually(lambda: self.boost_file('interactive') == 10, msg='decay after hold')

    def test_input_device_vanishes_and_returns(self):
        self.add_device('event3', 'ID_INPUT_KEYBOARD')
        self.open_device('event3')
        self.unplug('event3')
        eventually(lambda: 'event3 gone' in self.log(), msg='device gone')
        os.mkfifo(f'{self.root}/dev/input/event3', 0o600)
        self.open_device('event3')
        self.key()
        eventually(lambda: self.boost_file('interactive') == 40, msg='boost after replug')
        eventually(lambda: self.boost_file('interactive') == 10, msg='decay')

    def test_manual_mode_leaves_boosts_alone(self):
        self.add_device('event3', 'ID_INPUT_KEYBOARD')
        self.open_device('event3')
        self.props.Set(IFACE, 'Mode', 'manual')
        self.key()
        self.supply('AC', online='0')
        self.supply('BAT0', status='Discharging', capacity='10')
        # sampled more often than DurationMs=200, so a boost cannot slip by
        never(lambda: self.boost_file('interactive') != 10 or
              self.boost_file('performance') != 50, 0.5, 'a boost change in manual mode')
        self.assertEqual(self.boost_file('interactive'), 10)
        self.assertEqual(self.boost_file('performance'), 50)
        self.assertEqual(self.power_state(), 'ac')
        # the API still works in manual mode
        self.iface.SetBoost('background', dbus.UInt32(3))
        self.assertEqual(self.boost_file('background'), 3)
        # back to auto: the current power state applies, input boosts again
        self.props.Set(IFACE, 'Mode', 'auto')
        eventually(lambda: self.power_state() == 'low', msg='low after auto')
        self.assertEqual(self.boost_file('performance'), 10)
        self.key()
        eventually(lambda: self.boost_file('interactive') == 40, msg='input boost in auto')

    def test_reload_input_and_power_config(self):
        self.add_device('event3', 'ID_INPUT_KEYBOARD')
        self.open_device('event3')
        conf = f'{self.root}/etc/boostd.conf'
        with open(conf, 'w') as f:
            f.write('[Input]\nGroup=performance\nBoost=80\nDevices=keyboard\n')
        self.iface.Reload()
        self.key()
        eventually(lambda: self.boost_file('performance') == 80, msg='boost on new group')
        self.assertEqual(self.boost_file('interactive'), 10)
        # a bad line is rejected with file:line, the running config stays
        with open(conf, 'w') as f:
            f.write('[Power]\nLowBatteryPercent=80\n')
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            self.iface.Reload()
        self.assertEqual(cm.exception.get_dbus_name(), harness.ERR + 'InvalidConfig')
        self.assertIn('boostd.conf:2: LowBatteryPercent=80: value out of range 0..50',
                      cm.exception.get_dbus_message())
        eventually(lambda: self.boost_file('performance') == 50, msg='decay on new group')
        self.key()
        eventually(lambda: self.boost_file('performance') == 80, msg='old config in force')


if __name__ == '__main__':
    harness.main(__doc__)
