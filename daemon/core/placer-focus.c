/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The placer's foregrounds and games: which process and app unit are
 * each seat's foreground (SetForeground(), focus sources, logind's
 * seats), which processes GameMode has registered, and the launch boost
 * an app just started gets when it comes to the foreground. What they
 * mean for a process's class is decided in placer.c. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "placer-internal.h"
#include "placer.h"
#include "rules.h"

const Foreground *placer_foreground(Placer *p, const char *seat) {
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (streq(p->foregrounds[i].seat, seat))
                        return &p->foregrounds[i];
        return NULL;
}

/* Whether pid is SetForeground()'s process of some seat. */
bool placer_is_foreground_pid(Placer *p, pid_t pid) {
        /* every seat's: one may still name an exited process whose PID
         * another seat's now has */
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (p->foregrounds[i].id.pid == pid &&
                    process_id_is_current(p->proc_root, &p->foregrounds[i].id) > 0)
                        return true;
        return false;
}

bool placer_is_foreground(Placer *p, pid_t pid, const char *cgroup) {
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (p->foregrounds[i].unit && cgroup_path_is_in(cgroup, p->foregrounds[i].unit))
                        return true;
        return placer_is_foreground_pid(p, pid);
}

bool placer_has_foreground_pid(Placer *p) {
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (p->foregrounds[i].id.pid > 0)
                        return true;
        return false;
}

/* Places the processes of a unit (for the foreground). */
static void placer_place_unit(Placer *p, const char *unit, pid_t skip) {
        UnitPid *pids = NULL;
        size_t n = 0;

        if (!unit || units_unit_pids(p->units, unit, &pids, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++)
                if (pids[i].pid != skip)
                        (void) placer_place(p, pids[i].pid, pids[i].cgroup, true);
        unit_pids_free(pids, n);
}

/* The foreground of a seat changed from (old, old_unit) to what fg
 * holds now: the new one's processes go up, the old one's back to where
 * they belong (placer_place() looks at every seat's). */
static void placer_foreground_changed(Placer *p, const Foreground *fg, const ProcessId *old, const char *old_unit,
                                      pid_t placed) {
        if (fg->unit && !streq_ptr(fg->unit, old_unit))
                placer_place_unit(p, fg->unit, placed);
        if (old_unit && !streq_ptr(old_unit, fg->unit))
                placer_place_unit(p, old_unit, 0);
        if (old->pid > 0 && old->pid != fg->id.pid && process_id_is_current(p->proc_root, old) > 0)
                (void) placer_place(p, old->pid, NULL, true);
        if (old->pid > 0 && old->pid != fg->id.pid)
                placer_decision_changed(p, old->pid);
}

/* The state keeps each seat's SetForeground() process; the caller
 * commits. */
void placer_save_foregrounds(Placer *p) {
        State *j = p->state;

        j->n_foregrounds = 0;
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (p->foregrounds[i].id.pid > 0) {
                        StateForeground *e = &j->foregrounds[j->n_foregrounds++];

                        e->id = p->foregrounds[i].id;
                        e->with_unit = p->foregrounds[i].unit != NULL;
                        strcpy(e->seat, p->foregrounds[i].seat);
                }
}

/* The foreground of seat, made if there is none (NULL: no room). */
Foreground *placer_foreground_get(Placer *p, const char *seat) {
        Foreground *fg = (Foreground *) placer_foreground(p, seat);

        if (fg || p->n_foregrounds >= ELEMENTSOF(p->foregrounds))
                return fg;
        fg = &p->foregrounds[p->n_foregrounds++];
        *fg = (Foreground) {};
        strcpy(fg->seat, seat);
        return fg;
}

/* Drops a seat's foreground that holds nothing any more. */
static void placer_foreground_gc(Placer *p) {
        for (size_t i = 0; i < p->n_foregrounds;)
                if (p->foregrounds[i].id.pid <= 0 && !p->foregrounds[i].unit)
                        p->foregrounds[i] = p->foregrounds[--p->n_foregrounds];
                else
                        i++;
}

/* The seat whose foreground pid's process is: that of its owner's
 * active session, else "" (seats.h); the owner goes to *ret_uid. */
void placer_seat_of(Placer *p, pid_t pid, char seat[static SEAT_NAME_MAX], uid_t *ret_uid) {
        *ret_uid = (uid_t) -1;
        if (proc_get_uid(p->proc_root, pid, ret_uid) < 0 || seat_of_uid(p->seats_dir, *ret_uid, seat) < 0)
                seat[0] = '\0';
}

/* Whether cgroup lies in uid's own slice, user-UID.slice. */
static bool cgroup_in_user_slice(const char *cgroup, uid_t uid) {
        char slice[64];

        snprintf(slice, sizeof(slice), "/user-%u.slice/", (unsigned) uid);
        return cgroup && strncmp(cgroup, "/user.slice", 11) == 0 && strstr(cgroup, slice) == cgroup + 11;
}

/* A unit is the foreground of one seat at a time: it leaves any other. */
void placer_unit_leaves_others(Placer *p, const char *unit, const Foreground *keep) {
        for (size_t i = 0; unit && i < p->n_foregrounds; i++)
                if (&p->foregrounds[i] != keep && streq_ptr(p->foregrounds[i].unit, unit))
                        p->foregrounds[i].unit = mfree(p->foregrounds[i].unit);
}

/* A process younger than LAUNCH_AGE_MS: its start time (clock ticks
 * since boot, /proc/PID/stat) against CLOCK_BOOTTIME. */
static bool process_just_started(const ProcessId *id) {
        struct timespec ts;
        long hz = sysconf(_SC_CLK_TCK);
        uint64_t now_ms, start_ms;

        if (hz <= 0 || id->start_time == 0 || clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
                return false;
        now_ms = (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
        start_ms = id->start_time * 1000 / (uint64_t) hz;
        return now_ms >= start_ms && now_ms - start_ms < LAUNCH_AGE_MS;
}

static void placer_launch_end(Placer *p) {
        if (p->launch_cookie == 0)
                return;
        /* -ENOENT: it expired by itself */
        (void) groups_release(p->groups, p->launch_cookie, "launch");
        p->launch_cookie = 0;
        p->launch_id = (ProcessId) {};
        p->launch_unit = mfree(p->launch_unit);
}

/* The foreground moved to id (of unit): a launch boost for another app
 * ends, and a process that just started gets one on the group it went
 * to. */
static void placer_launch(Placer *p, const ProcessId *id, const char *unit) {
        const LaunchConfig *c = &p->groups->config->launch;
        PlacerReport rep;
        Hold *h;
        int r;

        if (p->launch_cookie &&
            ((p->launch_id.pid == id->pid && p->launch_id.start_time == id->start_time) ||
             (unit && streq_ptr(p->launch_unit, unit))))
                return;         /* the same app */
        placer_launch_end(p);
        if (c->boost == 0 || !p->auto_mode || !process_just_started(id))
                return;
        if (placer_explain(p, id->pid, &rep) < 0 || rep.class == 0)
                return;
        r = groups_hold(p->groups, p->groups->groups[rep.class].name, c->boost, c->duration_ms,
                        "launch", "launch", 0, &h);
        if (r < 0) {
                log_warning_errno(p->log, r, "Cannot give PID %d its launch boost: %m", (int) id->pid);
                return;
        }
        p->launch_cookie = h->cookie;
        p->launch_id = *id;
        p->launch_unit = unit ? strdup(unit) : NULL;
        log_info(p->log, "Launch boost: %s at least %u for %u ms (PID %d).",
                 p->groups->groups[rep.class].name, c->boost, c->duration_ms, (int) id->pid);
}

/* A unit that gained the focus is a new app if its oldest process is
 * younger than LAUNCH_AGE_MS (a unit has no birth time of its own: its
 * cgroup's inode times change with its files). */
static void placer_launch_unit(Placer *p, const char *unit) {
        ProcessId oldest = {};
        UnitPid *pids = NULL;
        size_t n = 0;

        if (p->groups->config->launch.boost == 0 || !p->auto_mode ||
            units_unit_pids(p->units, unit, &pids, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                uint64_t st;

                if (proc_get_start_time(p->proc_root, pids[i].pid, &st) >= 0 &&
                    (oldest.pid == 0 || st < oldest.start_time))
                        oldest = (ProcessId) { .pid = pids[i].pid, .start_time = st };
        }
        unit_pids_free(pids, n);
        if (oldest.pid > 0)
                placer_launch(p, &oldest, unit);
}

int placer_set_foreground(Placer *p, const ProcessId *want, uid_t confine_uid) {
        _cleanup_(closep) int fd = -1;
        _cleanup_(freep) char *cg = NULL, *old_unit = NULL, *unit = NULL;
        char seat[SEAT_NAME_MAX];
        Foreground *fg;
        ProcessId id, old;
        pid_t pid = want->pid;
        uid_t owner;
        int r;

        r = placer_pin_process(p, want, &id, &fd);
        if (r < 0)
                return r;
        cg = placer_cgroup_of(p, pid);
        r = classify_app_unit(cg, &unit);
        if (r < 0)
                return r;
        /* A user who may only name their own processes takes their unit
         * along only inside their own slice: a user's cron job must not
         * bring cron.service up. */
        if (unit && confine_uid != (uid_t) -1 && !cgroup_in_user_slice(unit, confine_uid)) {
                log_debug(p->log, "Foreground: PID %d only, %s is not in user-%u.slice.", (int) pid, unit,
                          (unsigned) confine_uid);
                unit = mfree(unit);
        }
        placer_seat_of(p, pid, seat, &owner);
        fg = placer_foreground_get(p, seat);
        if (!fg)
                return -ENOSPC;
        fg->uid = owner;

        old = fg->id;
        old_unit = TAKE_PTR(fg->unit);
        fg->id = id;
        fg->unit = TAKE_PTR(unit);
        r = placer_place(p, pid, cg, false);
        if (r < 0) {
                free(fg->unit);
                fg->unit = TAKE_PTR(old_unit);
                fg->id = old;
                placer_foreground_gc(p);
                return r;
        }
        placer_unit_leaves_others(p, fg->unit, fg);
        placer_foreground_changed(p, fg, &old, old_unit, pid);
        log_info(p->log, "Foreground%s%s: PID %d%s%s.", seat[0] ? " of " : "", seat, (int) pid,
                 fg->unit ? ", unit " : "", fg->unit ?: "");
        placer_launch(p, &id, fg->unit);
        placer_foreground_gc(p);
        placer_save_foregrounds(p);
        state_commit(p->state);
        return 0;
}

int placer_set_foreground_unit(Placer *p, const char *seat, const char *unit) {
        _cleanup_(freep) char *old_unit = NULL;
        Foreground *fg;
        ProcessId old;
        char *u = NULL;

        fg = unit ? placer_foreground_get(p, seat) : (Foreground *) placer_foreground(p, seat);
        if (!fg)
                return unit ? -ENOSPC : 0;
        if (streq_ptr(unit, fg->unit) && (unit || fg->id.pid <= 0))
                return 0;
        if (unit) {
                u = strdup(unit);
                if (!u)
                        return -ENOMEM;
        }
        old = fg->id;
        old_unit = fg->unit;
        fg->unit = u;
        if (unit && seat_active_uid(p->seats_dir, seat, &fg->uid) < 0)
                fg->uid = (uid_t) -1;
        /* The focus moved to or from a unit: the process named by
         * SetForeground() is no longer it. */
        fg->id = (ProcessId) {};
        if (!unit || !streq_ptr(unit, p->launch_unit))
                placer_launch_end(p);
        placer_unit_leaves_others(p, fg->unit, fg);
        placer_foreground_changed(p, fg, &old, old_unit, 0);
        log_info(p->log, "Foreground%s%s: %s.", seat[0] ? " of " : "", seat, unit ?: "none");
        if (unit)
                placer_launch_unit(p, unit);
        placer_foreground_gc(p);
        placer_save_foregrounds(p);
        state_commit(p->state);
        return 0;
}

void placer_seats_changed(Placer *p) {
        for (size_t i = 0; i < p->n_foregrounds;) {
                Foreground *fg = &p->foregrounds[i];
                char seat[SEAT_NAME_MAX];
                uid_t uid;

                if (!fg->seat[0] || (seat_active_uid(p->seats_dir, fg->seat, &uid) >= 0 && uid == fg->uid)) {
                        i++;
                        continue;
                }
                /* its user's turn on the seat is over: ended (the slot
                 * goes, the next one takes its place in the array) */
                strcpy(seat, fg->seat);
                log_info(p->log, "Seat %s has another user now.", seat);
                (void) placer_set_foreground_unit(p, seat, NULL);
                if (placer_foreground(p, seat))
                        i++;    /* could not end it: not again */
        }
}

void placer_unfocus_unit(Placer *p, const char *unit) {
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (streq_ptr(p->foregrounds[i].unit, unit)) {
                        char seat[SEAT_NAME_MAX];

                        strcpy(seat, p->foregrounds[i].seat);
                        (void) placer_set_foreground_unit(p, seat, NULL);
                        return;
                }
}

bool placer_is_game(Placer *p, pid_t pid) {
        for (size_t i = 0; i < p->n_games; i++)
                if (p->games[i].id.pid == pid)
                        return process_id_is_current(p->proc_root, &p->games[i].id) > 0;
        return false;
}

/* Drops the game entry i. */
static void games_drop(Placer *p, size_t i) {
        free(p->games[i].source);
        memmove(&p->games[i], &p->games[i + 1], (p->n_games - i - 1) * sizeof(PlacerGame));
        p->n_games--;
}

/* Drops pid's entries of source (NULL: of every source); true if one was
 * there. */
bool placer_games_remove(Placer *p, pid_t pid, const char *source) {
        bool found = false;

        for (size_t i = 0; i < p->n_games;)
                if (p->games[i].id.pid == pid && (!source || streq(p->games[i].source, source))) {
                        games_drop(p, i);
                        found = true;
                } else
                        i++;
        return found;
}

static bool games_have(const Placer *p, pid_t pid) {
        for (size_t i = 0; i < p->n_games; i++)
                if (p->games[i].id.pid == pid)
                        return true;
        return false;
}

static const char *game_source_name(const char *source) {
        return source[0] ? source : "the system bus";
}

int placer_game_register(Placer *p, pid_t pid, const char *source) {
        ProcessId id = { .pid = pid };
        int r;

        if (pid <= 0)
                return -ESRCH;
        r = proc_get_start_time(p->proc_root, pid, &id.start_time);
        if (r < 0)
                return r;
        return placer_game_register_id(p, &id, source);
}

int placer_game_register_id(Placer *p, const ProcessId *want, const char *source) {
        ProcessId id = *want;
        pid_t pid = id.pid;
        PlacerGame *g;
        char *src;

        if (pid <= 0 || process_id_is_current(p->proc_root, &id) <= 0)
                return -ESRCH;
        /* a reused PID: what was said of the old process goes */
        for (size_t i = 0; i < p->n_games;)
                if (p->games[i].id.pid == pid &&
                    (p->games[i].id.start_time != id.start_time || streq(p->games[i].source, source)))
                        games_drop(p, i);
                else
                        i++;
        src = strdup(source);
        if (!src)
                return -ENOMEM;
        g = realloc(p->games, (p->n_games + 1) * sizeof(PlacerGame));
        if (!g) {
                free(src);
                return -ENOMEM;
        }
        p->games = g;
        p->games[p->n_games++] = (PlacerGame) { .id = id, .source = src };
        log_info(p->log, "GameMode: PID %d registered (from %s).", (int) pid, game_source_name(source));
        return placer_place_auto(p, pid, NULL);
}

int placer_game_unregister(Placer *p, pid_t pid, const char *source) {
        int r;

        if (!placer_games_remove(p, pid, source))
                return 0;
        log_info(p->log, "GameMode: PID %d unregistered (from %s).", (int) pid, game_source_name(source));
        if (games_have(p, pid))
                return 0;       /* another source still has it */
        r = placer_place_auto(p, pid, NULL);
        placer_decision_changed(p, pid);
        return r;
}

void placer_games_clear(Placer *p, const char *source) {
        for (size_t i = 0; i < p->n_games;)
                if (streq(p->games[i].source, source))
                        (void) placer_game_unregister(p, p->games[i].id.pid, source);
                else
                        i++;
}

bool placer_game_has(const Placer *p, pid_t pid, const char *source) {
        for (size_t i = 0; i < p->n_games; i++)
                if (p->games[i].id.pid == pid && streq(p->games[i].source, source))
                        return true;
        return false;
}

size_t placer_games_of(const Placer *p, const char *source) {
        size_t n = 0;

        for (size_t i = 0; i < p->n_games; i++)
                n += streq(p->games[i].source, source);
        return n;
}
