#!/bin/bash
# A work session on the real kernel: frame-loop (CPU 1) opens one for its
# own thread with a 60 Hz target and reports modelled frame times in
# batches of 8 (a 10 ms part no frequency changes, the rest CPU work that
# meets the target at 800 MHz). boostd sets the thread's uclamp.min, which
# schedutil turns into the CPU's frequency: the frames that miss at first
# come to the target, and when the work drops to 0.6 times as much the
# minimum utilization comes back down. The client leaving the bus closes
# the session.
. /usr/lib/boostd-systest/lib.sh

systemctl is-active -q boostd || systemctl start boostd || fail "boostd does not start"
out=/run/frame-loop.txt
timeout 120 "$lib/frame-loop" 1 400 8 10 800 0.6 > "$out" 2> /run/frame-loop.err ||
	fail "frame-loop failed: $(cat /run/frame-loop.err)"
cat "$out"

# report N PHASE FRAME_MS KHZ UTIL_MIN; medians, so that one frame a
# slow guest delayed does not decide
awk -v target=16.667 '
	function median(a, from, to,    i, j, k, t, b) {
		k = 0
		for (i = from; i <= to; i++)
			b[++k] = a[i]
		for (i = 1; i <= k; i++)
			for (j = i + 1; j <= k; j++)
				if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		return b[int((k + 1) / 2)]
	}
	$1 == "late" { late = $2 }
	$1 != "report" { next }
	{ n++; ms[n] = $4; um[n] = $6 }
	END {
		if (n != 50) { print "FAIL " n " reports, want 50"; exit }
		if (late > 100) { print "FAIL " late " of 400 frames started a period late"; exit }
		first = ms[1] > ms[2] ? ms[1] : ms[2]
		if (first < 1.2 * target) { print "FAIL the first frames do not miss: " ms[1] ", " ms[2] " ms"; exit }
		hm = median(ms, 13, 25); hu = median(um, 13, 25)
		lm = median(ms, 38, 50); lu = median(um, 38, 50)
		if (hm < 0.95 * target || hm > 1.05 * target) { print "FAIL heavy half: median " hm " ms"; exit }
		if (lm < 0.95 * target || lm > 1.05 * target) { print "FAIL light half: median " lm " ms"; exit }
		if (lu > 0.8 * hu) { print "FAIL light half at util_min " lu ", not below 0.8 x " hu; exit }
		printf "OK first reports %.1f, %.1f ms; heavy half (reports 13-25): median %.2f ms at util_min %d; light half (38-50): %.2f ms at %d; %d late frames\n",
		       ms[1], ms[2], hm, hu, lm, lu, late
	}' "$out" > /run/frame-loop.verdict
verdict=$(cat /run/frame-loop.verdict)
case "$verdict" in
OK*) say "${verdict#OK }" ;;
*) fail "${verdict#FAIL }" ;;
esac

# the client left: no session is left, and the thread is gone with it
wait_for "$DEADLINE_MS" sh -c '[ "$(busctl get-property org.boostd.Boost1 /org/boostd/Boost1 org.boostd.Boost1 Sessions)" = "a(ouuuu) 0" ]' ||
	fail "a session outlived its client: $(boostctl sessions)"
say "session closed with its client"
