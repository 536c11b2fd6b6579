#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks the installed unit: the settings issue-level behaviour depends on,
# systemd-analyze verify (clean) and security (exposure at most 2.5).
# Usage: test-unit-file.sh boostd.service BOOSTD_BINARY
# Exits 77 (skipped) without systemd-analyze.
set -eu

unit=$1
boostd=$(readlink -f "$2")
command -v systemd-analyze >/dev/null || { echo "skipping: no systemd-analyze"; exit 77; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The unit names the installed binary; point it at the built one.
sed "s|^\(Exec[A-Za-z]*=[+-]*\)/[^ ]*/boostd|\1$boostd|" "$unit" > "$dir/boostd.service"

fail=0
for want in 'Type=notify' 'BusName=org.boostd.Boost1' 'ExecReload=busctl call org.boostd.Boost1 /org/boostd/Boost1 org.boostd.Boost1 Reload' \
            'WatchdogSec=' 'Restart=on-failure' 'ProtectSystem=strict' 'ProtectHome=yes' \
            'NoNewPrivileges=yes' 'RestrictAddressFamilies=AF_UNIX AF_NETLINK' \
            'SystemCallFilter=@system-service' 'MemoryDenyWriteExecute=yes' \
            'CapabilityBoundingSet=' 'DeviceAllow=char-input r'; do
        grep -qF -- "$want" "$dir/boostd.service" || { echo "missing: $want"; fail=1; }
done
# the process connector (exec events) needs CAP_NET_ADMIN
grep -q '^CapabilityBoundingSet=.*CAP_NET_ADMIN' "$dir/boostd.service" || { echo "missing: CAP_NET_ADMIN"; fail=1; }
# the daemon does not mount (ExecStartPre=+ does) and gets no admin rights
grep -q '^CapabilityBoundingSet=.*CAP_SYS_ADMIN' "$dir/boostd.service" && { echo "must not have: CAP_SYS_ADMIN"; fail=1; }
grep -q '^SystemCallFilter=.*[^~]@mount' "$dir/boostd.service" && { echo "must not allow: @mount"; fail=1; }
for want in 'UMask=0077' 'IPAddressDeny=any' 'ProtectProc=invisible'; do
        grep -qF -- "$want" "$dir/boostd.service" || { echo "missing: $want"; fail=1; }
done
for banned in 'ProtectControlGroups=yes' 'PrivateDevices=yes' 'PrivateNetwork=yes'; do
        grep -qF -- "$banned" "$dir/boostd.service" && { echo "must not have: $banned"; fail=1; }
done
# boostd must ask for the watchdog the unit sets
grep -q sd_event_set_watchdog "$(dirname "$0")/../../daemon/boostd/boostd.c" || { echo "boostd does not enable the watchdog"; fail=1; }

out=$(cd "$dir" && systemd-analyze verify --man=no ./boostd.service 2>&1) || true
if [ -n "$out" ]; then
        echo "systemd-analyze verify:"; echo "$out"; fail=1
fi

score=$(cd "$dir" && systemd-analyze security --offline=yes ./boostd.service 2>/dev/null |
        sed -n 's/.*Overall exposure level for boostd.service: \([0-9.]*\).*/\1/p')
echo "exposure: ${score:-unknown}"
if [ -z "$score" ] || [ "$(echo "$score > 2.5" | awk '{print ($1 > $3)}')" -ne 0 ]; then
        echo "systemd-analyze security: exposure ${score:-unknown} above 2.5"; fail=1
fi
exit $fail
