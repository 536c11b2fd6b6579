/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager: lifecycle, groups, holds and the API's logic. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>

#include "bus-names.h"
#include "cgroup-watch.h"
#include "classify.h"
#include "exec-source.h"
#include "gamemode.h"
#include "input.h"
#include "log.h"
#include "manager.h"
#include "power.h"
#include "process.h"
#include "rules.h"
#include "util.h"

const char *mode_to_string(Mode mode) {
        return mode == MODE_MANUAL ? "manual" : "auto";
}

static int manager_set_error(sd_bus_error *error, int r, const char *name, const char *fmt, ...)
        _printf_(4, 5);
static int manager_set_error(sd_bus_error *error, int r, const char *name, const char *fmt, ...) {
        va_list ap;

        if (error && !sd_bus_error_is_set(error)) {
                char msg[256];

                va_start(ap, fmt);
                vsnprintf(msg, sizeof(msg), fmt, ap);
                va_end(ap);
                sd_bus_error_set(error, name, msg);
        }
        return r;
}

int manager_new(const ManagerOptions *o, Manager **ret, char **ret_config_error) {
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(freep) char *run = NULL;
        int r;

        *ret_config_error = NULL;
        m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        holds_init(&m->holds, HOLDS_PER_CLIENT_DEFAULT);
        m->log.max_level = o->log_level > 0 ? o->log_level : LOG_INFO;

        m->root = strdup(o->root ?: "/");
        m->proc_root = strdup(o->proc_root ?: "/proc");
        if (!m->root || !m->proc_root)
                return -ENOMEM;
        if (o->config_file) {
                m->config_file = strdup(o->config_file);
                m->config_file_optional = false;
                m->dropin_dir = NULL;
        } else {
                m->config_file = path_join_root(m->root, "/etc/boostd.conf");
                m->config_file_optional = true;
                m->dropin_dir = path_join_root(m->root, "/etc/boostd.conf.d");
                if (!m->dropin_dir)
                        return -ENOMEM;
        }
        if (!m->config_file)
                return -ENOMEM;
        if (o->backend) {
                m->backend_override = strdup(o->backend);
                if (!m->backend_override)
                        return -ENOMEM;
        }
        if (o->exec_source) {
                m->exec_source_path = strdup(o->exec_source);
                if (!m->exec_source_path)
                        return -ENOMEM;
        }

        r = config_load(m->config_file, m->config_file_optional, m->dropin_dir, &m->config,
                        ret_config_error);
        if (r < 0)
                return r;
        if (m->config->log_level >= 0)
                m->log.max_level = m->config->log_level;
        m->holds.max_per_owner = m->config->max_holds_per_client;

        m->n_groups = m->config->n_classes;
        for (size_t i = 0; i < m->n_groups; i++)
                strcpy(m->groups[i].name, m->config->classes[i].name);

        run = path_join_root(m->root, "/run/boostd");
        if (!run)
                return -ENOMEM;
        m->journal = journal_new(run);
        if (!m->journal)
                return -ENOMEM;

        r = sd_event_new(&m->event);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->holds.n; i++)
                manager_untrack_hold(m, m->holds.holds[i].userdata);
        gamemode_watch_free(m->gamemode);
        manager_bus_done(m);
        exec_source_free(m->exec);
        cgroup_watch_free(m->cgroups);
        input_source_free(m->input);
        power_source_free(m->power);
        sd_event_source_disable_unref(m->save_later);
        sd_event_source_disable_unref(m->linger_timer);
        holds_done(&m->holds);
        sd_event_source_disable_unref(m->hold_timer);
        sd_event_unref(m->event);
        backend_free(m->backend);
        journal_free(m->journal);
        config_free(m->config);
        free(m->root);
        free(m->proc_root);
        free(m->config_file);
        free(m->dropin_dir);
        free(m->backend_override);
        free(m->exec_source_path);
        free(m->foreground_unit);
        free(m->games);
        free(m->lingering);
        free(m);
        return NULL;
}

int manager_find_group(const Manager *m, const char *name) {
        for (size_t i = 0; i < m->n_groups; i++)
                if (streq(m->groups[i].name, name))
                        return (int) i;
        return -ENOENT;
}

int manager_check_group(const Manager *m, const char *group, sd_bus_error *error) {
        int i = manager_find_group(m, group);

        if (i < 0)
                return manager_set_error(error, -ENOENT, BOOST_ERROR_UNKNOWN_GROUP,
                                         "No group '%.64s'", group);
        return i;
}

int manager_check_group_boost(const Manager *m, const char *group, unsigned boost, sd_bus_error *error) {
        if (boost > BOOST_MAX)
                return manager_set_error(error, -ERANGE, BOOST_ERROR_INVALID_BOOST,
                                         "Boost %u is out of range 0..%u", boost, BOOST_MAX);
        return manager_check_group(m, group, error);
}

unsigned manager_group_base(const Manager *m, size_t i) {
        return policy_base(&m->config->classes[i], &m->groups[i].policy, m->power_state);
}

static int manager_apply_group(Manager *m, size_t i, bool *changed) {
        Group *g = &m->groups[i];
        unsigned e;
        int r;

        g->policy.hold = holds_max_for_group(&m->holds, g->name);
        e = policy_effective(&m->config->classes[i], &g->policy, m->power_state);
        if (g->applied && g->effective == e)
                return 0;
        if (m->backend && m->backend->vt) {
                r = m->backend->vt->apply(m->backend, g->name, e);
                if (r < 0)
                        return r;
        }
        g->effective = e;
        g->applied = true;
        if (changed)
                *changed = true;
        return 0;
}

int manager_apply_all(Manager *m) {
        bool changed = false;
        int ret = 0, r;

        for (size_t i = 0; i < m->n_groups; i++) {
                r = manager_apply_group(m, i, &changed);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        if (changed)
                manager_emit_changed(m, "Groups");
        return ret;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

static int manager_save(Manager *m) {
        int r = journal_save(m->journal);

        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to save state in %s, ignoring: %m", m->journal->dir);
        /* this save holds whatever a pending one would have */
        if (m->save_later)
                (void) sd_event_source_set_enabled(m->save_later, SD_EVENT_OFF);
        m->save_pending_since = 0;
        return 0;
}

static int on_save_later(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        (void) s;
        manager_save(m);
        return 0;
}

/* Saves once, when the events pending now are handled, however many
 * changes they make (a burst of execs or exits, the walk of the tree at
 * start): the journal is rewritten whole, up to JOURNAL_PLACED_MAX
 * entries, so a save per change would cost O(N^2).
 *
 * What waits here is the list of placed processes. A clean stop does not
 * need it on disk: it restores from memory and saves then. A crash loses
 * the changes since the last save; the next start places every process
 * of every unit again and records it, so what is lost is at most the
 * record of processes outside units, left in their group until they exit.
 * Under a flood the idle moment may not come, so a save waits at most
 * SAVE_DELAY_MAX_USEC: the window stays short. The kernel state found at
 * start, the boosts and what the API sets are saved at once. */
#define SAVE_DELAY_MAX_USEC (1 * USEC_PER_SEC)

static void manager_save_later(Manager *m) {
        uint64_t now = now_usec();
        int r;

        if (!m->event || (m->save_pending_since > 0 && now - m->save_pending_since >= SAVE_DELAY_MAX_USEC)) {
                manager_save(m);
                return;
        }
        if (!m->save_later) {
                r = sd_event_add_defer(m->event, &m->save_later, on_save_later, m);
                if (r < 0) {
                        manager_save(m);
                        return;
                }
                (void) sd_event_source_set_priority(m->save_later, SD_EVENT_PRIORITY_IDLE);
                (void) sd_event_source_set_description(m->save_later, "journal-save");
        }
        (void) sd_event_source_set_enabled(m->save_later, SD_EVENT_ONESHOT);
        if (m->save_pending_since == 0)
                m->save_pending_since = now;
}

/* Moves a process, named by PID and start time, into group i. */
static int manager_attach(Manager *m, const ProcessId *id, size_t i) {
        Journal *j = m->journal;
        int r;

        if (!m->backend || !m->backend->vt)
                return -ENODEV;
        r = m->backend->vt->attach(m->backend, m->groups[i].name, id);
        /* The list of placed processes is full: without exit events (no
         * process connector) it keeps those that are gone. */
        if (r == -ENOSPC && journal_pid_prune(&j->placed, &j->n_placed, m->proc_root) > 0)
                r = m->backend->vt->attach(m->backend, m->groups[i].name, id);
        if (j->dirty)
                manager_save_later(m);
        return r;
}

static const char *const *manager_group_names(Manager *m, const char **names) {
        for (size_t i = 0; i < m->n_groups; i++)
                names[i] = m->groups[i].name;
        return names;
}

static int manager_target(Manager *m, pid_t pid, const char *cgroup, ClassifyReason *ret_reason);
static char *manager_cgroup_of(Manager *m, pid_t pid);

/* Restores what the API set in an earlier run: mode, base boosts,
 * classified processes that still exist, the foreground process. */
static void manager_restore_api_state(Manager *m) {
        Journal *j = m->journal;

        m->mode = j->manual ? MODE_MANUAL : MODE_AUTO;
        for (size_t i = 0; i < j->n_overrides; i++) {
                int g = manager_find_group(m, j->overrides[i].group);

                if (g < 0)
                        continue;
                m->groups[g].policy.has_override = true;
                m->groups[g].policy.override = j->overrides[i].boost;
        }
        for (size_t i = 0; i < j->n_classified;) {
                JournalPid *p = &j->classified[i];
                int g = manager_find_group(m, p->group);
                int r;

                if (g < 0 || process_id_is_current(m->proc_root, &p->id) <= 0) {
                        journal_pid_remove(&j->classified, &j->n_classified, p->id.pid);
                        continue;
                }
                r = manager_attach(m, &p->id, (size_t) g);
                if (r < 0)
                        log_warning_errno(&m->log, r, "Failed to move PID %d back into %s, ignoring: %m",
                                          (int) p->id.pid, p->group);
                i++;
        }
        if (j->foreground.pid > 0 && process_id_is_current(m->proc_root, &j->foreground) > 0) {
                _cleanup_(freep) char *cg = manager_cgroup_of(m, j->foreground.pid);
                int g;

                m->foreground = j->foreground;
                (void) classify_app_unit(cg, &m->foreground_unit);
                g = manager_target(m, j->foreground.pid, cg, NULL);
                if (g >= 0 && manager_attach(m, &j->foreground, (size_t) g) < 0)
                        log_warning(&m->log, "Failed to move the foreground process %d back, ignoring.",
                                    (int) j->foreground.pid);
        } else
                j->foreground = (ProcessId) {};
}

int manager_start(Manager *m) {
        const char *names[GROUPS_MAX];
        const char *want;
        int r;

        r = journal_load(m->journal);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to read %s, ignoring: %m", m->journal->dir);
        else if (r > 0)
                log_notice(&m->log, "Found a journal from an earlier run: adopting its groups.");

        m->backend = backend_new(m->root, m->config->mount_point, m->proc_root, m->journal,
                                 m->config->restore_found, &m->log);
        if (!m->backend)
                return log_oom(&m->log);
        if (m->config->uclamp_group) {
                m->backend->uclamp_group = path_join_root(m->root, m->config->uclamp_group);
                if (!m->backend->uclamp_group)
                        return log_oom(&m->log);
        }
        want = m->backend_override ?: m->config->backend;
        r = backend_select(m->backend, want);
        if (r < 0)
                return log_error_errno(&m->log, r, "No usable backend (Backend=%s): %m", want);

        r = m->backend->vt->start(m->backend, manager_group_names(m, names), m->n_groups);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to start the %s backend: %m",
                                       backend_name(m->backend));

        manager_restore_api_state(m);
        /* The power state first, so the first write is the right one. */
        r = power_source_new(m, &m->power);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to set up the power state source, ignoring: %m");
        m->started = true;
        r = manager_apply_all(m);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to apply the boosts: %m");
        r = input_source_new(m, &m->input);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to set up the input boost source, ignoring: %m");
        /* Exec events first, so that a process that execs while the
         * units are read is not missed. */
        r = exec_source_new(m, m->exec_source_path, &m->exec);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to set up the exec event source, ignoring: %m");
        r = cgroup_watch_new(m, &m->cgroups);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to watch the cgroup tree, ignoring: %m");
        manager_save(m);
        return 0;
}

int manager_stop(Manager *m) {
        int r;

        m->exec = exec_source_free(m->exec);
        m->cgroups = cgroup_watch_free(m->cgroups);
        m->input = input_source_free(m->input);
        m->power = power_source_free(m->power);
        if (!m->started || !m->backend || !m->backend->vt)
                return 0;
        m->started = false;
        r = m->backend->vt->restore(m->backend);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to restore everything: %m");
        manager_save(m);
        log_info(&m->log, "Restored the groups and moved placed processes back to root.");
        return r;
}

int manager_set_boost(Manager *m, const char *group, unsigned boost, sd_bus_error *error) {
        GroupPolicy old;
        int i, r;

        i = manager_check_group_boost(m, group, boost, error);
        if (i < 0)
                return i;

        old = m->groups[i].policy;
        m->groups[i].policy.has_override = true;
        m->groups[i].policy.override = boost;
        r = manager_apply_group(m, (size_t) i, NULL);
        if (r < 0) {
                m->groups[i].policy = old;
                return manager_set_error(error, r, BOOST_ERROR_BACKEND_FAILED,
                                         "Failed to set boost of %s: %s", group, strerror(-r));
        }
        (void) journal_set_override(m->journal, group, boost);
        manager_save(m);
        manager_emit_changed(m, "Groups");
        log_info(&m->log, "Group %s: base boost set to %u.", group, boost);
        return 0;
}

int manager_get_boost(Manager *m, const char *group, unsigned *ret_base,
                      unsigned *ret_effective, sd_bus_error *error) {
        int i = manager_check_group(m, group, error);

        if (i < 0)
                return i;
        *ret_base = manager_group_base(m, (size_t) i);
        *ret_effective = policy_effective(&m->config->classes[i], &m->groups[i].policy,
                                          m->power_state);
        return 0;
}

/* Names a live process by PID and start time, holding a pidfd so that the
 * PID cannot be reused while it is being moved. */
static int manager_pin_process(Manager *m, pid_t pid, ProcessId *ret_id, int *ret_pidfd,
                               sd_bus_error *error) {
        _cleanup_(closep) int fd = -1;
        int r;

        if (pid <= 0)
                return manager_set_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS,
                                         "No process %d", (int) pid);
        fd = pidfd_open_pid(pid);
        if (fd == -ESRCH)
                return manager_set_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS,
                                         "No process %d", (int) pid);
        /* Without pidfds (old kernel, seccomp) the start time alone names
         * the process. */
        ret_id->pid = pid;
        r = proc_get_start_time(m->proc_root, pid, &ret_id->start_time);
        if (r < 0)
                return manager_set_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS,
                                         "No process %d", (int) pid);
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

static int manager_move(Manager *m, pid_t pid, size_t g, bool record, sd_bus_error *error) {
        _cleanup_(closep) int fd = -1;
        ProcessId id;
        int r;

        r = manager_pin_process(m, pid, &id, &fd, error);
        if (r < 0)
                return r;
        r = manager_attach(m, &id, g);
        if (r >= 0 && fd < 0 && process_id_is_current(m->proc_root, &id) <= 0)
                r = -ESRCH;
        if (r == -ESRCH || (r >= 0 && !pidfd_still_alive(fd)))
                return manager_set_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS,
                                         "Process %d exited", (int) pid);
        if (r < 0)
                return manager_set_error(error, r, BOOST_ERROR_BACKEND_FAILED,
                                         "Failed to move process %d to %s: %s", (int) pid,
                                         m->groups[g].name, strerror(-r));
        if (record) {
                if (g == 0)
                        journal_pid_remove(&m->journal->classified, &m->journal->n_classified, pid);
                else
                        (void) journal_pid_set(&m->journal->classified, &m->journal->n_classified,
                                               &id, m->groups[g].name);
        }
        return 0;
}

int manager_classify(Manager *m, pid_t pid, const char *group, sd_bus_error *error) {
        int g, r;

        g = manager_check_group(m, group, error);
        if (g < 0)
                return g;
        r = manager_move(m, pid, (size_t) g, true, error);
        if (r < 0)
                return r;
        manager_save(m);
        log_info(&m->log, "PID %d moved to %s.", (int) pid, group);
        return 0;
}

/* Where the process is in the cgroup v2 tree: /proc/PID/cgroup. Where
 * the tree watch last saw it is only a fallback for a process without a
 * v2 line: the watch does not hear a process leave (moved to another
 * unit, or exited and its PID reused), so its answer may be stale. */
static char *manager_cgroup_of(Manager *m, pid_t pid) {
        const char *cg;
        char *ret = NULL;

        if (proc_get_cgroup(m->proc_root, pid, &ret) < 0 || ret)
                return ret;
        cg = cgroup_watch_cgroup_of(m->cgroups, pid);
        return cg ? strdup(cg) : NULL;
}

static bool manager_is_foreground(Manager *m, pid_t pid, const char *cgroup) {
        if (m->foreground_unit && cgroup_path_is_in(cgroup, m->foreground_unit))
                return true;
        return pid == m->foreground.pid && process_id_is_current(m->proc_root, &m->foreground) > 0;
}

bool manager_is_game(Manager *m, pid_t pid) {
        for (size_t i = 0; i < m->n_games; i++)
                if (m->games[i].pid == pid)
                        return process_id_is_current(m->proc_root, &m->games[i]) > 0;
        return false;
}

/* The class a process belongs in (classify.h); cgroup is where the caller
 * found it, NULL to look it up. */
static int manager_target(Manager *m, pid_t pid, const char *cgroup, ClassifyReason *ret_reason) {
        JournalPid *c = journal_pid_find(m->journal->classified, m->journal->n_classified, pid);
        ClassifyFacts f = { .explicit_class = -1 };
        ProcessInfoBuf buf;
        ProcessInfo info;
        int r;

        r = proc_get_info(m->proc_root, pid, rules_need_user_names(m->config), &info, &buf);
        if (r < 0)
                return r;
        /* The caller's is as fresh as /proc's: it just read the unit's
         * cgroup.procs. The watch's memory is not (manager_cgroup_of()). */
        if (cgroup)
                info.cgroup = cgroup;
        else if (!info.cgroup)
                info.cgroup = cgroup_watch_cgroup_of(m->cgroups, pid);
        f.info = &info;
        if (c && process_id_is_current(m->proc_root, &c->id) > 0)
                f.explicit_class = manager_find_group(m, c->group);
        f.game = manager_is_game(m, pid);
        f.foreground = manager_is_foreground(m, pid, info.cgroup);
        r = classify_process(m->config, &f, ret_reason);
        process_info_buf_done(&buf);
        return r;
}

typedef enum PlaceCheck {
        PLACE_MOVE,             /* not where it belongs (or cannot tell) */
        PLACE_THERE,            /* there, and the journal knows */
        PLACE_BY_HAND,          /* boostd placed it, someone moved it since */
} PlaceCheck;

/* Where the process is, against where it belongs, so that most events
 * (a process execs where it already is) cost no move. A process boostd
 * placed and someone moved elsewhere since was moved by hand: with
 * by_hand_wins boostd leaves it there. */
static PlaceCheck manager_check_place(Manager *m, pid_t pid, size_t g, bool by_hand_wins) {
        JournalPid *p = journal_pid_find(m->journal->placed, m->journal->n_placed, pid);
        const char *want = m->groups[g].name;
        char cur[CLASS_NAME_MAX];
        bool known;

        if (!m->backend || !m->backend->vt || !m->backend->vt->group_of ||
            m->backend->vt->group_of(m->backend, pid, cur, sizeof(cur)) < 0)
                return PLACE_MOVE;
        known = p && process_id_is_current(m->proc_root, &p->id) > 0;
        if (by_hand_wins && known && !streq(cur, p->group))
                return PLACE_BY_HAND;
        if (streq(cur, want) && (g == 0 ? !p : known && streq(p->group, want)))
                return PLACE_THERE;
        return PLACE_MOVE;
}

/* Puts a process where it belongs. by_hand_wins: leave it if it was
 * moved by hand since boostd placed it (automatic placement). */
static int manager_place(Manager *m, pid_t pid, const char *cgroup, bool by_hand_wins,
                         sd_bus_error *error) {
        ClassifyReason reason;
        int g;

        g = manager_target(m, pid, cgroup, &reason);
        if (g == -ESRCH)
                return manager_set_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS,
                                         "No process %d", (int) pid);
        if (g < 0)
                return manager_set_error(error, g, BOOST_ERROR_BACKEND_FAILED,
                                         "Cannot read process %d: %s", (int) pid, strerror(-g));
        if (reason == CLASSIFY_EXPLICIT)
                return 0;       /* Classify() put it there */
        switch (manager_check_place(m, pid, (size_t) g, by_hand_wins)) {
        case PLACE_THERE:
                return 0;
        case PLACE_BY_HAND:
                log_debug(&m->log, "PID %d was moved by hand since boostd placed it, leaving it.", (int) pid);
                return 0;
        case PLACE_MOVE:
                break;
        }
        log_debug(&m->log, "PID %d: %s (%s).", (int) pid, m->groups[g].name,
                  classify_reason_to_string(reason));
        return manager_move(m, pid, (size_t) g, false, error);
}

/* Places the processes of a unit (for the foreground). */
static void manager_place_unit(Manager *m, const char *unit, pid_t skip) {
        CgroupPid *pids = NULL;
        size_t n = 0;

        if (!unit || cgroup_watch_unit_pids(m->cgroups, unit, &pids, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++)
                if (pids[i].pid != skip)
                        (void) manager_place(m, pids[i].pid, pids[i].cgroup, true, NULL);
        cgroup_pids_free(pids, n);
}

/* The foreground changed: the new one's processes go up, the old one's
 * back to where they belong. */
static void manager_foreground_changed(Manager *m, const ProcessId *old, const char *old_unit,
                                       pid_t placed) {
        if (m->foreground_unit && !streq_ptr(m->foreground_unit, old_unit))
                manager_place_unit(m, m->foreground_unit, placed);
        if (old_unit && !streq_ptr(old_unit, m->foreground_unit))
                manager_place_unit(m, old_unit, 0);
        if (old->pid > 0 && old->pid != m->foreground.pid &&
            process_id_is_current(m->proc_root, old) > 0)
                (void) manager_place(m, old->pid, NULL, true, NULL);
}

int manager_set_foreground(Manager *m, pid_t pid, sd_bus_error *error) {
        _cleanup_(closep) int fd = -1;
        _cleanup_(freep) char *cg = NULL, *old_unit = NULL, *unit = NULL;
        ProcessId id, old = m->foreground;
        int r;

        r = manager_pin_process(m, pid, &id, &fd, error);
        if (r < 0)
                return r;
        cg = manager_cgroup_of(m, pid);
        r = classify_app_unit(cg, &unit);
        if (r < 0)
                return manager_set_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Out of memory");

        old_unit = TAKE_PTR(m->foreground_unit);
        m->foreground = id;
        m->foreground_unit = TAKE_PTR(unit);
        r = manager_place(m, pid, cg, false, error);
        if (r < 0) {
                free(m->foreground_unit);
                m->foreground_unit = TAKE_PTR(old_unit);
                m->foreground = old;
                return r;
        }
        m->journal->foreground = id;
        manager_foreground_changed(m, &old, old_unit, pid);
        manager_save(m);
        log_info(&m->log, "Foreground: PID %d%s%s.", (int) pid,
                 m->foreground_unit ? ", unit " : "", m->foreground_unit ?: "");
        return 0;
}

int manager_set_foreground_unit(Manager *m, const char *unit) {
        _cleanup_(freep) char *old_unit = NULL;
        ProcessId old = m->foreground;
        char *u = NULL;

        if (streq_ptr(unit, m->foreground_unit))
                return 0;
        if (unit) {
                u = strdup(unit);
                if (!u)
                        return -ENOMEM;
        }
        old_unit = m->foreground_unit;
        m->foreground_unit = u;
        /* The focus moved to or from a unit: the process named by
         * SetForeground() is no longer it. */
        m->foreground = (ProcessId) {};
        m->journal->foreground = (ProcessId) {};
        manager_foreground_changed(m, &old, old_unit, 0);
        manager_save(m);
        log_info(&m->log, "Foreground: %s.", unit ?: "none");
        return 0;
}

static int on_hold_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void manager_rearm_hold_timer(Manager *m) {
        uint64_t d = holds_next_deadline(&m->holds);
        int r;

        if (d == 0) {
                if (m->hold_timer)
                        (void) sd_event_source_set_enabled(m->hold_timer, SD_EVENT_OFF);
                return;
        }
        if (!m->hold_timer) {
                r = sd_event_add_time(m->event, &m->hold_timer, CLOCK_MONOTONIC, d, 0,
                                      on_hold_timer, m);
                if (r < 0) {
                        log_error_errno(&m->log, r, "Failed to add the hold timer: %m");
                        return;
                }
                (void) sd_event_source_set_description(m->hold_timer, "hold-timer");
                return;
        }
        (void) sd_event_source_set_time(m->hold_timer, d);
        (void) sd_event_source_set_enabled(m->hold_timer, SD_EVENT_ONESHOT);
}

/* Removes expired holds and re-applies; "now" is a parameter so the logic
 * can be driven by tests. */
static void manager_expire_holds(Manager *m, uint64_t now) {
        bool any = false;
        int i;

        while ((i = holds_find_expired(&m->holds, now)) >= 0) {
                Hold *h = &m->holds.holds[i];

                log_info(&m->log, "Hold %08x on %s expired.", h->cookie, h->group);
                manager_untrack_hold(m, h->userdata);
                holds_remove_at(&m->holds, (size_t) i);
                any = true;
        }
        if (any) {
                (void) manager_apply_all(m);
                manager_emit_changed(m, "Holds");
        }
        manager_rearm_hold_timer(m);
}

static int on_hold_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        (void) s;
        manager_expire_holds(userdata, usec);
        return 0;
}

int manager_hold(Manager *m, const char *group, unsigned boost, uint32_t timeout_ms,
                 const char *reason, const char *owner, uid_t uid, uint32_t *ret_cookie,
                 sd_bus_error *error) {
        uint64_t deadline = 0;
        uint32_t cookie = 0;
        Hold *h = NULL;
        int r;

        r = manager_check_group_boost(m, group, boost, error);
        if (r < 0)
                return r;
        if (reason && strlen(reason) > HOLD_REASON_MAX)
                return manager_set_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                                         "Reason longer than %u bytes", HOLD_REASON_MAX);
        if (holds_count_owner(&m->holds, owner) >= m->holds.max_per_owner || m->holds.n >= HOLDS_MAX)
                return manager_set_error(error, -EUSERS, BOOST_ERROR_TOO_MANY_HOLDS,
                                         "At most %u holds per client", m->holds.max_per_owner);
        if (timeout_ms > 0)
                deadline = now_usec() + (uint64_t) timeout_ms * USEC_PER_MSEC;

        /* Cookies are random, so they cannot be guessed. */
        for (int tries = 0; tries < 16; tries++) {
                if (getrandom(&cookie, sizeof(cookie), 0) != sizeof(cookie))
                        return -errno;
                if (cookie == 0)
                        continue;
                r = holds_add(&m->holds, cookie, group, boost, deadline, owner, uid, reason, &h);
                if (r != -EEXIST)
                        break;
        }
        if (r < 0)
                return manager_set_error(error, r, r == -EUSERS ? BOOST_ERROR_TOO_MANY_HOLDS :
                                         BOOST_ERROR_INVALID_ARGS, "Cannot add hold: %s", strerror(-r));

        r = manager_track_hold(m, h);
        if (r < 0) {
                (void) holds_release(&m->holds, cookie, owner, NULL);
                return manager_set_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS,
                                         "Cannot track the caller: %s", strerror(-r));
        }

        r = manager_apply_all(m);
        if (r < 0) {
                void *ud = NULL;

                (void) holds_release(&m->holds, cookie, owner, &ud);
                manager_untrack_hold(m, ud);
                (void) manager_apply_all(m);
                return manager_set_error(error, r, BOOST_ERROR_BACKEND_FAILED,
                                         "Failed to apply the hold: %s", strerror(-r));
        }
        manager_rearm_hold_timer(m);
        manager_emit_changed(m, "Holds");
        log_info(&m->log, "Hold %08x: %s at least %u for %s (%s).", cookie, group, boost, owner,
                 reason && reason[0] ? reason : "no reason given");
        *ret_cookie = cookie;
        return 0;
}

int manager_release(Manager *m, uint32_t cookie, const char *owner, sd_bus_error *error) {
        void *ud = NULL;
        int r;

        r = holds_release(&m->holds, cookie, owner, &ud);
        /* Someone else's cookie gets the same answer as an unknown one, so
         * cookies cannot be probed. */
        if (r < 0)
                return manager_set_error(error, -ENOENT, BOOST_ERROR_NO_SUCH_HOLD,
                                         "No hold %08x of this client", cookie);
        manager_untrack_hold(m, ud);
        (void) manager_apply_all(m);
        manager_rearm_hold_timer(m);
        manager_emit_changed(m, "Holds");
        log_info(&m->log, "Hold %08x released.", cookie);
        return 0;
}

/* Drops holds whose owner is gone (called from the bus tracking). */
void manager_drop_holds_of(Manager *m, void *userdata) {
        bool any = false;

        for (size_t i = 0; i < m->holds.n;) {
                if (m->holds.holds[i].userdata == userdata) {
                        log_info(&m->log, "Hold %08x ended: its client left the bus.", m->holds.holds[i].cookie);
                        holds_remove_at(&m->holds, i);
                        any = true;
                } else
                        i++;
        }
        if (any) {
                (void) manager_apply_all(m);
                manager_rearm_hold_timer(m);
                manager_emit_changed(m, "Holds");
        }
}

int manager_set_input_boost(Manager *m, const char *group, unsigned boost) {
        int i = manager_find_group(m, group);

        if (i < 0)
                return i;
        if (boost > BOOST_MAX)
                return -ERANGE;
        m->groups[i].policy.input = boost;
        return manager_apply_all(m);
}

int manager_place_by_rules(Manager *m, pid_t pid, const char *cgroup) {
        if (m->mode != MODE_AUTO)
                return 0;
        return manager_place(m, pid, cgroup, true, NULL);
}

/* How often a process whose leader exited is looked at again, and how
 * many are. */
#define LINGER_CHECK_USEC (2 * USEC_PER_SEC)
#define LINGERING_MAX 4096U

static bool games_remove(Manager *m, pid_t pid) {
        for (size_t i = 0; i < m->n_games; i++)
                if (m->games[i].pid == pid) {
                        memmove(&m->games[i], &m->games[i + 1], (m->n_games - i - 1) * sizeof(ProcessId));
                        m->n_games--;
                        return true;
                }
        return false;
}

/* Whether what is kept about the process named by id can go; *linger is
 * set when the process lives on after its leader exited. An error reading
 * /proc counts as gone, as every exit event did before. */
static bool manager_process_gone(Manager *m, const ProcessId *id, bool *linger) {
        bool leader_exited;
        int r;

        r = process_id_is_gone(m->proc_root, id, &leader_exited);
        if (r == 0 && leader_exited)
                *linger = true;
        return r != 0;
}

/* Drops what is kept about PID if its process is gone; returns true if
 * something stays about a process whose leader exited. */
static bool manager_drop_if_gone(Manager *m, pid_t pid) {
        Journal *j = m->journal;
        bool linger = false, changed = false;
        JournalPid *p;

        for (size_t i = 0; i < m->n_games; i++)
                if (m->games[i].pid == pid) {
                        if (manager_process_gone(m, &m->games[i], &linger)) {
                                (void) games_remove(m, pid);
                                log_debug(&m->log, "Game PID %d exited.", (int) pid);
                        }
                        break;
                }
        p = journal_pid_find(j->placed, j->n_placed, pid);
        if (p && manager_process_gone(m, &p->id, &linger)) {
                journal_pid_remove(&j->placed, &j->n_placed, pid);
                changed = true;
        }
        p = journal_pid_find(j->classified, j->n_classified, pid);
        if (p && manager_process_gone(m, &p->id, &linger)) {
                journal_pid_remove(&j->classified, &j->n_classified, pid);
                changed = true;
        }
        if (changed)
                manager_save_later(m);
        return linger;
}

static int on_linger_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        size_t k = 0;

        (void) s, (void) usec;
        for (size_t i = 0; i < m->n_lingering; i++)
                if (manager_drop_if_gone(m, m->lingering[i]))
                        m->lingering[k++] = m->lingering[i];
        m->n_lingering = k;
        if (k > 0) {
                (void) sd_event_source_set_time(m->linger_timer, now_usec() + LINGER_CHECK_USEC);
                (void) sd_event_source_set_enabled(m->linger_timer, SD_EVENT_ONESHOT);
        }
        return 0;
}

/* A process whose leader exited while other threads live: its end makes
 * no event of its own (a thread's exit is not the process's), so it is
 * looked at again until it is gone. */
static void manager_linger(Manager *m, pid_t pid) {
        pid_t *l;
        int enabled, r;

        for (size_t i = 0; i < m->n_lingering; i++)
                if (m->lingering[i] == pid)
                        return;
        if (m->n_lingering >= LINGERING_MAX || !m->event)
                return;         /* kept until a restart, as without the check */
        l = realloc(m->lingering, (m->n_lingering + 1) * sizeof(pid_t));
        if (!l)
                return;
        m->lingering = l;
        m->lingering[m->n_lingering++] = pid;
        if (!m->linger_timer) {
                r = sd_event_add_time(m->event, &m->linger_timer, CLOCK_MONOTONIC,
                                      now_usec() + LINGER_CHECK_USEC, 0, on_linger_timer, m);
                if (r < 0) {
                        m->n_lingering--;
                        return;
                }
                (void) sd_event_source_set_description(m->linger_timer, "exit-recheck");
                return;
        }
        if (sd_event_source_get_enabled(m->linger_timer, &enabled) < 0 || enabled == SD_EVENT_OFF) {
                (void) sd_event_source_set_time(m->linger_timer, now_usec() + LINGER_CHECK_USEC);
                (void) sd_event_source_set_enabled(m->linger_timer, SD_EVENT_ONESHOT);
        }
}

/* The exit event of a thread group's leader ends the process only if no
 * other thread lives. After pthread_exit() of the main thread the others
 * go on; when a thread other than the leader calls execve(), the leader
 * exits and that thread takes over its PID and start time; in an
 * exit_group() the leader's event may come before the other threads are
 * done. Classify(), GameMode's registration and the placed entry stay
 * until the process is gone. */
void manager_forget_process(Manager *m, pid_t pid) {
        if (manager_drop_if_gone(m, pid))
                manager_linger(m, pid);
        /* Read again as new when the unit lists it: a reused PID is placed. */
        cgroup_watch_forget(m->cgroups, pid);
}

int manager_game_register(Manager *m, pid_t pid) {
        ProcessId id = { .pid = pid }, *g;
        int r;

        if (pid <= 0)
                return -ESRCH;
        r = proc_get_start_time(m->proc_root, pid, &id.start_time);
        if (r < 0)
                return r;
        (void) games_remove(m, pid);    /* a reused PID */
        g = realloc(m->games, (m->n_games + 1) * sizeof(ProcessId));
        if (!g)
                return -ENOMEM;
        m->games = g;
        m->games[m->n_games++] = id;
        log_info(&m->log, "GameMode: PID %d registered.", (int) pid);
        return manager_place_by_rules(m, pid, NULL);
}

int manager_game_unregister(Manager *m, pid_t pid) {
        if (!games_remove(m, pid))
                return 0;
        log_info(&m->log, "GameMode: PID %d unregistered.", (int) pid);
        return manager_place_by_rules(m, pid, NULL);
}

void manager_games_clear(Manager *m) {
        while (m->n_games > 0) {
                pid_t pid = m->games[0].pid;

                (void) manager_game_unregister(m, pid);
        }
}

/* Auto mode starts, or the rules changed: everything is placed again. */
static void manager_place_all(Manager *m) {
        if (m->mode != MODE_AUTO)
                return;
        cgroup_watch_rescan(m->cgroups);
        for (size_t i = 0; i < m->n_games; i++)
                (void) manager_place_by_rules(m, m->games[i].pid, NULL);
}

int manager_set_mode(Manager *m, const char *mode, sd_bus_error *error) {
        Mode new;

        if (streq(mode, "auto"))
                new = MODE_AUTO;
        else if (streq(mode, "manual"))
                new = MODE_MANUAL;
        else
                return manager_set_error(error, -EINVAL, BOOST_ERROR_INVALID_MODE,
                                         "Mode '%.32s' is neither auto nor manual", mode);
        if (new == m->mode)
                return 0;
        m->mode = new;
        m->journal->manual = new == MODE_MANUAL;
        manager_save(m);
        manager_emit_changed(m, "Mode");
        log_info(&m->log, "Mode: %s.", mode_to_string(new));
        input_source_mode_changed(m->input);
        if (m->power)
                power_source_update(m->power);
        manager_place_all(m);
        return 0;
}

int manager_set_power_state(Manager *m, PowerState state) {
        if (state < 0 || state >= _POWER_STATE_MAX)
                return -EINVAL;
        if (state == m->power_state)
                return 0;
        m->power_state = state;
        manager_emit_changed(m, "PowerState");
        return manager_apply_all(m);
}

/* Takes a new configuration: groups that appear are created, groups that
 * vanish get their processes moved back to root and their boost reset;
 * overrides, holds and classifications of remaining groups are kept. */
static int manager_swap_config(Manager *m, Config *c) {
        Group old_groups[GROUPS_MAX];
        size_t old_n = m->n_groups;
        const char *names[GROUPS_MAX];
        Config *old_config = m->config;
        int r;

        memcpy(old_groups, m->groups, sizeof(old_groups));
        memset(m->groups, 0, sizeof(m->groups));
        m->n_groups = c->n_classes;
        for (size_t i = 0; i < c->n_classes; i++) {
                strcpy(m->groups[i].name, c->classes[i].name);
                for (size_t k = 0; k < old_n; k++)
                        if (streq(old_groups[k].name, c->classes[i].name)) {
                                m->groups[i].policy = old_groups[k].policy;
                                m->groups[i].applied = old_groups[k].applied;
                                m->groups[i].effective = old_groups[k].effective;
                        }
        }
        m->config = c;

        if (m->started) {
                r = m->backend->vt->start(m->backend, manager_group_names(m, names), m->n_groups);
                if (r < 0) {
                        m->config = old_config;
                        memcpy(m->groups, old_groups, sizeof(old_groups));
                        m->n_groups = old_n;
                        return r;
                }
                /* Groups that are gone: processes back to root, boost 0. */
                for (size_t k = 0; k < old_n; k++) {
                        Journal *j = m->journal;

                        if (manager_find_group(m, old_groups[k].name) >= 0)
                                continue;
                        for (size_t p = 0; p < j->n_placed;) {
                                if (streq(j->placed[p].group, old_groups[k].name)) {
                                        ProcessId id = j->placed[p].id;

                                        if (m->backend->vt->attach(m->backend, "root", &id) >= 0)
                                                continue;       /* removed from the list */
                                        journal_pid_remove(&j->placed, &j->n_placed, id.pid);
                                        continue;
                                }
                                p++;
                        }
                        (void) m->backend->vt->apply(m->backend, old_groups[k].name, 0);
                        for (size_t p = 0; p < j->n_classified;) {
                                if (streq(j->classified[p].group, old_groups[k].name))
                                        journal_pid_remove(&j->classified, &j->n_classified,
                                                           j->classified[p].id.pid);
                                else
                                        p++;
                        }
                        for (size_t h = 0; h < m->holds.n;) {
                                if (streq(m->holds.holds[h].group, old_groups[k].name)) {
                                        manager_untrack_hold(m, m->holds.holds[h].userdata);
                                        holds_remove_at(&m->holds, h);
                                } else
                                        h++;
                        }
                }
        }
        config_free(old_config);
        m->holds.max_per_owner = c->max_holds_per_client;
        if (c->log_level >= 0)
                m->log.max_level = c->log_level;
        return 0;
}

int manager_reload(Manager *m, sd_bus_error *error) {
        _cleanup_(freep) char *msg = NULL;
        Config *c = NULL;
        int r;

        r = config_load(m->config_file, m->config_file_optional, m->dropin_dir, &c, &msg);
        if (r < 0) {
                log_error(&m->log, "Rejected the new configuration, keeping the running one: %s",
                          msg ?: strerror(-r));
                return manager_set_error(error, r, BOOST_ERROR_INVALID_CONFIG, "%s",
                                         msg ?: strerror(-r));
        }
        if (!streq(c->backend, m->config->backend) || !streq(c->mount_point, m->config->mount_point) ||
            !streq_ptr(c->uclamp_group, m->config->uclamp_group))
                log_notice(&m->log, "Backend=, MountPoint= and UclampGroup= take effect at the next start.");

        r = manager_swap_config(m, c);
        if (r < 0) {
                config_free(c);
                log_error_errno(&m->log, r, "Failed to take the new configuration, keeping the running one: %m");
                return manager_set_error(error, r, BOOST_ERROR_BACKEND_FAILED,
                                         "Failed to set up the new groups: %s", strerror(-r));
        }
        (void) manager_apply_all(m);
        manager_rearm_hold_timer(m);
        manager_save(m);
        manager_emit_changed(m, "Groups");
        manager_emit_changed(m, "Holds");
        input_source_reload(m->input);
        if (m->power)
                power_source_update(m->power);
        manager_place_all(m);
        log_info(&m->log, "Configuration reloaded.");
        return 0;
}
