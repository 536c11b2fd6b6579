#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks the agent's user unit and its preset: what the agent needs
# (Type=dbus with its session-bus name, WantedBy=default.target, enabled
# by the preset), the hardening a user manager can apply, systemd-analyze
# verify (clean) and security (exposure at most 6.5: a user unit gets no
# mount namespace here, see the unit).
# Usage: test-user-unit.sh boostd-session.service PRESET BOOSTD_SESSION_BINARY
# Exits 77 (skipped) without systemd-analyze.
set -eu

unit=$1
preset=$2
bin=$(readlink -f "$3")
command -v systemd-analyze >/dev/null || { echo "skipping: no systemd-analyze"; exit 77; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed "s|^ExecStart=/[^ ]*/boostd-session|ExecStart=$bin|" "$unit" > "$dir/boostd-session.service"

fail=0
for want in 'Type=dbus' 'BusName=org.boostd.SessionAgent1' 'Restart=on-failure' \
            'WantedBy=default.target' 'NoNewPrivileges=yes' 'RestrictAddressFamilies=AF_UNIX' \
            'SystemCallFilter=@system-service' 'SystemCallFilter=~@privileged @resources' \
            'MemoryDenyWriteExecute=yes' 'RestrictNamespaces=yes' 'UMask=0077'; do
        grep -qxF -- "$want" "$dir/boostd-session.service" || { echo "missing: $want"; fail=1; }
done
grep -qx 'enable boostd-session.service' "$preset" || { echo "the preset does not enable the agent"; fail=1; }

export XDG_RUNTIME_DIR="$dir"
out=$(cd "$dir" && systemd-analyze verify --user --man=no ./boostd-session.service 2>&1) || true
if [ -n "$out" ]; then
        echo "systemd-analyze verify --user:"; echo "$out"; fail=1
fi
score=$(cd "$dir" && systemd-analyze --user security --offline=yes ./boostd-session.service 2>/dev/null |
        sed -n 's/.*Overall exposure level for boostd-session.service: \([0-9.]*\).*/\1/p')
echo "exposure: ${score:-unknown}"
if [ -z "$score" ] || [ "$(echo "$score > 6.5" | awk '{print ($1 > $3)}')" -ne 0 ]; then
        echo "systemd-analyze security: exposure ${score:-unknown} above 6.5"; fail=1
fi
exit $fail
