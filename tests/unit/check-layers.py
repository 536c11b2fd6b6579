#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The layers of daemon/: every #include "..." points to the same layer
or one below, and the graph of modules (X.c with X.h) has no cycle.

    tests/unit/check-layers.py [DAEMON_DIR]

Each file must be listed in LAYERS: a new file is placed on purpose. The
layers, from the bottom (daemon/README.md draws them):
"""
import os
import re
import sys

LAYERS = [
    # 0: helpers every layer may use
    ('base', ['macro.h', 'boost.h', 'bus-names.h', 'log', 'util', 'event-util',
              'config-version.h']),
    # 1: the configuration
    ('config', ['config-sources', 'config-sessions', 'config']),
    # 2: pure facts and decisions, no I/O but /proc reads
    ('logic', ['process', 'seats', 'rules', 'policy', 'classify', 'holds', 'session-pid', 'sessions']),
    # 3: what is kept and what reaches the kernel
    ('kernel', ['state', 'schedtune-io', 'schedtune-io-files', 'schedtune-io-libcgroup',
                'backend', 'backend-threads', 'backend-schedtune', 'backend-uclamp', 'backend-none',
                'thread-clamp']),
    # 4: event sources, which know only events.h above them
    ('sources', ['events.h', 'device-watch', 'units', 'seats-watch', 'procmon', 'input', 'power', 'gamemode']),
    # 5: what to do with a process, a group
    ('decisions', ['groups', 'placer', 'work-sessions']),
    # 6: the owner of it all
    ('manager', ['manager']),
    # 7: the bus, which only translates
    ('bus', ['polkit', 'manager-bus']),
    # 8: the programs
    ('programs', ['boostd', 'boostctl', 'boostd-session']),
]

INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def module(name):
    """X.c and X.h are module X; a header alone is listed by its name."""
    return name if name in LEVEL else os.path.splitext(name)[0]


def main():
    daemon = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'daemon')
    global LEVEL
    LEVEL = {m: i for i, (_, ms) in enumerate(LAYERS) for m in ms}
    os.chdir(daemon)
    files = sorted(f for f in os.listdir('.') if f.endswith(('.c', '.h')))
    errors = []
    edges = {}
    for f in files:
        src = module(f)
        if src not in LEVEL:
            errors.append(f'{f}: not in any layer of {sys.argv[0]}')
            continue
        with open(f) as fh:
            for inc in INCLUDE.findall(fh.read()):
                dst = module(inc)
                if dst not in LEVEL:
                    errors.append(f'{f}: includes {inc}, which is in no layer')
                    continue
                if dst == src:
                    continue
                if LEVEL[dst] > LEVEL[src]:
                    errors.append(f'{f} ({LAYERS[LEVEL[src]][0]}) includes {inc} '
                                  f'({LAYERS[LEVEL[dst]][0]}): an upward edge')
                edges.setdefault(src, set()).add(dst)

    # a cycle among modules of one layer
    state = {}

    def visit(m, path):
        state[m] = 1
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                errors.append('cycle: ' + ' -> '.join(path[path.index(n):] + [n]))
            elif n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])

    for e in errors:
        print('check-layers:', e, file=sys.stderr)
    if errors:
        return 1
    print(f'check-layers: {len(files)} files in {len(LAYERS)} layers, '
          f'{sum(len(v) for v in edges.values())} edges, no cycle, none upward')
    return 0


if __name__ == '__main__':
    sys.exit(main())
