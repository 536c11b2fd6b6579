#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The folders of daemon/: every #include "..." points into a folder that
the including file's folder may use, and the graph of modules (X.c with
X.h) has no cycle.

    tests/unit/check-layers.py [DAEMON_DIR]
    tests/unit/check-layers.py --self-test

Every .c and .h lives in one of the folders below (none at the top of
daemon/), and names are unique across folders, as meson puts the library
folders on one include path. --self-test copies a daemon tree, breaks it
each way the check guards against and expects each to be caught.
daemon/README.md draws the same table.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# folder: the folders its files may include, from the bottom up
MAY_INCLUDE = {
    # helpers every folder may use
    'shared': [],
    # what the admin wrote: boostd.conf and its sections
    'config': ['shared'],
    # pure facts and decisions: no I/O but /proc reads, clocks passed in
    'logic': ['shared', 'config'],
    # where values are written: the backends, their cgroup I/O, thread
    # clamps, the state that undoes them
    'actuators': ['shared', 'config', 'logic'],
    # where events enter: each source knows only events.h of the manager
    'sources': ['shared', 'config', 'logic'],
    # the manager and the decisions that act: placing, groups, hint
    # sessions, agents
    'core': ['shared', 'config', 'logic', 'actuators', 'sources'],
    # the bus, which only translates
    'bus': ['shared', 'config', 'logic', 'actuators', 'sources', 'core'],
    # the programs
    'boostd': ['shared', 'config', 'logic', 'actuators', 'sources', 'core', 'bus'],
    'boostd-session': ['shared', 'config', 'logic', 'sources'],
    'boostctl': ['shared'],
}

# generated into the build directory by daemon/meson.build
GENERATED = {'config-version.h': 'shared'}

INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def module(name):
    """X.c and X.h are module X."""
    return os.path.splitext(name)[0]


def check(daemon):
    errors = []
    where = dict(GENERATED)
    files = []
    for entry in sorted(os.listdir(daemon)):
        path = os.path.join(daemon, entry)
        if os.path.isfile(path):
            if entry.endswith(('.c', '.h')):
                errors.append(f'{entry}: at the top of daemon/, in no folder')
            continue
        if entry not in MAY_INCLUDE:
            errors.append(f'{entry}/: a folder {sys.argv[0]} does not know')
            continue
        for f in sorted(os.listdir(path)):
            if not f.endswith(('.c', '.h')):
                continue
            if f in where and where[f] != entry:
                errors.append(f'{entry}/{f}: also in {where[f]}/')
            where[f] = entry
            files.append((entry, f))

    edges = {}
    for folder, f in files:
        with open(os.path.join(daemon, folder, f)) as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            if inc not in where:
                errors.append(f'{folder}/{f}: includes {inc}, which is in no folder')
                continue
            to = where[inc]
            if to != folder and to not in MAY_INCLUDE[folder]:
                errors.append(f'{folder}/{f} includes {to}/{inc}: {folder}/ '
                              f'may include only {", ".join(MAY_INCLUDE[folder]) or "itself"}')
            src, dst = module(f), module(inc)
            if src != dst:
                edges.setdefault(src, set()).add(dst)

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
    return errors, len(files), sum(len(v) for v in edges.values())


def self_test(daemon):
    """Each breakage must be caught; the tree as it is must pass."""
    def broken(edit):
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, 'daemon')
            shutil.copytree(daemon, copy)
            edit(copy)
            return check(copy)[0]

    def append(rel, line):
        def edit(copy):
            with open(os.path.join(copy, rel), 'a') as fh:
                fh.write(line + '\n')
        return edit

    cases = {
        'an upward include': append('logic/rules.c', '#include "manager.h"'),
        'a source reaching an actuator': append('sources/input.c', '#include "backend.h"'),
        'boostctl reaching the library': append('boostctl/boostctl.c', '#include "manager.h"'),
        'a cycle in one folder': append('logic/process.h', '#include "rules.h"'),
        'a file at the top': lambda c: open(os.path.join(c, 'stray.c'), 'w').close(),
        'a name in two folders': lambda c: shutil.copy(os.path.join(c, 'shared', 'util.h'),
                                                       os.path.join(c, 'core', 'util.h')),
    }
    failed = 0
    errors = check(daemon)[0]
    if errors:
        print('check-layers --self-test: the tree itself fails:', errors[0], file=sys.stderr)
        failed += 1
    for what, edit in cases.items():
        errors = broken(edit)
        if errors:
            print(f'check-layers --self-test: {what}: caught ({errors[0]})')
        else:
            print(f'check-layers --self-test: {what}: NOT caught', file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def main():
    args = [a for a in sys.argv[1:] if a != '--self-test']
    daemon = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'daemon')
    if '--self-test' in sys.argv[1:]:
        return self_test(daemon)
    errors, n_files, n_edges = check(daemon)
    for e in errors:
        print('check-layers:', e, file=sys.stderr)
    if errors:
        return 1
    print(f'check-layers: {n_files} files in {len(MAY_INCLUDE)} folders, '
          f'{n_edges} edges, no cycle, none against the folders\' rules')
    return 0


if __name__ == '__main__':
    sys.exit(main())
