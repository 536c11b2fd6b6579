#!/bin/bash
# The kernel log has no WARNING, BUG, lockdep or RCU report after all the
# scenarios (the host checks the console log too), and no unit failed.
. /usr/lib/boostd-systest/lib.sh

re='WARNING:|BUG:|BUG |Oops|Kernel panic|Unable to handle kernel|possible recursive locking'
re+='|possible circular locking|inconsistent lock state|suspicious RCU usage|INFO: '
re+='|detected stall|soft lockup|hard LOCKUP|Call trace:|sleeping function called from invalid context'
if dmesg | grep -E "$re" > /run/splat.txt; then
	dmesg | tail -80
	fail "kernel log: $(head -1 /run/splat.txt)"
fi
failed=$(systemctl --failed --no-legend --plain | awk '{ print $1 }' | tr '\n' ' ')
[ -z "$failed" ] || fail "failed units: $failed"
say "kernel log clean ($(dmesg | wc -l) lines), no failed unit"
