#!/bin/bash
# A work session on the real kernel: frame-loop (CPU 1) opens one for its
# own thread with a 60 Hz target and reports modelled frame times in
# batches of 8 (a 10 ms part no frequency changes, the rest CPU work that
# meets the target at 800 MHz). The frames that miss at first come to the
# target, and when the work drops to 0.6 times as much the session's
# output comes back down. The client leaving the bus closes the session.
# Twice: with boostd setting the thread's uclamp.min (this kernel has
# uclamp), which schedutil turns into the CPU's frequency; then with
# [Sessions] Actuator=schedtune, as on a kernel without uclamp, where the
# thread moves alone into boostd's pool groups (session.20 to
# session.100), whose boost gives the frequency in steps of 20 (on the
# 6.1 series' kernel only: the 6.12 one has no v1 groups).
. /usr/lib/boostd-systest/lib.sh

dropin=/etc/boostd.conf.d/60-session-pool.conf
# The loop is what this scenario tests, not schedutil's rate limit: a
# raised uclamp.min waits out the test driver's 10 ms limit at a wakeup
# (the benchmarks' wakeup response; the series bypasses it for a raised
# boost only), which with other work on the CPU left whole frames at the
# lowest OPP in one CI run. 1 ms here, as fast-switching hardware has.
rl=$(ls /sys/devices/system/cpu/cpufreq/schedutil/rate_limit_us \
	/sys/devices/system/cpu/cpufreq/policy1/schedutil/rate_limit_us 2> /dev/null | head -1)
old_rl=$(cat "$rl" 2> /dev/null)
trap 'rm -f "$dropin"; [ -z "$old_rl" ] || echo "$old_rl" > "$rl"' EXIT
[ -n "$old_rl" ] || fail "no schedutil rate_limit_us"
echo 1000 > "$rl" || fail "cannot set $rl"

systemctl is-active -q boostd || systemctl start boostd || fail "boostd does not start"

# run MODE: frame-loop's reports in /run/frame-loop-MODE.txt, then the
# verdict. Report lines: report N PHASE FRAME_MS KHZ UTIL_MIN BOOST GROUP.
run() {
	local mode=$1 out=/run/frame-loop-$1.txt verdict
	timeout 120 "$lib/frame-loop" 1 400 8 10 800 0.6 > "$out" 2> /run/frame-loop.err ||
		fail "$mode: frame-loop failed: $(cat /run/frame-loop.err)"
	cat "$out"
	# medians, so that one frame a slow guest delayed does not decide
	verdict=$(awk -v target=16.667 -v mode="$mode" '
	function median(a, from, to,    i, j, k, t, b) {
		k = 0
		for (i = from; i <= to; i++)
			b[++k] = a[i]
		for (i = 1; i <= k; i++)
			for (j = i + 1; j <= k; j++)
				if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		return b[int((k + 1) / 2)]
	}
	function mean(a, from, to,    i, s) {
		for (i = from; i <= to; i++)
			s += a[i]
		return s / (to - from + 1)
	}
	# the pool group of an output: the step of 20 at or above it
	function step(u) {
		return u >= 1024 ? 100 : int((u * 5 + 1023) / 1024) * 20
	}
	$1 == "late" { late = $2 }
	$1 != "report" { next }
	{
		n++; ms[n] = $4; um[n] = $6; out[n] = $7
		if (mode == "uclamp" && $6 != $7 && !bad)
			bad = "report " n ": uclamp.min " $6 ", the session says " $7
		if (mode == "pool") {
			if ($6 != 0 && !bad)
				bad = "report " n ": uclamp.min " $6 " set without uclamp actuation"
			want = step($7) ? "session." step($7) : ""
			if (want != "" && $8 != want && !bad)
				bad = "report " n ": output " $7 " but the thread is in " $8 ", not " want
			if (want == "" && $8 ~ /^session\./ && !bad)
				bad = "report " n ": output 0 but the thread is in " $8
			if (want != "")
				pools[want] = 1
		}
	}
	END {
		if (n != 50) { print "FAIL " n " reports, want 50"; exit }
		if (bad) { print "FAIL " bad; exit }
		if (late > 100) { print "FAIL " late " of 400 frames started a period late"; exit }
		# The session starts at Initial (100 of 1024), well below what
		# the heavy frames need, but the first batch runs at whatever
		# the CPU was left at (557 to 751 MHz seen), so one of the
		# first three reports, not the first, must miss by 10 %: a
		# load that met its target unhelped would prove nothing.
		first = ms[1]
		for (i = 2; i <= 3; i++)
			if (ms[i] > first)
				first = ms[i]
		if (first < 1.1 * target) { print "FAIL the first frames do not miss: " ms[1] ", " ms[2] ", " ms[3] " ms"; exit }
		hm = median(ms, 13, 25); hu = median(out, 13, 25); ha = mean(ms, 13, 25)
		lm = median(ms, 38, 50); lu = median(out, 38, 50); la = mean(ms, 38, 50)
		if (mode == "uclamp") {
			if (hm < 0.95 * target || hm > 1.05 * target) { print "FAIL heavy half: median " hm " ms"; exit }
			# the light half needs 480 MHz, below what the reference
			# gains settle at (boostd.conf(5)): they swing around it,
			# more below the target than above
			if (lm < 0.85 * target || lm > 1.05 * target) { print "FAIL light half: median " lm " ms"; exit }
		} else {
			# steps of 20: the frames alternate around the target
			if (ha < 0.9 * target || ha > 1.1 * target) { print "FAIL heavy half: mean " ha " ms"; exit }
			if (lm > 1.05 * target) { print "FAIL light half: median " lm " ms"; exit }
			for (g in pools)
				used = used " " g
			if (!used) { print "FAIL the thread was in no pool group"; exit }
		}
		# With uclamp the output is what the thread gets, and less work
		# must get less. The pool quantizes it into steps of 20 (0 is
		# the own group of the thread, at boost 0): the light half misses
		# at 0 and is early at 20, so its output swings between 0 and a
		# jump after each miss (a limit cycle, 0 to 384 in a CI run on a
		# loaded host) and its median or mean says nothing about the
		# work; there the frames are what is checked. (No apostrophe in
		# this program: it is quoted for the shell.)
		if (mode == "uclamp" && lu > 0.8 * hu) { print "FAIL light half at output " lu ", not below 0.8 x " hu; exit }
		printf "OK first reports %.1f, %.1f ms; heavy half (reports 13-25): median %.2f ms, mean %.2f, output %d; light half (38-50): median %.2f ms, mean %.2f, output %d; %d late frames%s\n",
		       ms[1], ms[2], hm, ha, hu, lm, la, lu, late, used ? "; pool groups" used : ""
	}' "$out")
	case "$verdict" in
	OK*) say "$mode: ${verdict#OK }" ;;
	*) fail "$mode: ${verdict#FAIL }" ;;
	esac
	# the client left: no session is left
	wait_for "$DEADLINE_MS" sh -c '[ "$(busctl get-property org.boostd.Boost1 /org/boostd/Boost1 org.boostd.Boost1 Sessions)" = "a(ouuuu) 0" ]' ||
		fail "$mode: a session outlived its client: $(boostctl sessions)"
	say "$mode: session closed with its client"
}

if [ -r /sys/kernel/debug/sched/schedtune ]; then
	say "before: $(grep -E '^cpu1' /sys/kernel/debug/sched/schedtune | tr '\n' ' ')"
fi
run uclamp

# The pool is made of schedtune v1 groups, which the 6.12 series' kernel
# does not have.
if [ "$BACKEND" = schedtune2 ]; then
	say "pool: not on this kernel (no schedtune v1 groups)"
	exit 0
fi
mkdir -p /etc/boostd.conf.d
printf '[Sessions]\nActuator=schedtune\n' > "$dropin"
boostctl reload || fail "reload with Actuator=schedtune failed"
run pool
# the pool groups are made on use and go when no session's thread is left
wait_for "$DEADLINE_MS" sh -c "! ls -d $stune/session.* > /dev/null 2>&1" ||
	fail "pool groups left after the session closed: $(ls -d "$stune"/session.*)"
say "pool groups removed with the session"
rm -f "$dropin"
boostctl reload || fail "reload without the drop-in failed"
