#!/bin/bash
# The kernel log has no WARNING, BUG, lockdep or RCU report after all the
# scenarios (the host checks the console log too), and no unit failed.
. /usr/lib/boostd-systest/lib.sh

# The patterns of the kernel tests (tests/kernel/lib.sh), copied into the
# image by build-guest.
re=$(cat "$lib/splat.re") || fail "no $lib/splat.re in the image"
if dmesg | grep -E "$re" > /run/splat.txt; then
	dmesg | tail -80
	fail "kernel log: $(head -1 /run/splat.txt)"
fi
failed=$(systemctl --failed --no-legend --plain | awk '{ print $1 }' | tr '\n' ' ')
[ -z "$failed" ] || fail "failed units: $failed"
say "kernel log clean ($(dmesg | wc -l) lines), no failed unit"
