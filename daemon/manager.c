/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager: lifecycle, groups, holds and the API's logic. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>

#include "boost-errors.h"
#include "input.h"
#include "log.h"
#include "manager.h"
#include "power.h"
#include "proc.h"
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
        manager_bus_done(m);
        input_source_free(m->input);
        power_source_free(m->power);
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
        free(m);
        return NULL;
}

int manager_find_group(const Manager *m, const char *name) {
        for (size_t i = 0; i < m->n_groups; i++)
                if (streq(m->groups[i].name, name))
                        return (int) i;
        return -ENOENT;
}

int manager_check_boost(unsigned boost, sd_bus_error *error) {
        if (boost > BOOST_MAX)
                return manager_set_error(error, -ERANGE, BOOST_ERROR_INVALID_BOOST,
                                         "Boost %u is out of range 0..%u", boost, BOOST_MAX);
        return 0;
}

int manager_check_group(const Manager *m, const char *group, sd_bus_error *error) {
        int i = manager_find_group(m, group);

        if (i < 0)
                return manager_set_error(error, -ENOENT, BOOST_ERROR_UNKNOWN_GROUP,
                                         "No group '%.64s'", group);
        return i;
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

static int manager_save(Manager *m) {
        int r = journal_save(m->journal);

        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to save state in %s, ignoring: %m", m->journal->dir);
        return 0;
}

/* Moves a process, named by PID and start time, into group i. */
static int manager_attach(Manager *m, const ProcessId *id, size_t i) {
        if (!m->backend || !m->backend->vt)
                return -ENODEV;
        return m->backend->vt->attach(m->backend, m->groups[i].name, id);
}

static const char *const *manager_group_names(Manager *m, const char **names) {
        for (size_t i = 0; i < m->n_groups; i++)
                names[i] = m->groups[i].name;
        return names;
}

static int manager_foreground_group(Manager *m, pid_t pid);

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
                int g = manager_foreground_group(m, j->foreground.pid);

                m->foreground = j->foreground;
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
        manager_save(m);
        return 0;
}

int manager_stop(Manager *m) {
        int r;

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

        r = manager_check_boost(boost, error);
        if (r < 0)
                return r;
        i = manager_check_group(m, group, error);
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

/* The class the rules give a process. */
static int manager_rules_class(Manager *m, pid_t pid) {
        ProcessInfo info;
        ProcessInfoBuf buf;
        int r;

        r = proc_get_info(m->proc_root, pid, &info, &buf);
        if (r < 0)
                return r;
        r = rules_classify(m->config, &info);
        process_info_buf_done(&buf);
        return r;
}

/* The foreground process goes to interactive, unless a rule sends it to
 * performance. */
static int manager_foreground_group(Manager *m, pid_t pid) {
        int inter = manager_find_group(m, "interactive");
        int perf = manager_find_group(m, "performance");
        int r = manager_rules_class(m, pid);

        if (r < 0)
                return r;
        if (perf >= 0 && r == perf)
                return perf;
        return inter >= 0 ? inter : r;
}

int manager_set_foreground(Manager *m, pid_t pid, sd_bus_error *error) {
        _cleanup_(closep) int fd = -1;
        ProcessId id, old = m->foreground;
        int target, r;

        r = manager_pin_process(m, pid, &id, &fd, error);
        if (r < 0)
                return r;
        target = manager_foreground_group(m, pid);
        if (target < 0)
                return manager_set_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS,
                                         "No process %d", (int) pid);

        r = manager_move(m, pid, (size_t) target, false, error);
        if (r < 0)
                return r;
        m->foreground = id;
        m->journal->foreground = id;

        if (old.pid > 0 && old.pid != pid && process_id_is_current(m->proc_root, &old) > 0) {
                int back = manager_rules_class(m, old.pid);
                JournalPid *c = journal_pid_find(m->journal->classified,
                                                 m->journal->n_classified, old.pid);

                /* An explicit Classify() outranks the rules. */
                if (c && manager_find_group(m, c->group) >= 0)
                        back = manager_find_group(m, c->group);
                if (back >= 0)
                        (void) manager_move(m, old.pid, (size_t) back, false, NULL);
        }
        manager_save(m);
        log_info(&m->log, "Foreground: PID %d (%s).", (int) pid, m->groups[target].name);
        return 0;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
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

        r = manager_check_boost(boost, error);
        if (r < 0)
                return r;
        r = manager_check_group(m, group, error);
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

int manager_place_by_rules(Manager *m, pid_t pid) {
        int g;

        if (pid == m->foreground.pid && process_id_is_current(m->proc_root, &m->foreground) > 0)
                return 0;
        if (journal_pid_find(m->journal->classified, m->journal->n_classified, pid))
                return 0;
        g = manager_rules_class(m, pid);
        if (g < 0)
                return g;
        return manager_move(m, pid, (size_t) g, false, NULL);
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
        log_info(&m->log, "Configuration reloaded.");
        return 0;
}
