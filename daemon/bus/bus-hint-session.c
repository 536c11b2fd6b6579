/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hint sessions on the bus: CreateSession and Sessions of Boost1, and
 * one org.boostd.Session1 object per session, which lasts while its
 * client is on the bus. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bus-hint-session.h"
#include "bus-names.h"
#include "bus-util.h"
#include "event-util.h"
#include "util.h"

static int bus_session_path(uint32_t id, char **ret) {
        return asprintf(ret, "%s/%u", BOOST_SESSION_PREFIX, id) < 0 ? -ENOMEM : 0;
}

/* The session a Session1 object path names, or NULL. */
static HintSession *bus_session_of_path(Manager *m, const char *path) {
        const size_t l = strlen(BOOST_SESSION_PREFIX "/");
        unsigned id;

        if (!path || strncmp(path, BOOST_SESSION_PREFIX "/", l) != 0 ||
            parse_uint(path + l, UINT32_MAX, &id) < 0 || id == 0)
                return NULL;
        return hint_table_find(&m->hints.table, (uint32_t) id);
}

/* A session lasts while its client is on the bus: the client's sessions
 * share one track of its name, which closes them all when it fires (the
 * name has left the track by then, so the owner comes from a session). */
static int on_session_owner_gone(sd_bus_track *t, void *userdata) {
        Manager *m = userdata;
        _cleanup_(freep) char *owner = NULL;

        for (size_t i = 0; i < m->hints.table.n && !owner; i++)
                if (m->hints.table.sessions[i]->userdata == t)
                        owner = strdup(m->hints.table.sessions[i]->owner);
        if (owner)
                (void) hint_sessions_close_owner(&m->hints, owner);
        return 0;
}

static int bus_read_tids(sd_bus_message *msg, pid_t *tids, size_t *n, sd_bus_error *error) {
        const uint32_t *v;
        size_t size;
        int r;

        r = sd_bus_message_read_array(msg, 'u', (const void **) &v, &size);
        if (r < 0)
                return r;
        *n = size / sizeof(uint32_t);
        if (*n == 0 || *n > HINT_THREADS_MAX)
                return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                                 "A session has 1 to %u threads", HINT_THREADS_MAX);
        for (size_t i = 0; i < *n; i++) {
                if (v[i] == 0 || v[i] > INT32_MAX)
                        return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS, "No thread %u", v[i]);
                tids[i] = (pid_t) v[i];
        }
        return 0;
}

static int bus_target_error(uint64_t target, sd_bus_error *error) {
        return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                         "Target %" PRIu64 " ns is out of range %llu..%llu", target,
                         HINT_TARGET_MIN_NS, HINT_TARGET_MAX_NS);
}

static int bus_threads_error(int r, sd_bus_error *error) {
        if (r == -ESRCH)
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS,
                                 "Each thread must be of the caller's user, and of the caller's process "
                                 "or, with org.boostd.session-any, of any process of that user");
        if (r == -EINVAL)
                return bus_error(error, r, BOOST_ERROR_INVALID_ARGS, "A thread is named twice");
        if (r == -EOPNOTSUPP)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED,
                                 "The kernel has no uclamp (CONFIG_UCLAMP_TASK), and no SchedTune pool "
                                 "may take its place ([Sessions] Actuator=, the schedtune backend)");
        return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Failed to set up the threads: %s",
                         strerror(-r));
}

/* CreateSession's arguments and caller, as the method and its perform
 * read them (polkit answers later: perform reads them again). */
typedef struct CreateArgs {
        pid_t tids[HINT_THREADS_MAX];
        size_t n;
        uint64_t target;
        pid_t pid;
        uid_t uid;
} CreateArgs;

static int bus_read_create(sd_bus_message *msg, CreateArgs *a, sd_bus_error *error) {
        int r;

        r = bus_read_tids(msg, a->tids, &a->n, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "t", &a->target);
        if (r < 0)
                return r;
        if (a->target < HINT_TARGET_MIN_NS || a->target > HINT_TARGET_MAX_NS)
                return bus_target_error(a->target, error);
        if (bus_caller_pid_uid(msg, &a->pid, &a->uid) < 0 || !sd_bus_message_get_sender(msg))
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        return 0;
}

/* CreateSession(au tids, t target_ns) -> (o session); any: what polkit
 * granted was org.boostd.session-any, not only org.boostd.session. */
static int create_session(sd_bus_message *msg, Manager *m, bool any, sd_bus_error *error) {
        _cleanup_(freep) char *path = NULL;
        const char *owner = sd_bus_message_get_sender(msg);
        sd_bus_track *t = NULL;
        CreateArgs c;
        uint32_t id;
        int r;

        r = bus_read_create(msg, &c, error);
        if (r < 0)
                return r;
        /* The threads are checked again against the action polkit granted:
         * one that exited while polkit answered, its TID now another
         * process's, is not the caller's own (NoSuchProcess), even if that
         * process is of the same user. */
        r = hint_sessions_create(&m->hints, owner, c.uid, c.pid, any, c.tids, c.n, c.target, &id);
        if (r == -EUSERS)
                return bus_error(error, r, BOOST_ERROR_TOO_MANY_SESSIONS,
                                 "At most %u sessions per client, %u per user and %u in all",
                                 HINT_SESSIONS_PER_OWNER_MAX, HINT_SESSIONS_PER_UID_MAX, HINT_SESSIONS_MAX);
        if (r < 0)
                return bus_threads_error(r, error);
        /* one track per client, shared by its sessions (each holds a
         * reference): one match rule on the bus, however many sessions */
        for (size_t i = 0; i < m->hints.table.n && !t; i++) {
                HintSession *o = m->hints.table.sessions[i];

                if (o->userdata && streq(o->owner, owner))
                        t = sd_bus_track_ref(o->userdata);
        }
        r = 0;
        if (!t) {
                r = sd_bus_track_new(m->bus, &t, on_session_owner_gone, m);
                if (r >= 0)
                        r = sd_bus_track_add_name(t, owner);
        }
        if (r >= 0)
                r = bus_session_path(id, &path);
        if (r < 0) {
                sd_bus_track_unref(t);
                (void) hint_sessions_close(&m->hints, id, NULL);
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS, "Cannot track the caller: %s",
                                 strerror(-r));
        }
        hint_table_find(&m->hints.table, id)->userdata = t;
        bus_emit_changed(m, "Sessions");
        log_info(&m->log, "Hint session %u of %s (PID %d, UID %u): %zu threads, target %" PRIu64 " ns",
                 id, owner, (int) c.pid, (unsigned) c.uid, c.n, c.target);
        return sd_bus_reply_method_return(msg, "o", path);
}

static int perform_create_session_own(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return create_session(msg, userdata, false, error);
}

static int perform_create_session_any(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return create_session(msg, userdata, true, error);
}

int bus_method_create_session(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        CreateArgs c;
        int r;

        r = bus_read_create(msg, &c, error);
        if (r < 0)
                return r;
        /* threads of the caller's own process, or (session-any) of any
         * process of the caller's user */
        if (hint_sessions_threads_of(&m->hints, c.pid, c.tids, c.n))
                return bus_authorize(m, msg, "org.boostd.session", perform_create_session_own, error);
        return bus_authorize(m, msg, "org.boostd.session-any", perform_create_session_any, error);
}

/* The session of a Session1 call, if the caller owns it. */
static int bus_own_session(Manager *m, sd_bus_message *msg, HintSession **ret, sd_bus_error *error) {
        HintSession *x = bus_session_of_path(m, sd_bus_message_get_path(msg));

        if (!x)
                return bus_error(error, -ENOENT, BOOST_ERROR_NO_SUCH_SESSION, "No such session");
        if (!streq_ptr(x->owner, sd_bus_message_get_sender(msg)))
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED,
                                 "Session %u belongs to another client", x->id);
        *ret = x;
        return 0;
}

/* A client's calls on its sessions (but Close) share one bucket. */
static int bus_rate_limited(sd_bus_error *error) {
        return bus_error(error, -EBUSY, BOOST_ERROR_RATE_LIMITED,
                         "At most %u calls at once and one per %llu ms after, for all of a client's "
                         "sessions: batch the reports",
                         HINT_REPORT_BURST, HINT_REPORT_INTERVAL_NS / 1000000ULL);
}

/*
 * The durations of a report: (end timestamp, actual) pairs, or with two
 * (AWorkDuration's fields, as Android's reportActualWorkDuration2()):
 * (start timestamp, total, CPU part, GPU part), each part 0 when not
 * measured, at least one of them above 0. The controller runs on the
 * total, as Android's does; the parts are checked and not acted on, as
 * boostd raises CPU frequency only.
 */
static int bus_read_work(sd_bus_message *msg, bool parts, HintWork *work, size_t *ret_n,
                         sd_bus_error *error) {
        const char *type = parts ? "(tttt)" : "(tt)";
        size_t n = 0;
        int r;

        r = sd_bus_message_enter_container(msg, 'a', type);
        if (r < 0)
                return r;
        for (;;) {
                uint64_t ts, actual, cpu = 0, gpu = 0;

                r = parts ? sd_bus_message_read(msg, type, &ts, &actual, &cpu, &gpu) :
                            sd_bus_message_read(msg, type, &ts, &actual);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (n == HINT_REPORT_MAX)
                        return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                                         "At most %u durations in one report", HINT_REPORT_MAX);
                /* Android's rules: a start above 0, a CPU or a GPU part */
                if (parts && (ts == 0 || ts > UINT64_MAX - actual || (cpu == 0 && gpu == 0)))
                        return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                                         "Each duration needs a start above 0, and a CPU or a GPU part "
                                         "above 0");
                work[n++] = (HintWork) { .timestamp_ns = parts ? ts + actual : ts, .actual_ns = actual };
        }
        *ret_n = n;
        return sd_bus_message_exit_container(msg);
}

/* ReportActualWorkDurations(a(tt) durations): (timestamp_ns, actual_ns);
 * ReportActualWorkDurations2(a(tttt)): (start_ns, total_ns, cpu_ns, gpu_ns) */
static int report(sd_bus_message *msg, Manager *m, bool parts, sd_bus_error *error) {
        HintWork work[HINT_REPORT_MAX];
        HintSession *x;
        size_t n = 0;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = bus_read_work(msg, parts, work, &n, error);
        if (r < 0)
                return r;
        r = hint_sessions_report(&m->hints, x->id, x->owner, work, n);
        if (r == -EBUSY)
                return bus_rate_limited(error);
        if (r == -EINVAL)
                return bus_error(error, r, BOOST_ERROR_INVALID_ARGS,
                                 "A report has 1 to %u durations, each above 0 and at most %llu ns",
                                 HINT_REPORT_MAX, HINT_TARGET_MAX_NS * 20);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "%s", strerror(-r));
        return sd_bus_reply_method_return(msg, "");
}

static int method_report(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return report(msg, userdata, false, error);
}

static int method_report2(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return report(msg, userdata, true, error);
}

/* UpdateTargetWorkDuration(t target_ns) */
static int method_update_target(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        uint64_t target;
        HintSession *x;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "t", &target);
        if (r < 0)
                return r;
        r = hint_sessions_set_target(&m->hints, x->id, x->owner, target);
        if (r == -EBUSY)
                return bus_rate_limited(error);
        if (r == -EINVAL)
                return bus_target_error(target, error);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "%s", strerror(-r));
        if (r > 0)
                (void) sd_bus_emit_properties_changed(m->bus, sd_bus_message_get_path(msg),
                                                      BOOST_SESSION_IFACE, "Target", NULL);
        return sd_bus_reply_method_return(msg, "");
}

/* SetThreads(at tids) */
static int method_set_threads(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        pid_t tids[HINT_THREADS_MAX];
        HintSession *x;
        size_t n;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = bus_read_tids(msg, tids, &n, error);
        if (r < 0)
                return r;
        r = hint_sessions_set_threads(&m->hints, x->id, x->owner, tids, n);
        if (r == -EBUSY)
                return bus_rate_limited(error);
        if (r < 0)
                return bus_threads_error(r, error);
        if (r > 0)
                (void) sd_bus_emit_properties_changed(m->bus, sd_bus_message_get_path(msg),
                                                      BOOST_SESSION_IFACE, "Threads", NULL);
        return sd_bus_reply_method_return(msg, "");
}

/* SendHint(s hint): load-up, load-down, load-reset, and Android's
 * workload-increase, workload-reset, workload-spike */
static int method_send_hint(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        HintKind hint;
        const char *s;
        HintSession *x;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "s", &s);
        if (r < 0)
                return r;
        if (hint_kind_from_string(s, &hint) < 0)
                return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                                 "Hint '%.32s': expected load-up, load-down, load-reset, workload-increase, workload-reset or workload-spike",
                                 s);
        r = hint_sessions_hint(&m->hints, x->id, x->owner, hint);
        if (r == -EBUSY)
                return bus_rate_limited(error);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "%s", strerror(-r));
        return sd_bus_reply_method_return(msg, "");
}

/* SetPreferPowerEfficiency(b enabled) */
static int method_set_efficient(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        HintSession *x;
        int enabled, r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "b", &enabled);
        if (r < 0)
                return r;
        r = hint_sessions_set_efficient(&m->hints, x->id, x->owner, enabled);
        if (r == -EBUSY)
                return bus_rate_limited(error);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "%s", strerror(-r));
        if (r > 0)
                (void) sd_bus_emit_properties_changed(m->bus, sd_bus_message_get_path(msg),
                                                      BOOST_SESSION_IFACE, "PreferPowerEfficiency",
                                                      NULL);
        return sd_bus_reply_method_return(msg, "");
}

/* Close() */
static int method_close(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        HintSession *x;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        log_info(&m->log, "Hint session %u closed by its client.", x->id);
        (void) hint_sessions_close(&m->hints, x->id, x->owner);
        return sd_bus_reply_method_return(msg, "");
}

static int property_get_session(sd_bus *bus, const char *path, const char *interface,
                                const char *property, sd_bus_message *reply, void *userdata,
                                sd_bus_error *error) {
        Manager *m = userdata;
        HintSession *x = bus_session_of_path(m, path);
        int r;

        (void) bus, (void) interface;
        if (!x)
                return bus_error(error, -ENOENT, BOOST_ERROR_NO_SUCH_SESSION, "No such session");
        if (streq(property, "Target"))
                return sd_bus_message_append(reply, "t", x->ctl.target_ns);
        if (streq(property, "Boost"))
                return sd_bus_message_append(reply, "u", (uint32_t) hint_sessions_output(&m->hints, x));
        if (streq(property, "Stale"))
                return sd_bus_message_append(reply, "b", hint_controller_is_stale(&x->ctl, now_usec() * 1000));
        if (streq(property, "PreferPowerEfficiency"))
                return sd_bus_message_append(reply, "b", x->ctl.efficient);
        if (streq(property, "JankLevel"))
                return sd_bus_message_append(reply, "s", hint_jank_level_to_string(x->ctl.jank.level));
        if (streq(property, "Group")) {
                char g[CLASS_NAME_MAX];

                hint_sessions_group(&m->hints, x, g, sizeof(g));
                return sd_bus_message_append(reply, "s", g);
        }
        r = sd_bus_message_open_container(reply, 'a', "u");
        for (size_t i = 0; r >= 0 && i < x->n_tids; i++)
                r = sd_bus_message_append(reply, "u", (uint32_t) x->tids[i]);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int session_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                        void **found, sd_bus_error *error) {
        (void) bus, (void) interface, (void) error;
        if (!bus_session_of_path(userdata, path))
                return 0;
        *found = userdata;
        return 1;
}

static int session_enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret,
                             sd_bus_error *error) {
        Manager *m = userdata;
        char **paths = calloc(m->hints.table.n + 1, sizeof(char *));

        (void) bus, (void) prefix, (void) error;
        if (!paths)
                return -ENOMEM;
        for (size_t i = 0; i < m->hints.table.n; i++)
                if (bus_session_path(m->hints.table.sessions[i]->id, &paths[i]) < 0) {
                        for (size_t j = 0; j < i; j++)
                                free(paths[j]);
                        free(paths);
                        return -ENOMEM;
                }
        *ret = paths;
        return 0;
}

static const sd_bus_vtable session_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Target", "t", property_get_session, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Threads", "au", property_get_session, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Boost", "u", property_get_session, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Stale", "b", property_get_session, 0, 0),
        SD_BUS_PROPERTY("Group", "s", property_get_session, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PreferPowerEfficiency", "b", property_get_session, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("JankLevel", "s", property_get_session, 0, 0),
        SD_BUS_METHOD_WITH_NAMES("ReportActualWorkDurations", "a(tt)", SD_BUS_PARAM(durations),
                                 NULL, , method_report, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ReportActualWorkDurations2", "a(tttt)", SD_BUS_PARAM(durations),
                                 NULL, , method_report2, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("UpdateTargetWorkDuration", "t", SD_BUS_PARAM(target_ns),
                                 NULL, , method_update_target, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetThreads", "au", SD_BUS_PARAM(tids),
                                 NULL, , method_set_threads, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SendHint", "s", SD_BUS_PARAM(hint),
                                 NULL, , method_send_hint, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetPreferPowerEfficiency", "b", SD_BUS_PARAM(enabled),
                                 NULL, , method_set_efficient, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Close", "", "", method_close, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

/* Sessions (a(ouuuu)): path, client PID, UID, threads, boost */
int bus_property_get_sessions(sd_bus *bus, const char *path, const char *interface,
                              const char *property, sd_bus_message *reply, void *userdata,
                              sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "(ouuuu)");
        for (size_t i = 0; r >= 0 && i < m->hints.table.n; i++) {
                HintSession *x = m->hints.table.sessions[i];
                _cleanup_(freep) char *p = NULL;

                r = bus_session_path(x->id, &p);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "(ouuuu)", p, (uint32_t) x->pid,
                                                  (uint32_t) x->uid, (uint32_t) x->n_tids,
                                                  (uint32_t) hint_sessions_output(&m->hints, x));
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static void on_session_output(void *userdata, const HintSession *x) {
        Manager *m = userdata;
        _cleanup_(freep) char *p = NULL;

        if (m->bus && bus_session_path(x->id, &p) >= 0)
                (void) sd_bus_emit_properties_changed(m->bus, p, BOOST_SESSION_IFACE, "Boost", "Group", NULL);
}

static void on_session_closed(void *userdata, uint32_t id, void *hint_userdata) {
        Manager *m = userdata;

        (void) id;
        sd_bus_track_unref(hint_userdata);
        bus_emit_changed(m, "Sessions");
}

/* Serves the Session1 objects and hears of their outputs and ends. */
int bus_hint_sessions_attach(Manager *m) {
        int r;

        r = sd_bus_add_fallback_vtable(m->bus, NULL, BOOST_SESSION_PREFIX, BOOST_SESSION_IFACE,
                                       session_vtable, session_find, m);
        if (r >= 0)
                r = sd_bus_add_node_enumerator(m->bus, NULL, BOOST_SESSION_PREFIX, session_enumerate, m);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to add the sessions' objects: %m");
        m->hints.userdata = m;
        m->hints.output_changed = on_session_output;
        m->hints.closed = on_session_closed;
        return 0;
}

void bus_hint_sessions_detach(Manager *m) {
        for (size_t i = 0; i < m->hints.table.n; i++)
                m->hints.table.sessions[i]->userdata =
                        sd_bus_track_unref(m->hints.table.sessions[i]->userdata);
        m->hints.output_changed = NULL;
        m->hints.closed = NULL;
}
