/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The placer: who decides a process's class, and moving it there. The
 * foreground, the games and the launch boost are in placer-focus.c,
 * forgetting processes that exit in placer-exit.c. */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "placer-internal.h"
#include "placer.h"
#include "rules.h"
#include "util.h"

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
int placer_pin_process(Placer *p, const ProcessId *want, ProcessId *ret_id, int *ret_pidfd) {
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
char *placer_cgroup_of(Placer *p, pid_t pid) {
        const char *cg;
        char *ret = NULL;

        if (proc_get_cgroup(p->proc_root, pid, &ret) < 0 || ret)
                return ret;
        cg = units_cgroup_of(p->units, pid);
        return cg ? strdup(cg) : NULL;
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

/* Puts a process where it belongs. by_hand_wins: leave it if it was
 * moved by hand since boostd placed it (automatic placement). */
int placer_place(Placer *p, pid_t pid, const char *cgroup, bool by_hand_wins) {
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
void placer_decision_changed(Placer *p, pid_t pid) {
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

/* A backend with boosts in place (schedtune2): the unit of the process,
 * if the system manager's, gets the class of the first rule that names
 * it by Unit=/Slice= alone, or its boost back if none does. A process's
 * own class (Comm=, the foreground, a game) still comes on top through
 * its per-task boost, but never below its unit's: a group's boost is a
 * floor, as cpu.uclamp.min is. */
static void placer_place_unit(Placer *p, pid_t pid, const char *cgroup) {
        const Config *c = p->groups->config;
        _cleanup_(freep) char *own = NULL, *unit = NULL;
        const char *group = "root";
        size_t l;
        int i, r;

        if (!p->backend || !p->backend->vt || !p->backend->vt->attach_unit)
                return;
        if (!cgroup)
                cgroup = own = placer_cgroup_of(p, pid);
        if (!cgroup || cgroup_path_user_manager(cgroup, NULL) > 0)
                return;
        l = cgroup_path_unit_prefix(cgroup);
        if (l == 0 || !(unit = strndup(cgroup, l)))
                return;
        /* A unit directly below slices only: a unit inside a delegated
         * one (a container's, a Delegate=yes service's) is named by its
         * delegatee, who could move a boost given there, and raising the
         * delegation root would hand them its cap. */
        for (const char *p_ = unit + 1, *slash; (slash = strchr(p_, '/')); p_ = slash + 1)
                if (!strn_has_suffix(p_, (size_t) (slash - p_), ".slice"))
                        return;
        i = rules_find_unit(c, unit);
        if (i >= 0 && c->rules[i].class_index > 0)
                group = p->groups->groups[c->rules[i].class_index].name;
        r = p->backend->vt->attach_unit(p->backend, group, unit);
        if (r < 0 && r != -EOPNOTSUPP)
                log_debug_errno(p->log, r, "No boost in place for %s: %m", unit);
}

int placer_place_auto(Placer *p, pid_t pid, const char *cgroup) {
        int r;

        if (!p->auto_mode)
                return 0;
        r = placer_place(p, pid, cgroup, true);
        if (r != -ESRCH)
                placer_place_unit(p, pid, cgroup);
        return r;
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

void placer_place_all(Placer *p) {
        if (!p->auto_mode)
                return;
        units_rescan(p->units);
        for (size_t i = 0; i < p->n_games; i++)
                (void) placer_place_auto(p, p->games[i].id.pid, NULL);
}
