/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The placer: who decides a process's class, and moving it there. */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "event-util.h"
#include "macro.h"
#include "placer.h"
#include "rules.h"
#include "util.h"

/* How often a process whose leader exited is looked at again, and how
 * many are. */
#define LINGER_CHECK_USEC (2 * USEC_PER_SEC)
#define LINGERING_MAX 4096U
/* How far up the parent chain a decision is looked for. */
#define INHERIT_DEPTH_MAX 32U

int placer_init(Placer *p, const char *root, const char *proc_root, sd_event *event, State *state,
                Groups *groups, const LogContext *log) {
        *p = (Placer) {
                .log = log,
                .proc_root = proc_root,
                .event = event,
                .state = state,
                .groups = groups,
                .auto_mode = true,
        };
        p->seats_dir = seats_dir(root);
        return p->seats_dir ? 0 : -ENOMEM;
}

void placer_done(Placer *p) {
        p->linger_timer = sd_event_source_disable_unref(p->linger_timer);
        p->launch_unit = mfree(p->launch_unit);
        p->launch_cookie = 0;
        for (size_t i = 0; i < p->n_foregrounds; i++)
                free(p->foregrounds[i].unit);
        p->n_foregrounds = 0;
        free(p->seats_dir);
        p->seats_dir = NULL;
        for (size_t i = 0; i < p->n_games; i++)
                free(p->games[i].source);
        free(p->games);
        free(p->lingering);
        free(p->deciders);
        p->deciders = NULL;
        p->n_deciders = 0;
        p->games = NULL;
        p->lingering = NULL;
}

/* Moves a process, named by PID and start time, into group g. */
static int placer_attach(Placer *p, const ProcessId *id, size_t g) {
        State *j = p->state;
        const char *name = p->groups->groups[g].name;
        int r;

        if (!p->backend || !p->backend->vt)
                return -ENODEV;
        r = p->backend->vt->attach(p->backend, name, id);
        /* The list of placed processes is full: without exit events (no
         * process connector) it keeps those that are gone. */
        if (r == -ENOSPC && state_placed_prune(j, p->proc_root) > 0)
                r = p->backend->vt->attach(p->backend, name, id);
        if (j->dirty)
                state_save_later(j);
        return r;
}

/* Names a live process by PID and start time, holding a pidfd that tells
 * whether it exited while it was being moved. want->start_time, if not
 * 0, is the process the caller meant (pinned when its call came in): a
 * PID that names another process now is -ESRCH. */
static int placer_pin_process(Placer *p, const ProcessId *want, ProcessId *ret_id, int *ret_pidfd) {
        _cleanup_(closep) int fd = -1;
        int r;

        if (want->pid <= 0)
                return -ESRCH;
        fd = pidfd_open_pid(want->pid);
        if (fd == -ESRCH)
                return -ESRCH;
        /* Without pidfds (old kernel, seccomp) the start time alone names
         * the process. */
        ret_id->pid = want->pid;
        r = proc_get_start_time(p->proc_root, want->pid, &ret_id->start_time);
        if (r < 0 || (want->start_time != 0 && ret_id->start_time != want->start_time))
                return -ESRCH;
        *ret_pidfd = TAKE_FD(fd);
        return 0;
}

/* After the move: if the pidfd says the process exited meanwhile, the
 * move may have hit a reused PID. Only ESRCH says so: without CAP_KILL
 * (the unit does not grant it) signal 0 to another user's live process
 * fails with EPERM. */
static bool pidfd_still_alive(int fd) {
        if (fd < 0)
                return true;
        return syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) == 0 || errno != ESRCH;
}

/* Remembers that boostd took the process out of the group it had placed
 * it in. */
static void placer_released(Placer *p, const ProcessId *id) {
        StatePid *e = state_pid_find(p->state->placed, p->state->n_placed, id->pid);

        if (!e || e->id.start_time != id->start_time)
                return;
        p->released[p->n_released++ % ELEMENTSOF(p->released)] = *e;
}

static int placer_place(Placer *p, pid_t pid, const char *cgroup, bool by_hand_wins);
static void placer_decision_changed(Placer *p, pid_t pid);

/* The pinned process exited while it was moved. If its PID names another
 * process now, the write may have moved that one: it is forgotten as
 * placed and put where it belongs itself. */
static void placer_after_exit_in_move(Placer *p, const ProcessId *id) {
        State *j = p->state;
        uint64_t start;

        state_placed_remove(j, id->pid);
        state_save_later(j);
        if (proc_get_start_time(p->proc_root, id->pid, &start) < 0 || start == id->start_time) {
                log_debug(p->log, "PID %d exited while it was moved.", (int) id->pid);
                return;
        }
        log_warning(p->log, "PID %d exited while it was moved and its PID was reused: placing the new process.",
                    (int) id->pid);
        (void) placer_place(p, id->pid, NULL, false);
}

static int placer_move(Placer *p, const ProcessId *want, size_t g, bool record) {
        _cleanup_(closep) int fd = -1;
        State *j = p->state;
        pid_t pid = want->pid;
        ProcessId id;
        int r;

        r = placer_pin_process(p, want, &id, &fd);
        if (r < 0)
                return r;
        if (g == 0)
                placer_released(p, &id);
        r = placer_attach(p, &id, g);
        if (r >= 0 && fd < 0 && process_id_is_current(p->proc_root, &id) <= 0)
                r = -ESRCH;
        if (r >= 0 && !pidfd_still_alive(fd)) {
                placer_after_exit_in_move(p, &id);
                r = -ESRCH;
        }
        if (r < 0)
                return r;
        if (record) {
                if (g == 0)
                        state_pid_remove(&j->classified, &j->n_classified, pid);
                else
                        (void) state_pid_set(&j->classified, &j->n_classified, &id,
                                             p->groups->groups[g].name);
        }
        return 0;
}

int placer_classify(Placer *p, const ProcessId *id, size_t g) {
        int r;

        r = placer_move(p, id, g, true);
        if (r < 0)
                return r;
        placer_decision_changed(p, id->pid);
        state_commit(p->state);
        log_info(p->log, "PID %d moved to %s.", (int) id->pid, p->groups->groups[g].name);
        return 0;
}

/* Where the process is in the cgroup v2 tree: /proc/PID/cgroup. Where
 * the tree watch last saw it is only a fallback for a process without a
 * v2 line: the watch does not hear a process leave (moved to another
 * unit, or exited and its PID reused), so its answer may be stale. */
static char *placer_cgroup_of(Placer *p, pid_t pid) {
        const char *cg;
        char *ret = NULL;

        if (proc_get_cgroup(p->proc_root, pid, &ret) < 0 || ret)
                return ret;
        cg = units_cgroup_of(p->units, pid);
        return cg ? strdup(cg) : NULL;
}

const Foreground *placer_foreground(Placer *p, const char *seat) {
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (streq(p->foregrounds[i].seat, seat))
                        return &p->foregrounds[i];
        return NULL;
}

/* Whether pid is SetForeground()'s process of some seat. */
static bool placer_is_foreground_pid(Placer *p, pid_t pid) {
        /* every seat's: one may still name an exited process whose PID
         * another seat's now has */
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (p->foregrounds[i].id.pid == pid &&
                    process_id_is_current(p->proc_root, &p->foregrounds[i].id) > 0)
                        return true;
        return false;
}

static bool placer_is_foreground(Placer *p, pid_t pid, const char *cgroup) {
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (p->foregrounds[i].unit && cgroup_path_is_in(cgroup, p->foregrounds[i].unit))
                        return true;
        return placer_is_foreground_pid(p, pid);
}

static bool placer_has_foreground_pid(Placer *p) {
        for (size_t i = 0; i < p->n_foregrounds; i++)
                if (p->foregrounds[i].id.pid > 0)
                        return true;
        return false;
}

bool placer_is_game(Placer *p, pid_t pid) {
        for (size_t i = 0; i < p->n_games; i++)
                if (p->games[i].id.pid == pid)
                        return process_id_is_current(p->proc_root, &p->games[i].id) > 0;
        return false;
}

/* Whether pid's own decision is one its children inherit: Classify(),
 * GameMode, or SetForeground() of that very process. */
static bool placer_decided_for(Placer *p, pid_t pid) {
        StatePid *e = state_pid_find(p->state->classified, p->state->n_classified, pid);

        if (e && process_id_is_current(p->proc_root, &e->id) > 0)
                return true;
        if (placer_is_game(p, pid))
                return true;
        return placer_is_foreground_pid(p, pid);
}

/* The nearest ancestor of pid whose own decision its children inherit,
 * 0 if none. The chain is read at each placement: a child reparented
 * after its decided parent exited no longer inherits. */
static pid_t placer_decided_ancestor(Placer *p, pid_t pid) {
        if (p->state->n_classified == 0 && p->n_games == 0 && !placer_has_foreground_pid(p))
                return 0;       /* nothing to inherit: no /proc reads */
        for (unsigned depth = 0; depth < INHERIT_DEPTH_MAX; depth++) {
                pid_t ppid;

                if (proc_get_parent(p->proc_root, pid, &ppid) < 0 || ppid <= 1)
                        return 0;
                if (placer_decided_for(p, ppid))
                        return ppid;
                pid = ppid;
        }
        return 0;
}

/* The class a process belongs in (classify.h); cgroup is where the caller
 * found it, NULL to look it up. With inherit, a parent's decision counts
 * (its PID in *ret_from). */
static int placer_target(Placer *p, pid_t pid, const char *cgroup, bool inherit, ClassifyReason *ret_reason,
                         pid_t *ret_from) {
        const Config *c = p->groups->config;
        StatePid *e = state_pid_find(p->state->classified, p->state->n_classified, pid);
        ClassifyFacts f = { .explicit_class = -1 };
        ClassifyReason reason;
        ProcessInfoBuf buf;
        ProcessInfo info;
        pid_t from = 0;
        int r;

        r = proc_get_info(p->proc_root, pid, &info, &buf);
        if (r < 0)
                return r;
        /* The caller's is as fresh as /proc's: it just read the unit's
         * cgroup.procs. The watch's memory is not (placer_cgroup_of()). */
        if (cgroup)
                info.cgroup = cgroup;
        else if (!info.cgroup)
                info.cgroup = units_cgroup_of(p->units, pid);
        f.info = &info;
        if (e && process_id_is_current(p->proc_root, &e->id) > 0)
                f.explicit_class = groups_find(p->groups, e->group);
        f.game = placer_is_game(p, pid);
        f.foreground = placer_is_foreground(p, pid, info.cgroup);
        if (inherit && f.explicit_class < 0 && !f.game && !f.foreground) {
                from = placer_decided_ancestor(p, pid);
                r = from > 0 ? placer_target(p, from, NULL, false, NULL, NULL) : -ESRCH;
                if (r >= 0) {
                        f.inherited = true;
                        f.inherited_class = (size_t) r;
                }
        }
        r = classify_process(c, &f, &reason);
        process_info_buf_done(&buf);
        if (ret_reason)
                *ret_reason = reason;
        if (ret_from)
                *ret_from = reason == CLASSIFY_INHERITED ? from : 0;
        return r;
}

/* Whether boostd just took pid out of group (placer_released()). */
static bool placer_was_released(Placer *p, pid_t pid, const char *group) {
        for (size_t i = 0; i < MIN(p->n_released, ELEMENTSOF(p->released)); i++)
                if (p->released[i].id.pid == pid && streq(p->released[i].group, group) &&
                    process_id_is_current(p->proc_root, &p->released[i].id) > 0)
                        return true;
        return false;
}

/* Whether boostd put the process in the group it is in: it placed it
 * there, or the process forked there from one it placed (and may have
 * just taken out again). One moved by hand, or forked from one moved by
 * hand, is not. */
static bool placer_put_there(Placer *p, pid_t pid) {
        char cur[CLASS_NAME_MAX], up[CLASS_NAME_MAX];

        if (!p->backend || !p->backend->vt || !p->backend->vt->group_of ||
            p->backend->vt->group_of(p->backend, pid, cur, sizeof(cur)) < 0)
                return true;    /* cannot tell: placed as before */
        if (streq(cur, p->groups->groups[0].name))
                return true;
        for (unsigned depth = 0; depth < INHERIT_DEPTH_MAX; depth++) {
                StatePid *e = state_pid_find(p->state->placed, p->state->n_placed, pid);
                pid_t ppid;

                if (e && process_id_is_current(p->proc_root, &e->id) > 0)
                        return streq(e->group, cur);
                if (proc_get_parent(p->proc_root, pid, &ppid) < 0 || ppid <= 1)
                        return false;
                if (placer_was_released(p, ppid, cur))
                        return true;
                if (p->backend->vt->group_of(p->backend, ppid, up, sizeof(up)) < 0 || !streq(up, cur))
                        return false;
                pid = ppid;
        }
        return false;
}

typedef enum PlaceCheck {
        PLACE_MOVE,             /* not where it belongs (or cannot tell) */
        PLACE_THERE,            /* there, and the state knows */
        PLACE_BY_HAND,          /* boostd placed it, someone moved it since */
} PlaceCheck;

/* Where the process is, against where it belongs, so that most events
 * (a process execs where it already is) cost no move. A process boostd
 * placed and someone moved elsewhere since was moved by hand: with
 * by_hand_wins boostd leaves it there. */
static PlaceCheck placer_check(Placer *p, pid_t pid, size_t g, bool by_hand_wins) {
        StatePid *e = state_pid_find(p->state->placed, p->state->n_placed, pid);
        const char *want = p->groups->groups[g].name;
        char cur[CLASS_NAME_MAX];
        bool known;

        if (!p->backend || !p->backend->vt || !p->backend->vt->group_of ||
            p->backend->vt->group_of(p->backend, pid, cur, sizeof(cur)) < 0)
                return PLACE_MOVE;
        known = e && process_id_is_current(p->proc_root, &e->id) > 0;
        if (by_hand_wins && known && !streq(cur, e->group))
                return PLACE_BY_HAND;
        if (streq(cur, want) && (g == 0 ? !e : known && streq(e->group, want)))
                return PLACE_THERE;
        return PLACE_MOVE;
}

/* Puts a process where it belongs. by_hand_wins: leave it if it was
 * moved by hand since boostd placed it (automatic placement). */
static ssize_t placer_find_decider(const Placer *p, pid_t pid) {
        for (size_t i = 0; i < p->n_deciders; i++)
                if (p->deciders[i] == pid)
                        return (ssize_t) i;
        return -1;
}

/* Records in the placed entry whose decision put the process there. */
static void placer_note_from(Placer *p, pid_t pid, pid_t from) {
        StatePid *e = state_pid_find(p->state->placed, p->state->n_placed, pid);
        pid_t *d;

        if (!e)
                return;
        if (from > 0 && placer_find_decider(p, from) < 0) {
                d = realloc(p->deciders, (p->n_deciders + 1) * sizeof(pid_t));
                if (!d)
                        return;         /* not recorded: re-placed at its next exec */
                p->deciders = d;
                p->deciders[p->n_deciders++] = from;
        }
        e->from = from;
}

static int placer_place(Placer *p, pid_t pid, const char *cgroup, bool by_hand_wins) {
        ClassifyReason reason;
        pid_t from;
        int g, r;

        g = placer_target(p, pid, cgroup, true, &reason, &from);
        if (g < 0)
                return g;
        if (reason == CLASSIFY_EXPLICIT)
                return 0;       /* Classify() put it there */
        switch (placer_check(p, pid, (size_t) g, by_hand_wins)) {
        case PLACE_THERE:
                placer_note_from(p, pid, from);
                return 0;
        case PLACE_BY_HAND:
                log_debug(p->log, "PID %d was moved by hand since boostd placed it, leaving it.", (int) pid);
                return 0;
        case PLACE_MOVE:
                break;
        }
        /* DefaultClass=root: no one decided for it, so it stays where it
         * is, unless boostd itself put it there (a foreground that lost
         * the focus, a rule that no longer matches). Asked only now: most
         * processes are where they belong, and this reads more. */
        if (reason == CLASSIFY_DEFAULT && g == 0 && !placer_put_there(p, pid)) {
                log_debug(p->log, "PID %d: no one decided, leaving it where it is.", (int) pid);
                return 0;
        }
        log_debug(p->log, "PID %d: %s (%s).", (int) pid, p->groups->groups[g].name,
                  classify_reason_to_string(reason));
        r = placer_move(p, &(ProcessId) { .pid = pid }, (size_t) g, false);
        if (r >= 0)
                placer_note_from(p, pid, from);
        return r;
}

/* The decision of pid (Classify(), game, foreground) changed or ended:
 * the processes placed by inheriting it are placed again now, not at
 * their next exec. */
static void placer_decision_changed(Placer *p, pid_t pid) {
        State *j = p->state;
        _cleanup_(freep) pid_t *heirs = NULL;
        ssize_t k = pid > 0 ? placer_find_decider(p, pid) : -1;
        size_t n = 0;

        if (k < 0)
                return;         /* no heirs: the common exit costs no walk */
        p->deciders[k] = p->deciders[--p->n_deciders];
        for (size_t i = 0; i < j->n_placed; i++)
                if (j->placed[i].from == pid) {
                        pid_t *h = realloc(heirs, (n + 1) * sizeof(pid_t));

                        if (!h)
                                return;
                        heirs = h;
                        heirs[n++] = j->placed[i].id.pid;
                }
        for (size_t i = 0; i < n; i++)
                if (p->auto_mode)
                        (void) placer_place(p, heirs[i], NULL, true);
}

int placer_explain(Placer *p, pid_t pid, PlacerReport *ret) {
        const Config *c = p->groups->config;
        ClassifyReason reason;
        pid_t from;
        int g;

        *ret = (PlacerReport) {};
        g = placer_target(p, pid, NULL, true, &reason, &from);
        if (g < 0)
                return g;
        ret->class = (size_t) g;
        ret->from = from;
        ret->decided_by = classify_reason_to_string(reason);
        if (reason == CLASSIFY_RULE || reason == CLASSIFY_PINNED) {
                ProcessInfoBuf buf;
                ProcessInfo info;
                int rule;

                if (proc_get_info(p->proc_root, pid, &info, &buf) >= 0) {
                        if (!info.cgroup)
                                info.cgroup = units_cgroup_of(p->units, pid);
                        rule = rules_find(c, &info);
                        if (rule >= 0)
                                ret->rule = c->rules[rule].name;
                        process_info_buf_done(&buf);
                }
        }
        if (p->backend && p->backend->vt && p->backend->vt->group_of &&
            p->backend->vt->group_of(p->backend, pid, ret->group, sizeof(ret->group)) < 0)
                ret->group[0] = '\0';
        if (reason == CLASSIFY_EXPLICIT || !ret->group[0])
                return 0;
        if (!p->auto_mode && !streq(ret->group, p->groups->groups[g].name))
                ret->decided_by = "manual mode";
        else if (reason == CLASSIFY_DEFAULT && g == 0 && !placer_put_there(p, pid))
                ret->decided_by = "left where it is";
        else if (placer_check(p, pid, (size_t) g, true) == PLACE_BY_HAND)
                ret->decided_by = "moved by hand";
        return 0;
}

int placer_place_auto(Placer *p, pid_t pid, const char *cgroup) {
        if (!p->auto_mode)
                return 0;
        return placer_place(p, pid, cgroup, true);
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
static void placer_save_foregrounds(Placer *p) {
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
static Foreground *placer_foreground_get(Placer *p, const char *seat) {
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
static void placer_seat_of(Placer *p, pid_t pid, char seat[static SEAT_NAME_MAX], uid_t *ret_uid) {
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
static void placer_unit_leaves_others(Placer *p, const char *unit, const Foreground *keep) {
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

void placer_restore(Placer *p) {
        State *j = p->state;

        for (size_t i = 0; i < j->n_classified;) {
                StatePid *e = &j->classified[i];
                int g = groups_find(p->groups, e->group);
                int r;

                if (g < 0 || process_id_is_current(p->proc_root, &e->id) <= 0) {
                        state_pid_remove(&j->classified, &j->n_classified, e->id.pid);
                        continue;
                }
                r = placer_attach(p, &e->id, (size_t) g);
                if (r < 0)
                        log_warning_errno(p->log, r, "Failed to move PID %d back into %s, ignoring: %m",
                                          (int) e->id.pid, e->group);
                i++;
        }
        /* Each process goes to the seat its owner has now (a line of
         * boostd before seats has none), the first one a seat gets
         * wins, and its unit comes along only if it did before. */
        for (size_t i = 0; i < j->n_foregrounds; i++) {
                StateForeground *e = &j->foregrounds[i];
                _cleanup_(freep) char *cg = NULL;
                char seat[SEAT_NAME_MAX];
                Foreground *fg;
                uid_t owner;
                int g;

                if (process_id_is_current(p->proc_root, &e->id) <= 0)
                        continue;
                placer_seat_of(p, e->id.pid, seat, &owner);
                fg = placer_foreground_get(p, seat);
                if (!fg || fg->id.pid > 0)
                        continue;
                cg = placer_cgroup_of(p, e->id.pid);
                fg->id = e->id;
                fg->uid = owner;
                if (e->with_unit)
                        (void) classify_app_unit(cg, &fg->unit);
                placer_unit_leaves_others(p, fg->unit, fg);
                g = placer_target(p, e->id.pid, cg, false, NULL, NULL);
                if (g >= 0 && placer_attach(p, &e->id, (size_t) g) < 0)
                        log_warning(p->log, "Failed to move the foreground process %d back, ignoring.",
                                    (int) e->id.pid);
        }
        placer_save_foregrounds(p);   /* manager_start() commits */
}

/* Drops the game entry i. */
static void games_drop(Placer *p, size_t i) {
        free(p->games[i].source);
        memmove(&p->games[i], &p->games[i + 1], (p->n_games - i - 1) * sizeof(PlacerGame));
        p->n_games--;
}

/* Drops pid's entries of source (NULL: of every source); true if one was
 * there. */
static bool games_remove(Placer *p, pid_t pid, const char *source) {
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

/* Whether what is kept about the process named by id can go; *linger is
 * set when the process lives on after its leader exited. An error reading
 * /proc counts as gone, as every exit event did before. */
static bool placer_process_gone(Placer *p, const ProcessId *id, bool *linger) {
        bool leader_exited;
        int r;

        r = process_id_is_gone(p->proc_root, id, &leader_exited);
        if (r == 0 && leader_exited)
                *linger = true;
        return r != 0;
}

/* Drops what is kept about PID if its process is gone; returns true if
 * something stays about a process whose leader exited. */
static bool placer_drop_if_gone(Placer *p, pid_t pid) {
        State *j = p->state;
        bool linger = false, changed = false;
        StatePid *e;

        for (size_t i = 0; i < p->n_games; i++)
                if (p->games[i].id.pid == pid) {
                        if (placer_process_gone(p, &p->games[i].id, &linger)) {
                                (void) games_remove(p, pid, NULL);
                                log_debug(p->log, "Game PID %d exited.", (int) pid);
                        }
                        break;
                }
        e = state_pid_find(j->placed, j->n_placed, pid);
        if (e && placer_process_gone(p, &e->id, &linger)) {
                state_placed_remove(j, pid);
                changed = true;
        }
        e = state_pid_find(j->classified, j->n_classified, pid);
        if (e && placer_process_gone(p, &e->id, &linger)) {
                state_pid_remove(&j->classified, &j->n_classified, pid);
                changed = true;
        }
        if (changed) {
                j->dirty = true;
                state_save_later(j);
        }
        return linger;
}

static int on_linger_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Placer *p = userdata;
        size_t k = 0;

        (void) s, (void) usec;
        for (size_t i = 0; i < p->n_lingering; i++)
                if (placer_drop_if_gone(p, p->lingering[i]))
                        p->lingering[k++] = p->lingering[i];
        p->n_lingering = k;
        if (k > 0)
                (void) event_timer_arm(p->event, &p->linger_timer, now_usec() + LINGER_CHECK_USEC,
                                       on_linger_timer, p, "exit-recheck");
        return 0;
}

/* A process whose leader exited while other threads live: its end makes
 * no event of its own (a thread's exit is not the process's), so it is
 * looked at again until it is gone. */
static void placer_linger(Placer *p, pid_t pid) {
        pid_t *l;

        for (size_t i = 0; i < p->n_lingering; i++)
                if (p->lingering[i] == pid)
                        return;
        if (p->n_lingering >= LINGERING_MAX || !p->event)
                return;         /* kept until a restart, as without the check */
        l = realloc(p->lingering, (p->n_lingering + 1) * sizeof(pid_t));
        if (!l)
                return;
        p->lingering = l;
        p->lingering[p->n_lingering++] = pid;
        if (event_timer_armed(p->linger_timer))
                return;
        if (event_timer_arm(p->event, &p->linger_timer, now_usec() + LINGER_CHECK_USEC, on_linger_timer,
                            p, "exit-recheck") < 0 && !p->linger_timer)
                p->n_lingering--;
}

/* The exit event of a thread group's leader ends the process only if no
 * other thread lives. After pthread_exit() of the main thread the others
 * go on; when a thread other than the leader calls execve(), the leader
 * exits and that thread takes over its PID and start time; in an
 * exit_group() the leader's event may come before the other threads are
 * done. Classify(), GameMode's registration and the placed entry stay
 * until the process is gone. */
void placer_forget(Placer *p, pid_t pid) {
        if (placer_drop_if_gone(p, pid))
                placer_linger(p, pid);
        else
                placer_decision_changed(p, pid);
        /* Read again as new when the unit lists it: a reused PID is placed. */
        units_forget(p->units, pid);
}

static const char *game_source_name(const char *source) {
        return source[0] ? source : "the system bus";
}

int placer_game_register(Placer *p, pid_t pid, const char *source) {
        ProcessId id = { .pid = pid };
        PlacerGame *g;
        char *src;
        int r;

        if (pid <= 0)
                return -ESRCH;
        r = proc_get_start_time(p->proc_root, pid, &id.start_time);
        if (r < 0)
                return r;
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

        if (!games_remove(p, pid, source))
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

void placer_place_all(Placer *p) {
        if (!p->auto_mode)
                return;
        units_rescan(p->units);
        for (size_t i = 0; i < p->n_games; i++)
                (void) placer_place_auto(p, p->games[i].id.pid, NULL);
}
