#!/bin/bash
# GameMode in a user's session reaches boostd: alice lingers, so her user
# manager runs, and with it boostd-session (enabled in every user's
# session by its preset, as the package installs it). gamemoderun starts
# a sleeper in her session; GameMode's gamemoded (D-Bus activated on her
# session bus) registers it, the agent forwards it, and boostd puts it in
# performance with the reason "game" (her own process: org.boostd.classify,
# granted to alice by 50-boostd-systest.rules). When the game exits, it is
# no longer a game; when the agent stops, its games go back.
. /usr/lib/boostd-systest/lib.sh
need_boostd

uid=$(id -u alice)
export XDG_RUNTIME_DIR=/run/user/$uid
bus=unix:path=$XDG_RUNTIME_DIR/bus
as_alice() {
	runuser -u alice -- env XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" DBUS_SESSION_BUS_ADDRESS="$bus" "$@"
}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
# the sleep of alice's that was not there before (other scenarios leave
# some), in /run/game.pid
new_sleep() {
	comm -13 <(sort <<< "$1") <(pgrep -u alice -x sleep | sort) | head -1 > /run/game.pid
	[ -s /run/game.pid ]
}
# start_game WHAT: gamemoderun sleep 600 as alice; its PID in $game
start_game() {
	local before
	before=$(pgrep -u alice -x sleep)
	as_alice /usr/games/gamemoderun sleep 600 &
	pids+=("$!")
	wait_for "$DEADLINE_MS" new_sleep "$before" || fail "$1 did not start"
	game=$(cat /run/game.pid)
	pids+=("$game")
}

# alice's user manager, and the agent in it
wait_for "$DEADLINE_MS" as_alice systemctl --user is-active -q boostd-session.service ||
	fail "boostd-session is not running in alice's session: $(as_alice systemctl --user status boostd-session.service 2>&1 | tail -5)"
wait_for "$DEADLINE_MS" sh -c 'boostctl status | grep -q "uid '"$uid"' .*: [0-9]* games\?$"' ||
	fail "boostd lists no agent of alice's: $(boostctl status | sed -n '/Session agents/,$p')"
say "agent: $(boostctl status | grep "uid $uid")"

# a game: gamemoderun's library registers the process with gamemoded,
# which D-Bus starts on her session bus: the first registration waits for
# gamemoded's start too (10 s on a loaded host), so its deadline is longer
t0=$(now_ms)
start_game "gamemoderun's sleep"
wait_for $((4 * DEADLINE_MS)) in_group "$game" performance ||
	fail "the game $game is not in performance: $(boostctl why "$game"); agent: $(as_alice journalctl --user -u boostd-session -n 20 --no-pager 2>&1)"
why=$(boostctl why "$game")
case "$why" in
*": game"*) ;;
*) fail "the game is in performance, but not as a game: $why" ;;
esac
say "game $game in performance after $(( $(now_ms) - t0 )) ms: $why"

# the game exits: GameMode lets it go (or boostd sees it gone)
kill "$game"
wait_for "$DEADLINE_MS" sh -c 'boostctl status | grep -q "uid '"$uid"' .*: 0 games$"' ||
	fail "the agent still has games after the game exited: $(boostctl status | grep "uid $uid")"
say "game exited: $(boostctl status | grep "uid $uid")"

# a second game, then the agent stops: its games go back
start_game "the second game"
wait_for $((4 * DEADLINE_MS)) in_group "$game" performance || fail "the second game $game is not in performance"
as_alice systemctl --user stop boostd-session.service || fail "cannot stop boostd-session"
not_in_performance() {
	! in_group "$game" performance
}
wait_for "$DEADLINE_MS" not_in_performance ||
	fail "the game $game stayed in performance after the agent stopped: $(boostctl why "$game")"
! boostctl status | grep -q "uid $uid " || fail "boostd still lists alice's agent"
say "agent stopped: game $game back ($(boostctl why "$game"))"
as_alice systemctl --user start boostd-session.service || fail "cannot start boostd-session again"
