/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The D-Bus interface org.boostd.Boost1: the vtable, argument checks,
 * the errno -> D-Bus error wording, authorization and client tracking.
 * It translates; what happens is the manager's. */
#include <inttypes.h>
#include <systemd/sd-login.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bus-names.h"
#include "config-version.h"
#include "event-util.h"
#include "manager-bus.h"
#include "polkit.h"
#include "process.h"
#include "util.h"

/* A session agent (boostd-session): a client forwarding its user's
 * GameMode games. Its games are the placer's, under its unique name,
 * and end when it leaves the bus. */
#define AGENTS_MAX 64
#define AGENTS_PER_UID_MAX 4
#define GAMES_PER_AGENT_MAX 64

typedef struct BusAgent {
        char *name;                     /* unique bus name */
        uid_t uid;
        pid_t pid;
        char session[64];               /* its logind session, "" if none */
        sd_bus_track *track;
} BusAgent;

struct BusData {
        PolkitQuery *queries;           /* polkit checks in flight */
        sd_bus_slot *filter;            /* Properties.Set of Mode */
        BusAgent agents[AGENTS_MAX];
        size_t n_agents;
};

static int bus_error(sd_bus_error *error, int r, const char *name, const char *fmt, ...) _printf_(4, 5);
static int bus_error(sd_bus_error *error, int r, const char *name, const char *fmt, ...) {
        char msg[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        (void) sd_bus_error_set(error, name, msg);
        return r;
}

/* A group and boost named by a caller: InvalidBoost before UnknownGroup. */
static int bus_check_group_boost(Manager *m, const char *group, unsigned boost, int r, sd_bus_error *error) {
        if (r == -ERANGE || boost > BOOST_MAX)
                return bus_error(error, -ERANGE, BOOST_ERROR_INVALID_BOOST,
                                 "Boost %u is out of range 0..%u", boost, BOOST_MAX);
        if (r == -ENOENT || groups_find(&m->groups, group) < 0)
                return bus_error(error, -ENOENT, BOOST_ERROR_UNKNOWN_GROUP, "No group '%.64s'", group);
        return r;
}

static int bus_check_group(Manager *m, const char *group, sd_bus_error *error) {
        return bus_check_group_boost(m, group, 0, 0, error);
}

/* After the checks of a method's arguments: perform reads them again. */
static int bus_authorize(Manager *m, sd_bus_message *msg, const char *action, PolkitPerform perform,
                         sd_bus_error *error) {
        int r = sd_bus_message_rewind(msg, true);

        if (r < 0)
                return r;
        return polkit_authorize(&m->bus_data->queries, m->bus, msg, action, perform, m, NULL, &m->log, error);
}

/* SetBoost(s group, u boost) */
static int perform_set_boost(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group;
        uint32_t boost;
        int r;

        r = sd_bus_message_read(msg, "su", &group, &boost);
        if (r < 0)
                return r;
        r = manager_set_boost(m, group, boost);
        if (r == -ERANGE || r == -ENOENT)
                return bus_check_group_boost(m, group, boost, r, error);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Failed to set boost of %s: %s",
                                 group, strerror(-r));
        return sd_bus_reply_method_return(msg, "");
}

static int method_set_boost(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group;
        uint32_t boost;
        int r;

        r = sd_bus_message_read(msg, "su", &group, &boost);
        if (r < 0)
                return r;
        r = bus_check_group_boost(m, group, boost, 0, error);
        if (r < 0)
                return r;
        return bus_authorize(m, msg, "org.boostd.set-boost", perform_set_boost, error);
}

/* ResetBoost(s group) */
static int perform_reset_boost(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group;
        int r;

        r = sd_bus_message_read(msg, "s", &group);
        if (r < 0)
                return r;
        r = manager_reset_boost(m, group);
        if (r == -ENOENT)
                return bus_check_group(m, group, error);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Failed to reset boost of %s: %s",
                                 group, strerror(-r));
        return sd_bus_reply_method_return(msg, "");
}

static int method_reset_boost(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group;
        int r;

        r = sd_bus_message_read(msg, "s", &group);
        if (r < 0)
                return r;
        r = bus_check_group(m, group, error);
        if (r < 0)
                return r;
        return bus_authorize(m, msg, "org.boostd.set-boost", perform_reset_boost, error);
}

static int method_get_boost(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group;
        unsigned base, eff;
        int r;

        r = sd_bus_message_read(msg, "s", &group);
        if (r < 0)
                return r;
        r = manager_get_boost(m, group, &base, &eff);
        if (r < 0)
                return bus_check_group(m, group, error);
        return sd_bus_reply_method_return(msg, "uu", (uint32_t) base, (uint32_t) eff);
}

/* Classify(u pid, s group); SetForeground(u pid) */
static int bus_process_error(int r, uint32_t pid, const char *what, sd_bus_error *error) {
        if (r == -ESRCH)
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS, "No process %u", pid);
        return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Failed to %s process %u: %s", what, pid,
                         strerror(-r));
}

/* What Classify() and SetForeground() act on, pinned when the call comes
 * in: the move checks that the PID still names that process (start time)
 * and that its owner is the one polkit was asked about, so what is moved
 * is what was authorized. */
typedef struct TargetCall {
        Manager *m;
        ProcessId id;
        uid_t owner;
        uid_t confine;                  /* "own process": the caller, else -1 */
        char group[CLASS_NAME_MAX];     /* Classify() */
} TargetCall;

static void target_call_free(void *p) {
        free(p);
}

/* The target is still what was pinned, or an error for the caller. */
static int target_check(TargetCall *t, sd_bus_error *error) {
        uid_t owner;

        if (process_id_is_current(t->m->proc_root, &t->id) <= 0 ||
            proc_get_uid(t->m->proc_root, t->id.pid, &owner) < 0)
                return bus_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS, "No process %d", (int) t->id.pid);
        if (owner != t->owner)
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED,
                                 "Process %d changed its owner while the call was checked", (int) t->id.pid);
        return 0;
}

static int perform_classify(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        TargetCall *t = userdata;
        int r;

        r = target_check(t, error);
        if (r < 0)
                return r;
        r = manager_classify_process(t->m, &t->id, t->group);
        if (r == -ENOENT)
                return bus_check_group(t->m, t->group, error);
        if (r < 0)
                return bus_process_error(r, (uint32_t) t->id.pid, "move", error);
        return sd_bus_reply_method_return(msg, "");
}

static int perform_set_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        TargetCall *t = userdata;
        int r;

        r = target_check(t, error);
        if (r < 0)
                return r;
        r = manager_set_foreground_process(t->m, &t->id, t->confine);
        if (r < 0)
                return bus_process_error(r, (uint32_t) t->id.pid, "place", error);
        return sd_bus_reply_method_return(msg, "");
}

/* Pins the process a caller names, by PID or by pidfd (fd >= 0), and asks
 * polkit: a caller may name its own processes with own_action (NULL: no
 * check); others' need org.boostd.classify-any (admin). */
static int bus_target_authorize(Manager *m, sd_bus_message *msg, uint32_t pid, int fd, const char *group,
                                const char *own_action, PolkitPerform perform, sd_bus_error *error) {
        _cleanup_(freep) TargetCall *t = NULL;
        const char *action;
        uid_t caller;
        pid_t p;
        int r;

        if (fd >= 0) {
                r = pidfd_get_pid(fd, &p);
                if (r == -EBADF)
                        return bus_error(error, -EBADF, BOOST_ERROR_INVALID_ARGS, "Not a pidfd");
                if (r < 0)
                        return bus_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS, "The pidfd's process exited");
        } else if (pid == 0 || pid > INT32_MAX)
                return bus_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS, "No process %u", pid);
        else
                p = (pid_t) pid;
        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->m = m;
        t->id.pid = p;
        if (group)
                strcpy(t->group, group);        /* checked: a known group's name */
        if (proc_get_start_time(m->proc_root, p, &t->id.start_time) < 0 ||
            proc_get_uid(m->proc_root, p, &t->owner) < 0 ||
            /* the pidfd's process, not one that took its PID since */
            (fd >= 0 && (pidfd_get_pid(fd, &p) < 0 || p != t->id.pid)))
                return bus_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS, "No process %d", (int) t->id.pid);
        r = bus_caller_uid(msg, &caller);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        action = caller == t->owner ? own_action : "org.boostd.classify-any";
        t->confine = caller == t->owner && caller != 0 ? caller : (uid_t) -1;
        if (!action)
                return perform(msg, t, error);
        return polkit_authorize(&m->bus_data->queries, m->bus, msg, action, perform, TAKE_PTR(t),
                                target_call_free, &m->log, error);
}

/* GetProcess(u pid) -> (s group, s class, s reason, s rule, u parent) */
static int reply_process(Manager *m, sd_bus_message *msg, pid_t pid, sd_bus_error *error) {
        PlacerReport rep;
        int r;

        r = manager_get_process(m, pid, &rep);
        if (r < 0)
                return bus_process_error(r, (uint32_t) pid, "look at", error);
        return sd_bus_reply_method_return(msg, "ssssu", rep.group, m->groups.groups[rep.class].name,
                                          rep.decided_by, rep.rule ?: "", (uint32_t) rep.from);
}

static int perform_get_process(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        TargetCall *t = userdata;
        int r;

        r = target_check(t, error);
        if (r < 0)
                return r;
        return reply_process(t->m, msg, t->id.pid, error);
}

/* A process of one's own is open to look at; another user's takes
 * org.boostd.classify-any: boostd sees every process (CAP_SYS_PTRACE),
 * a caller may not, where /proc hides other users' processes. */
static int method_get_process(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        return bus_target_authorize(userdata, msg, pid, -1, NULL, NULL, perform_get_process, error);
}

/* Classify(u pid, s group); ClassifyPidFD(h pidfd, s group) */
static int method_classify(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        bool by_fd = streq(sd_bus_message_get_member(msg), "ClassifyPidFD");
        const char *group;
        uint32_t pid = 0;
        int fd = -1, r;

        r = by_fd ? sd_bus_message_read(msg, "hs", &fd, &group) : sd_bus_message_read(msg, "us", &pid, &group);
        if (r < 0)
                return r;
        r = bus_check_group(m, group, error);
        if (r < 0)
                return r;
        return bus_target_authorize(m, msg, pid, fd, group, "org.boostd.classify", perform_classify, error);
}

/* SetForeground(u pid); SetForegroundPidFD(h pidfd) */
static int method_set_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        bool by_fd = streq(sd_bus_message_get_member(msg), "SetForegroundPidFD");
        uint32_t pid = 0;
        int fd = -1, r;

        r = by_fd ? sd_bus_message_read(msg, "h", &fd) : sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        return bus_target_authorize(m, msg, pid, fd, NULL, "org.boostd.classify", perform_set_foreground, error);
}

/* A hold lasts while its client is on the bus. One track per client,
 * shared by its holds (each holds a reference; the last one gone frees
 * it): each track is a match on the bus and a GetNameOwner call. */
static int on_track_gone(sd_bus_track *t, void *userdata) {
        Manager *m = userdata;

        groups_drop_holds_of(&m->groups, t);
        return 0;
}

static int bus_track_hold(Manager *m, uint32_t cookie) {
        Hold *h = holds_find(&m->groups.holds, cookie);
        sd_bus_track *t = NULL;
        int r;

        if (!h)
                return -ENOENT;
        for (size_t i = 0; i < m->groups.holds.n; i++) {
                Hold *o = &m->groups.holds.holds[i];

                if (o != h && o->userdata && streq(o->owner, h->owner)) {
                        h->userdata = sd_bus_track_ref(o->userdata);
                        return 0;
                }
        }
        r = sd_bus_track_new(m->bus, &t, on_track_gone, m);
        if (r < 0)
                return r;
        r = sd_bus_track_add_name(t, h->owner);
        if (r < 0) {
                sd_bus_track_unref(t);
                return r;
        }
        h->userdata = t;
        return 0;
}

/* Hold(s group, u boost, u timeout_ms, s reason) -> (u cookie) */
static int bus_hold_reason_error(sd_bus_error *error) {
        return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                         "Reason must be printable text of at most %u bytes", HOLD_REASON_MAX);
}

static int perform_hold(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group, *reason, *owner = sd_bus_message_get_sender(msg);
        uint32_t boost, timeout, cookie;
        uid_t uid = 0;
        int r;

        r = sd_bus_message_read(msg, "suus", &group, &boost, &timeout, &reason);
        if (r < 0)
                return r;
        (void) bus_caller_uid(msg, &uid);
        r = manager_hold(m, group, boost, timeout, reason, owner, uid, &cookie);
        if (r == -ERANGE || r == -ENOENT)
                return bus_check_group_boost(m, group, boost, r, error);
        if (r == -EINVAL)
                return bus_hold_reason_error(error);
        if (r == -EUSERS)
                return bus_error(error, r, BOOST_ERROR_TOO_MANY_HOLDS,
                                 "At most %u holds per client, %u per user and %u in all",
                                 m->groups.holds.max_per_owner, HOLDS_PER_UID_MAX, HOLDS_MAX);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Failed to apply the hold: %s",
                                 strerror(-r));
        r = bus_track_hold(m, cookie);
        if (r < 0) {
                (void) manager_release(m, cookie, owner);
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS, "Cannot track the caller: %s",
                                 strerror(-r));
        }
        return sd_bus_reply_method_return(msg, "u", cookie);
}

static int method_hold(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group, *reason;
        uint32_t boost, timeout;
        int r;

        r = sd_bus_message_read(msg, "suus", &group, &boost, &timeout, &reason);
        if (r < 0)
                return r;
        r = bus_check_group_boost(m, group, boost, 0, error);
        if (r < 0)
                return r;
        if (strlen(reason) > HOLD_REASON_MAX || !string_is_printable(reason))
                return bus_hold_reason_error(error);
        return bus_authorize(m, msg, "org.boostd.hold", perform_hold, error);
}

/* Release(u cookie): only the holder (same unique bus name) may. */
static int method_release(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        uint32_t cookie;
        int r;

        r = sd_bus_message_read(msg, "u", &cookie);
        if (r < 0)
                return r;
        r = manager_release(m, cookie, sd_bus_message_get_sender(msg));
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_HOLD, "No hold %08x of this client", cookie);
        return sd_bus_reply_method_return(msg, "");
}

static int perform_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_(freep) char *config_error = NULL;
        int r;

        r = manager_reload(userdata, &config_error);
        if (r < 0 && config_error)
                return bus_error(error, r, BOOST_ERROR_INVALID_CONFIG, "%s", config_error);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Failed to set up the new groups: %s",
                                 strerror(-r));
        return sd_bus_reply_method_return(msg, "");
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return bus_authorize(userdata, msg, "org.boostd.set-boost", perform_reload, error);
}

/* Mode = "auto" | "manual" */
static int bus_read_mode(sd_bus_message *value, Mode *ret, sd_bus_error *error) {
        const char *s;
        int r;

        r = sd_bus_message_read(value, "s", &s);
        if (r < 0)
                return r;
        *ret = mode_from_string(s);
        if (*ret < 0)
                return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_MODE,
                                 "Mode '%.32s' is neither auto nor manual", s);
        return 0;
}

/* Skips Set()'s interface and property and enters the value. */
static int bus_enter_set_value(sd_bus_message *msg, const char **ret_iface, const char **ret_prop) {
        int r;

        r = sd_bus_message_read(msg, "ss", ret_iface, ret_prop);
        if (r < 0)
                return r;
        return sd_bus_message_enter_container(msg, 'v', "s");
}

static int perform_set_mode(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const char *iface, *prop;
        Mode mode;
        int r;

        r = bus_enter_set_value(msg, &iface, &prop);
        if (r < 0)
                return r;
        r = bus_read_mode(msg, &mode, error);
        if (r < 0)
                return r;
        r = manager_set_mode(userdata, mode);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

/* A property write cannot be answered later from the vtable's setter, so
 * Set() of Mode is taken here first: it waits for polkit like a method. */
static int on_set_property(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        Manager *m = userdata;
        const char *iface, *prop;
        Mode mode;
        int r;

        (void) error;
        if (!sd_bus_message_is_method_call(msg, "org.freedesktop.DBus.Properties", "Set") ||
            !streq_ptr(sd_bus_message_get_path(msg), BOOST_BUS_PATH))
                return 0;
        r = bus_enter_set_value(msg, &iface, &prop);
        if (r <= 0 || !streq(iface, BOOST_BUS_IFACE) || !streq(prop, "Mode")) {
                (void) sd_bus_message_rewind(msg, true);
                return 0;       /* the vtable answers */
        }
        r = bus_read_mode(msg, &mode, &e);
        if (r >= 0)
                r = bus_authorize(m, msg, "org.boostd.set-boost", perform_set_mode, &e);
        if (r < 0) {
                if (!sd_bus_error_is_set(&e))
                        sd_bus_error_set_errno(&e, r);
                (void) sd_bus_reply_method_error(msg, &e);
        }
        return 1;
}

static int property_set_mode(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *value, void *userdata,
                             sd_bus_error *error) {
        (void) bus, (void) path, (void) interface, (void) property, (void) value, (void) userdata;
        /* on_set_property() takes every write */
        return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED, "Not authorized");
}

static int property_get_string(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        Manager *m = userdata;
        const char *v = NULL;

        (void) bus, (void) path, (void) interface, (void) error;
        if (streq(property, "Mode"))
                v = mode_to_string(m->mode);
        else if (streq(property, "Backend"))
                v = backend_name(m->backend);
        else if (streq(property, "PowerState"))
                v = power_state_to_string(m->groups.power_state);
        else if (streq(property, "Version"))
                v = BOOSTD_VERSION;
        return sd_bus_message_append(reply, "s", v ?: "");
}

static int property_get_groups(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "(suu)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->groups.n; i++) {
                r = sd_bus_message_append(reply, "(suu)", m->groups.groups[i].name,
                                          (uint32_t) groups_base(&m->groups, i),
                                          (uint32_t) groups_effective(&m->groups, i));
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* Overrides: a(su): the groups whose base comes from SetBoost(), not the
 * configuration, with that base. */
static int property_get_overrides(sd_bus *bus, const char *path, const char *interface,
                                  const char *property, sd_bus_message *reply, void *userdata,
                                  sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "(su)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->groups.n; i++) {
                const GroupPolicy *p = &m->groups.groups[i].policy;

                if (!p->has_override)
                        continue;
                r = sd_bus_message_append(reply, "(su)", m->groups.groups[i].name, (uint32_t) p->override);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* Holds: a(suuts): group, boost, holder's UID, deadline (CLOCK_MONOTONIC
 * usec, 0 = none), reason. Cookies are not shown. */
static int property_get_holds(sd_bus *bus, const char *path, const char *interface,
                              const char *property, sd_bus_message *reply, void *userdata,
                              sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "(suuts)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->groups.holds.n; i++) {
                Hold *h = &m->groups.holds.holds[i];

                r = sd_bus_message_append(reply, "(suuts)", h->group, (uint32_t) h->boost,
                                          (uint32_t) h->uid, (uint64_t) h->deadline, h->reason);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* ---- work sessions ---- */

static void on_changed(void *userdata, const char *property);

static int bus_session_path(uint32_t id, char **ret) {
        return asprintf(ret, "%s/%u", BOOST_SESSION_PREFIX, id) < 0 ? -ENOMEM : 0;
}

/* The session a Session1 object path names, or NULL. */
static Session *bus_session_of_path(Manager *m, const char *path) {
        const size_t l = strlen(BOOST_SESSION_PREFIX "/");
        unsigned id;

        if (!path || strncmp(path, BOOST_SESSION_PREFIX "/", l) != 0 ||
            parse_uint(path + l, UINT32_MAX, &id) < 0 || id == 0)
                return NULL;
        return sessions_find(&m->work.sessions, (uint32_t) id);
}

/* A session lasts while its client is on the bus: each has a track of
 * the client's name, and the first to fire closes all of that client's
 * sessions (the name has left the track by then, so the owner comes from
 * the session). */
static int on_session_owner_gone(sd_bus_track *t, void *userdata) {
        Manager *m = userdata;
        _cleanup_(freep) char *owner = NULL;

        for (size_t i = 0; i < m->work.sessions.n && !owner; i++)
                if (m->work.sessions.sessions[i]->userdata == t)
                        owner = strdup(m->work.sessions.sessions[i]->owner);
        if (owner)
                (void) work_sessions_close_owner(&m->work, owner);
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
        if (*n == 0 || *n > SESSION_THREADS_MAX)
                return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                                 "A session has 1 to %u threads", SESSION_THREADS_MAX);
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
                         SESSION_TARGET_MIN_NS, SESSION_TARGET_MAX_NS);
}

static int bus_threads_error(int r, sd_bus_error *error) {
        if (r == -ESRCH)
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS,
                                 "Each thread must be a thread of the caller's process, or with "
                                 "org.boostd.session-any of a process of the caller's user");
        if (r == -EINVAL)
                return bus_error(error, r, BOOST_ERROR_INVALID_ARGS, "A thread is named twice");
        if (r == -EOPNOTSUPP)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED,
                                 "The kernel has no uclamp (CONFIG_UCLAMP_TASK), and no SchedTune pool "
                                 "may take its place ([Sessions] Actuator=, the schedtune backend)");
        return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Failed to set up the threads: %s",
                         strerror(-r));
}

/* The caller's PID and effective UID. */
static int bus_caller_pid_uid(sd_bus_message *msg, pid_t *ret_pid, uid_t *ret_uid) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r;

        r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_PID | SD_BUS_CREDS_EUID, &creds);
        if (r >= 0)
                r = sd_bus_creds_get_pid(creds, ret_pid);
        if (r >= 0)
                r = sd_bus_creds_get_euid(creds, ret_uid);
        return r;
}

/* CreateSession(au tids, t target_ns) -> (o session); any: what polkit
 * granted was org.boostd.session-any, not only org.boostd.session. */
static int create_session(sd_bus_message *msg, Manager *m, bool any, sd_bus_error *error) {
        _cleanup_(freep) char *path = NULL;
        const char *owner = sd_bus_message_get_sender(msg);
        pid_t tids[SESSION_THREADS_MAX], pid;
        sd_bus_track *t = NULL;
        uint64_t target;
        uint32_t id;
        uid_t uid;
        size_t n;
        int r;

        r = bus_read_tids(msg, tids, &n, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "t", &target);
        if (r < 0)
                return r;
        r = bus_caller_pid_uid(msg, &pid, &uid);
        if (r < 0 || !owner)
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        /* The threads are checked again against the action polkit granted:
         * one that exited while polkit answered, its TID now another
         * process's, is not the caller's own (NoSuchProcess), even if that
         * process is of the same user. */
        r = work_sessions_create(&m->work, owner, uid, pid, any,
                                 tids, n, target, &id);
        if (r == -EUSERS)
                return bus_error(error, r, BOOST_ERROR_TOO_MANY_SESSIONS,
                                 "At most %u sessions per client, %u per user and %u in all",
                                 SESSIONS_PER_OWNER_MAX, SESSIONS_PER_UID_MAX, SESSIONS_MAX);
        if (r < 0)
                return bus_threads_error(r, error);
        r = sd_bus_track_new(m->bus, &t, on_session_owner_gone, m);
        if (r >= 0)
                r = sd_bus_track_add_name(t, owner);
        if (r >= 0)
                r = bus_session_path(id, &path);
        if (r < 0) {
                sd_bus_track_unref(t);
                (void) work_sessions_close(&m->work, id, NULL);
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS, "Cannot track the caller: %s",
                                 strerror(-r));
        }
        sessions_find(&m->work.sessions, id)->userdata = t;
        on_changed(m, "Sessions");
        log_info(&m->log, "Work session %u of %s (PID %d, UID %u): %zu threads, target %" PRIu64 " ns",
                 id, owner, (int) pid, (unsigned) uid, n, target);
        return sd_bus_reply_method_return(msg, "o", path);
}

static int perform_create_session_own(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return create_session(msg, userdata, false, error);
}

static int perform_create_session_any(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return create_session(msg, userdata, true, error);
}

static int method_create_session(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        pid_t tids[SESSION_THREADS_MAX], pid;
        uint64_t target;
        uid_t uid;
        size_t n;
        int r;

        r = bus_read_tids(msg, tids, &n, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "t", &target);
        if (r < 0)
                return r;
        if (target < SESSION_TARGET_MIN_NS || target > SESSION_TARGET_MAX_NS)
                return bus_target_error(target, error);
        /* threads of the caller's own process, or (session-any) of any
         * process of the caller's user */
        r = bus_caller_pid_uid(msg, &pid, &uid);
        if (r < 0)
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        if (work_sessions_threads_of(&m->work, pid, tids, n))
                return bus_authorize(m, msg, "org.boostd.session", perform_create_session_own, error);
        return bus_authorize(m, msg, "org.boostd.session-any", perform_create_session_any, error);
}

/* The session of a Session1 call, if the caller owns it. */
static int bus_own_session(Manager *m, sd_bus_message *msg, Session **ret, sd_bus_error *error) {
        Session *x = bus_session_of_path(m, sd_bus_message_get_path(msg));

        if (!x)
                return bus_error(error, -ENOENT, BOOST_ERROR_NO_SUCH_SESSION, "No such session");
        if (!streq_ptr(x->owner, sd_bus_message_get_sender(msg)))
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED,
                                 "Session %u belongs to another client", x->id);
        *ret = x;
        return 0;
}

/* ReportActualWorkDurations(a(tt) durations): (timestamp_ns, actual_ns) */
static int method_report(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        SessionWork work[SESSION_REPORT_MAX];
        size_t n = 0;
        Session *x;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(msg, 'a', "(tt)");
        if (r < 0)
                return r;
        for (;;) {
                uint64_t ts, actual;

                r = sd_bus_message_read(msg, "(tt)", &ts, &actual);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (n == SESSION_REPORT_MAX)
                        return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                                         "At most %u durations in one report", SESSION_REPORT_MAX);
                work[n++] = (SessionWork) { .timestamp_ns = ts, .actual_ns = actual };
        }
        r = sd_bus_message_exit_container(msg);
        if (r < 0)
                return r;
        r = work_sessions_report(&m->work, x->id, x->owner, work, n);
        if (r == -EBUSY)
                return bus_error(error, r, BOOST_ERROR_RATE_LIMITED,
                                 "At most %u reports at once and one per %llu ms after: batch them",
                                 SESSION_REPORT_BURST, SESSION_REPORT_INTERVAL_NS / 1000000ULL);
        if (r == -EINVAL)
                return bus_error(error, r, BOOST_ERROR_INVALID_ARGS,
                                 "A report has 1 to %u durations, each above 0 and at most %llu ns",
                                 SESSION_REPORT_MAX, SESSION_TARGET_MAX_NS * 20);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "%s", strerror(-r));
        return sd_bus_reply_method_return(msg, "");
}

/* UpdateTargetWorkDuration(t target_ns) */
static int method_update_target(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        uint64_t target;
        Session *x;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "t", &target);
        if (r < 0)
                return r;
        r = work_sessions_set_target(&m->work, x->id, x->owner, target);
        if (r == -EINVAL)
                return bus_target_error(target, error);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "%s", strerror(-r));
        (void) sd_bus_emit_properties_changed(m->bus, sd_bus_message_get_path(msg), BOOST_SESSION_IFACE,
                                              "Target", NULL);
        return sd_bus_reply_method_return(msg, "");
}

/* SetThreads(at tids) */
static int method_set_threads(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        pid_t tids[SESSION_THREADS_MAX];
        Session *x;
        size_t n;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = bus_read_tids(msg, tids, &n, error);
        if (r < 0)
                return r;
        r = work_sessions_set_threads(&m->work, x->id, x->owner, tids, n);
        if (r < 0)
                return bus_threads_error(r, error);
        (void) sd_bus_emit_properties_changed(m->bus, sd_bus_message_get_path(msg), BOOST_SESSION_IFACE,
                                              "Threads", NULL);
        return sd_bus_reply_method_return(msg, "");
}

/* SendHint(s hint): load-up, load-down, load-reset */
static int method_send_hint(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        SessionHint hint;
        const char *s;
        Session *x;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "s", &s);
        if (r < 0)
                return r;
        if (session_hint_from_string(s, &hint) < 0)
                return bus_error(error, -EINVAL, BOOST_ERROR_INVALID_ARGS,
                                 "Hint '%.32s': expected load-up, load-down or load-reset", s);
        r = work_sessions_hint(&m->work, x->id, x->owner, hint);
        if (r < 0)
                return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "%s", strerror(-r));
        return sd_bus_reply_method_return(msg, "");
}

/* Close() */
static int method_close(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        Session *x;
        int r;

        r = bus_own_session(m, msg, &x, error);
        if (r < 0)
                return r;
        log_info(&m->log, "Work session %u closed by its client.", x->id);
        (void) work_sessions_close(&m->work, x->id, x->owner);
        return sd_bus_reply_method_return(msg, "");
}

static int property_get_session(sd_bus *bus, const char *path, const char *interface,
                                const char *property, sd_bus_message *reply, void *userdata,
                                sd_bus_error *error) {
        Manager *m = userdata;
        Session *x = bus_session_of_path(m, path);
        int r;

        (void) bus, (void) interface;
        if (!x)
                return bus_error(error, -ENOENT, BOOST_ERROR_NO_SUCH_SESSION, "No such session");
        if (streq(property, "Target"))
                return sd_bus_message_append(reply, "t", x->ctl.target_ns);
        if (streq(property, "Boost"))
                return sd_bus_message_append(reply, "u", (uint32_t) work_sessions_output(&m->work, x));
        if (streq(property, "Stale"))
                return sd_bus_message_append(reply, "b", session_pid_is_stale(&x->ctl, now_usec() * 1000));
        if (streq(property, "Group")) {
                char g[CLASS_NAME_MAX];

                work_sessions_group(&m->work, x, g, sizeof(g));
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
        char **paths = calloc(m->work.sessions.n + 1, sizeof(char *));

        (void) bus, (void) prefix, (void) error;
        if (!paths)
                return -ENOMEM;
        for (size_t i = 0; i < m->work.sessions.n; i++)
                if (bus_session_path(m->work.sessions.sessions[i]->id, &paths[i]) < 0) {
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
        SD_BUS_METHOD_WITH_NAMES("ReportActualWorkDurations", "a(tt)", SD_BUS_PARAM(durations),
                                 NULL, , method_report, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("UpdateTargetWorkDuration", "t", SD_BUS_PARAM(target_ns),
                                 NULL, , method_update_target, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetThreads", "au", SD_BUS_PARAM(tids),
                                 NULL, , method_set_threads, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SendHint", "s", SD_BUS_PARAM(hint),
                                 NULL, , method_send_hint, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Close", "", "", method_close, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

/* Sessions (a(ouuuu)): path, client PID, UID, threads, boost */
static int property_get_sessions(sd_bus *bus, const char *path, const char *interface,
                                 const char *property, sd_bus_message *reply, void *userdata,
                                 sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "(ouuuu)");
        for (size_t i = 0; r >= 0 && i < m->work.sessions.n; i++) {
                Session *x = m->work.sessions.sessions[i];
                _cleanup_(freep) char *p = NULL;

                r = bus_session_path(x->id, &p);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "(ouuuu)", p, (uint32_t) x->pid,
                                                  (uint32_t) x->uid, (uint32_t) x->n_tids,
                                                  (uint32_t) work_sessions_output(&m->work, x));
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static void on_session_output(void *userdata, const Session *x) {
        Manager *m = userdata;
        _cleanup_(freep) char *p = NULL;

        if (m->bus && bus_session_path(x->id, &p) >= 0)
                (void) sd_bus_emit_properties_changed(m->bus, p, BOOST_SESSION_IFACE, "Boost", "Group", NULL);
}

static void on_session_closed(void *userdata, uint32_t id, void *session_userdata) {
        Manager *m = userdata;

        (void) id;
        sd_bus_track_unref(session_userdata);
        on_changed(m, "Sessions");
}

static BusAgent *bus_agent_find(Manager *m, const char *name) {
        for (size_t i = 0; name && i < m->bus_data->n_agents; i++)
                if (streq(m->bus_data->agents[i].name, name))
                        return &m->bus_data->agents[i];
        return NULL;
}

static void bus_agent_drop(Manager *m, BusAgent *a) {
        BusData *d = m->bus_data;

        sd_bus_track_unref(a->track);
        free(a->name);
        memmove(a, a + 1, (size_t) (d->agents + d->n_agents - a - 1) * sizeof(BusAgent));
        d->n_agents--;
}

/* The agent left the bus (or the session ended): its games go back to
 * whoever decides next. */
static int on_agent_gone(sd_bus_track *t, void *userdata) {
        Manager *m = userdata;

        for (size_t i = 0; i < m->bus_data->n_agents; i++) {
                BusAgent *a = &m->bus_data->agents[i];

                if (a->track != t)
                        continue;
                log_info(&m->log, "Session agent %s (UID %u) left: its %zu games end.", a->name,
                         (unsigned) a->uid, placer_games_of(&m->placer, a->name));
                manager_agent_gone(m, a->name);
                bus_agent_drop(m, a);
                on_changed(m, "Agents");
                break;
        }
        return 0;
}

/* The caller as an agent, registered now if it was not. */
static int bus_agent_get(Manager *m, sd_bus_message *msg, BusAgent **ret, sd_bus_error *error) {
        const char *name = sd_bus_message_get_sender(msg);
        BusData *d = m->bus_data;
        BusAgent *a = bus_agent_find(m, name), n = {};
        _cleanup_(freep) char *session = NULL;
        unsigned same_uid = 0;
        int r;

        if (a) {
                *ret = a;
                return 0;
        }
        if (!name)
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        r = bus_caller_pid_uid(msg, &n.pid, &n.uid);
        if (r < 0)
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        for (size_t i = 0; i < d->n_agents; i++)
                same_uid += d->agents[i].uid == n.uid;
        if (d->n_agents >= AGENTS_MAX || same_uid >= AGENTS_PER_UID_MAX)
                return bus_error(error, -EUSERS, BOOST_ERROR_TOO_MANY_AGENTS,
                                 "At most %u session agents per user and %u in all", AGENTS_PER_UID_MAX,
                                 AGENTS_MAX);
        /* a user service has no session of its own: its user's display
         * session is the one it serves */
        if (sd_pid_get_session(n.pid, &session) < 0)
                (void) sd_uid_get_display(n.uid, &session);
        snprintf(n.session, sizeof(n.session), "%s", session ?: "");
        n.name = strdup(name);
        if (!n.name)
                return -ENOMEM;
        r = sd_bus_track_new(m->bus, &n.track, on_agent_gone, m);
        if (r >= 0)
                r = sd_bus_track_add_name(n.track, name);
        if (r < 0) {
                sd_bus_track_unref(n.track);
                free(n.name);
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS, "Cannot track the caller: %s",
                                 strerror(-r));
        }
        d->agents[d->n_agents] = n;
        *ret = &d->agents[d->n_agents++];
        log_info(&m->log, "Session agent %s: UID %u, PID %d%s%s.", n.name, (unsigned) n.uid, (int) n.pid,
                 n.session[0] ? ", session " : "", n.session);
        on_changed(m, "Agents");
        return 0;
}

/* RegisterAgent(): org.boostd.classify, what forwarding the user's own
 * games takes, so that users without an active session cannot fill the
 * table. */
static int perform_register_agent(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusAgent *a;
        int r;

        r = bus_agent_get(userdata, msg, &a, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

static int method_register_agent(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return bus_authorize(userdata, msg, "org.boostd.classify", perform_register_agent, error);
}

static int perform_register_game(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        TargetCall *t = userdata;
        Manager *m = t->m;
        BusAgent *a;
        int r;

        r = target_check(t, error);
        if (r < 0)
                return r;
        r = bus_agent_get(m, msg, &a, error);
        if (r < 0)
                return r;
        if (placer_games_of(&m->placer, a->name) >= GAMES_PER_AGENT_MAX)
                return bus_error(error, -EUSERS, BOOST_ERROR_TOO_MANY_GAMES, "At most %u games per agent",
                                 GAMES_PER_AGENT_MAX);
        r = manager_agent_game(m, a->name, t->id.pid, true);
        if (r < 0)
                return bus_process_error(r, (uint32_t) t->id.pid, "place", error);
        on_changed(m, "Agents");
        return sd_bus_reply_method_return(msg, "");
}

/* RegisterGame(u pid): as GameMode's GameRegistered, from the user's
 * session; the caller's own processes take org.boostd.classify. */
static int method_register_game(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        return bus_target_authorize(userdata, msg, pid, -1, NULL, "org.boostd.classify", perform_register_game,
                                    error);
}

/* UnregisterGame(u pid): only a game this client registered. */
static int method_unregister_game(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        BusAgent *a = bus_agent_find(m, sd_bus_message_get_sender(msg));
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        if (!a || pid > INT32_MAX || !placer_game_has(&m->placer, (pid_t) pid, a->name))
                return bus_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS,
                                 "PID %u is not a game this client registered", pid);
        r = manager_agent_game(m, a->name, (pid_t) pid, false);
        if (r < 0 && r != -ESRCH)
                return bus_process_error(r, pid, "place", error);
        on_changed(m, "Agents");
        return sd_bus_reply_method_return(msg, "");
}

/* Agents (a(suusu)): bus name, UID, PID, login session, games */
static int property_get_agents(sd_bus *bus, const char *path, const char *interface,
                               const char *property, sd_bus_message *reply, void *userdata,
                               sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "(suusu)");
        for (size_t i = 0; r >= 0 && m->bus_data && i < m->bus_data->n_agents; i++) {
                BusAgent *a = &m->bus_data->agents[i];

                r = sd_bus_message_append(reply, "(suusu)", a->name, (uint32_t) a->uid, (uint32_t) a->pid,
                                          a->session, (uint32_t) placer_games_of(&m->placer, a->name));
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static const sd_bus_vtable boost_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_WRITABLE_PROPERTY("Mode", "s", property_get_string, property_set_mode, 0,
                                 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Backend", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PowerState", "s", property_get_string, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Groups", "a(suu)", property_get_groups, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Holds", "a(suuts)", property_get_holds, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Overrides", "a(su)", property_get_overrides, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Version", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Sessions", "a(ouuuu)", property_get_sessions, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Agents", "a(suusu)", property_get_agents, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD("RegisterAgent", "", "", method_register_agent, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("RegisterGame", "u", SD_BUS_PARAM(pid),
                                 NULL, , method_register_game, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("UnregisterGame", "u", SD_BUS_PARAM(pid),
                                 NULL, , method_unregister_game, SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_METHOD_WITH_NAMES("SetBoost", "su", SD_BUS_PARAM(group) SD_BUS_PARAM(boost),
                                 NULL, , method_set_boost, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ResetBoost", "s", SD_BUS_PARAM(group),
                                 NULL, , method_reset_boost, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetBoost", "s", SD_BUS_PARAM(group),
                                 "uu", SD_BUS_PARAM(base) SD_BUS_PARAM(effective),
                                 method_get_boost, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Classify", "us", SD_BUS_PARAM(pid) SD_BUS_PARAM(group),
                                 NULL, , method_classify, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ClassifyPidFD", "hs", SD_BUS_PARAM(pidfd) SD_BUS_PARAM(group),
                                 NULL, , method_classify, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetProcess", "u", SD_BUS_PARAM(pid), "ssssu",
                                 SD_BUS_PARAM(group) SD_BUS_PARAM(class) SD_BUS_PARAM(reason)
                                 SD_BUS_PARAM(rule) SD_BUS_PARAM(parent),
                                 method_get_process, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetForeground", "u", SD_BUS_PARAM(pid),
                                 NULL, , method_set_foreground, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetForegroundPidFD", "h", SD_BUS_PARAM(pidfd),
                                 NULL, , method_set_foreground, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Hold", "suus",
                                 SD_BUS_PARAM(group) SD_BUS_PARAM(boost)
                                 SD_BUS_PARAM(timeout_ms) SD_BUS_PARAM(reason),
                                 "u", SD_BUS_PARAM(cookie), method_hold, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Release", "u", SD_BUS_PARAM(cookie),
                                 NULL, , method_release, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", "", "", method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("CreateSession", "aut", SD_BUS_PARAM(tids) SD_BUS_PARAM(target_ns),
                                 "o", SD_BUS_PARAM(session), method_create_session,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

static void on_changed(void *userdata, const char *property) {
        Manager *m = userdata;

        if (m->bus)
                (void) sd_bus_emit_properties_changed(m->bus, BOOST_BUS_PATH, BOOST_BUS_IFACE, property,
                                                      NULL);
}

static void on_hold_gone(void *userdata, void *hold_userdata) {
        (void) userdata;
        sd_bus_track_unref(hold_userdata);
}

int manager_bus_connect(Manager *m) {
        int r;

        m->bus_data = calloc(1, sizeof(BusData));
        if (!m->bus_data)
                return log_oom(&m->log);
        m->observer = (Observer) {
                .userdata = m,
                .changed = on_changed,
                .hold_gone = on_hold_gone,
        };
        r = sd_bus_default_system(&m->bus);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to connect to the system bus: %m");
        r = sd_bus_add_filter(m->bus, &m->bus_data->filter, on_set_property, m);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to add the property filter: %m");
        r = sd_bus_add_object_vtable(m->bus, NULL, BOOST_BUS_PATH, BOOST_BUS_IFACE, boost_vtable, m);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to add the object vtable: %m");
        r = sd_bus_add_fallback_vtable(m->bus, NULL, BOOST_SESSION_PREFIX, BOOST_SESSION_IFACE,
                                       session_vtable, session_find, m);
        if (r >= 0)
                r = sd_bus_add_node_enumerator(m->bus, NULL, BOOST_SESSION_PREFIX, session_enumerate, m);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to add the sessions' objects: %m");
        m->work.userdata = m;
        m->work.output_changed = on_session_output;
        m->work.closed = on_session_closed;
        /* Without its bus boostd serves nobody: the loop ends with
         * EXIT_FAILURE, so that Restart=on-failure brings the API back. */
        r = sd_bus_set_exit_on_disconnect(m->bus, true);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to exit on a bus disconnect: %m");
        r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to attach the bus to the event loop: %m");
        r = sd_bus_request_name(m->bus, BOOST_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to take the bus name %s: %m", BOOST_BUS_NAME);
        /* The sources that need the bus start after manager_start()
         * (manager_bus_ready()): no asynchronous call of theirs may wait
         * through a long start and time out. */
        return 0;
}

void manager_bus_done(Manager *m) {
        if (m->bus_data) {
                polkit_cancel_all(&m->bus_data->queries);
                sd_bus_slot_unref(m->bus_data->filter);
                while (m->bus_data->n_agents > 0)
                        bus_agent_drop(m, &m->bus_data->agents[0]);
                free(m->bus_data);
                m->bus_data = NULL;
        }
        for (size_t i = 0; i < m->groups.holds.n; i++)
                m->groups.holds.holds[i].userdata = sd_bus_track_unref(m->groups.holds.holds[i].userdata);
        for (size_t i = 0; i < m->work.sessions.n; i++)
                m->work.sessions.sessions[i]->userdata =
                        sd_bus_track_unref(m->work.sessions.sessions[i]->userdata);
        m->work.output_changed = NULL;
        m->work.closed = NULL;
        m->observer = (Observer) {};
        manager_bus_gone(m);
        if (m->bus) {
                (void) sd_bus_flush(m->bus);
                m->bus = sd_bus_flush_close_unref(m->bus);
        }
}
