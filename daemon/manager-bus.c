/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The D-Bus interface org.boostd.Boost1: vtable, authorization, tracking. */
#include <string.h>

#include "bus-names.h"
#include "config-version.h"
#include "gamemode.h"
#include "log.h"
#include "manager.h"
#include "process.h"

#define POLKIT_TIMEOUT_USEC (25 * USEC_PER_SEC)

typedef int (*PerformFn)(Manager *m, sd_bus_message *msg, sd_bus_error *error);

/* A method call waiting for polkit's answer. */
struct PendingAuth {
        PendingAuth *next;
        Manager *m;
        sd_bus_message *msg;
        sd_bus_slot *slot;
        PerformFn perform;
};

static PendingAuth *pending_free(PendingAuth *p) {
        if (!p)
                return NULL;
        sd_bus_slot_unref(p->slot);
        sd_bus_message_unref(p->msg);
        free(p);
        return NULL;
}

static void pending_unlink(Manager *m, PendingAuth *p) {
        for (PendingAuth **i = &m->pending; *i; i = &(*i)->next)
                if (*i == p) {
                        *i = p->next;
                        return;
                }
}

/* Callers are named by the bus's credentials of the sender, never by
 * anything they pass in. */
static int bus_caller_uid(sd_bus_message *msg, uid_t *ret) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *c = NULL;
        int r;

        r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID, &c);
        if (r < 0)
                return r;
        r = sd_bus_creds_get_uid(c, ret);
        if (r < 0)
                r = sd_bus_creds_get_euid(c, ret);
        return r;
}

static int polkit_append_subject(sd_bus_message *call, const char *sender, const char *action) {
        int r;

        r = sd_bus_message_append(call, "(sa{sv})s", "system-bus-name", 1, "name", "s",
                                  sender, action);
        if (r < 0)
                return r;
        /* details, flags (no interaction: a daemon cannot wait), cancellation id */
        return sd_bus_message_append(call, "a{ss}us", 0, 0U, "");
}

static int polkit_reply_authorized(Manager *m, sd_bus_message *reply, sd_bus_error *error) {
        int authorized = 0, challenge = 0, r;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(reply);

                log_warning(&m->log, "polkit check failed: %s", e && e->message ? e->message : "unknown error");
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED,
                                        "Authorization check failed");
        }
        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0)
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED,
                                        "Cannot read the authorization result");
        log_debug(&m->log, "polkit: authorized=%d challenge=%d", authorized, challenge);
        if (!authorized)
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED, "Not authorized");
        return 1;
}

static int on_polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        PendingAuth *p = userdata;
        Manager *m = p->m;
        int r;

        (void) ret_error;
        pending_unlink(m, p);

        r = polkit_reply_authorized(m, reply, &error);
        if (r > 0) {
                r = sd_bus_message_rewind(p->msg, true);
                if (r >= 0)
                        r = p->perform(m, p->msg, &error);
        }
        if (r < 0) {
                if (!sd_bus_error_is_set(&error))
                        sd_bus_error_set_errno(&error, r);
                (void) sd_bus_reply_method_error(p->msg, &error);
        }
        pending_free(p);
        return 0;
}

/* Runs perform now for root, or after polkit allows the action. Returns
 * what perform returns, or 1 when the reply will follow. */
static int bus_authorize(Manager *m, sd_bus_message *msg, const char *action, PerformFn perform,
                         sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        PendingAuth *p;
        uid_t uid;
        int r;

        r = bus_caller_uid(msg, &uid);
        if (r < 0)
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED,
                                        "Cannot identify the caller");
        if (uid == 0)
                return perform(m, msg, error);

        r = sd_bus_message_new_method_call(m->bus, &call, "org.freedesktop.PolicyKit1",
                                           "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority",
                                           "CheckAuthorization");
        if (r < 0)
                return r;
        r = polkit_append_subject(call, sd_bus_message_get_sender(msg), action);
        if (r < 0)
                return r;

        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->m = m;
        p->perform = perform;
        p->msg = sd_bus_message_ref(msg);
        r = sd_bus_call_async(m->bus, &p->slot, call, on_polkit_reply, p, POLKIT_TIMEOUT_USEC);
        if (r < 0) {
                pending_free(p);
                return r;
        }
        p->next = m->pending;
        m->pending = p;
        return 1;
}

/* Property writes cannot be answered later, so they ask polkit
 * synchronously. */
static int bus_authorize_sync(Manager *m, sd_bus_message *msg, const char *action,
                              sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
        uid_t uid;
        int r;

        r = bus_caller_uid(msg, &uid);
        if (r < 0)
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        if (uid == 0)
                return 1;
        r = sd_bus_message_new_method_call(m->bus, &call, "org.freedesktop.PolicyKit1",
                                           "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority",
                                           "CheckAuthorization");
        if (r < 0)
                return r;
        r = polkit_append_subject(call, sd_bus_message_get_sender(msg), action);
        if (r < 0)
                return r;
        r = sd_bus_call(m->bus, call, 5 * USEC_PER_SEC, NULL, &reply);
        if (r < 0) {
                log_warning_errno(&m->log, r, "polkit check failed: %m");
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED, "Authorization check failed");
        }
        return polkit_reply_authorized(m, reply, error);
}

/* SetBoost(s group, u boost) */
static int perform_set_boost(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        const char *group;
        uint32_t boost;
        int r;

        r = sd_bus_message_read(msg, "su", &group, &boost);
        if (r < 0)
                return r;
        r = manager_set_boost(m, group, boost, error);
        if (r < 0)
                return r;
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
        r = manager_check_group_boost(m, group, boost, error);
        if (r < 0)
                return r;
        r = sd_bus_message_rewind(msg, true);
        if (r < 0)
                return r;
        return bus_authorize(m, msg, "org.boostd.set-boost", perform_set_boost, error);
}

static int method_get_boost(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group;
        unsigned base, eff;
        int r;

        r = sd_bus_message_read(msg, "s", &group);
        if (r < 0)
                return r;
        r = manager_get_boost(m, group, &base, &eff, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "uu", (uint32_t) base, (uint32_t) eff);
}

/* Classify(u pid, s group); SetForeground(u pid) */
static int perform_classify(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        const char *group;
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "us", &pid, &group);
        if (r < 0)
                return r;
        r = manager_classify(m, (pid_t) pid, group, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

static int perform_set_foreground(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        r = manager_set_foreground(m, (pid_t) pid, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

/* A caller may move its own processes with org.boostd.classify; others'
 * need org.boostd.classify-any (admin). */
static int classify_action(Manager *m, sd_bus_message *msg, uint32_t pid, const char **ret,
                           sd_bus_error *error) {
        uid_t caller, owner;
        int r;

        if (pid == 0 || pid > INT32_MAX || proc_get_uid(m->proc_root, (pid_t) pid, &owner) < 0)
                return sd_bus_error_setf(error, BOOST_ERROR_NO_SUCH_PROCESS, "No process %u", pid);
        r = bus_caller_uid(msg, &caller);
        if (r < 0)
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        *ret = caller == owner ? "org.boostd.classify" : "org.boostd.classify-any";
        return 0;
}

static int method_classify(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *group, *action = NULL;
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "us", &pid, &group);
        if (r < 0)
                return r;
        r = manager_check_group(m, group, error);
        if (r < 0)
                return r;
        r = classify_action(m, msg, pid, &action, error);
        if (r < 0)
                return r;
        r = sd_bus_message_rewind(msg, true);
        if (r < 0)
                return r;
        return bus_authorize(m, msg, action, perform_classify, error);
}

static int method_set_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *action = NULL;
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        r = classify_action(m, msg, pid, &action, error);
        if (r < 0)
                return r;
        r = sd_bus_message_rewind(msg, true);
        if (r < 0)
                return r;
        return bus_authorize(m, msg, action, perform_set_foreground, error);
}

/* Hold(s group, u boost, u timeout_ms, s reason) -> (u cookie) */
static int perform_hold(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        const char *group, *reason;
        uint32_t boost, timeout, cookie;
        uid_t uid = 0;
        int r;

        r = sd_bus_message_read(msg, "suus", &group, &boost, &timeout, &reason);
        if (r < 0)
                return r;
        (void) bus_caller_uid(msg, &uid);
        r = manager_hold(m, group, boost, timeout, reason, sd_bus_message_get_sender(msg), uid,
                         &cookie, error);
        if (r < 0)
                return r;
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
        r = manager_check_group_boost(m, group, boost, error);
        if (r < 0)
                return r;
        r = sd_bus_message_rewind(msg, true);
        if (r < 0)
                return r;
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
        r = manager_release(m, cookie, sd_bus_message_get_sender(msg), error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

static int perform_reload(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        int r = manager_reload(m, error);

        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return bus_authorize(userdata, msg, "org.boostd.set-boost", perform_reload, error);
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
                v = power_state_to_string(m->power_state);
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
        for (size_t i = 0; i < m->n_groups; i++) {
                unsigned base, eff;

                if (manager_get_boost(m, m->groups[i].name, &base, &eff, NULL) < 0)
                        continue;
                r = sd_bus_message_append(reply, "(suu)", m->groups[i].name, (uint32_t) base,
                                          (uint32_t) eff);
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
        for (size_t i = 0; i < m->holds.n; i++) {
                Hold *h = &m->holds.holds[i];

                r = sd_bus_message_append(reply, "(suuts)", h->group, (uint32_t) h->boost,
                                          (uint32_t) h->uid, (uint64_t) h->deadline, h->reason);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int property_set_mode(sd_bus *bus, const char *path, const char *interface,
                             const char *property, sd_bus_message *value, void *userdata,
                             sd_bus_error *error) {
        Manager *m = userdata;
        const char *mode;
        int r;

        (void) bus, (void) path, (void) interface, (void) property;
        r = sd_bus_message_read(value, "s", &mode);
        if (r < 0)
                return r;
        if (!streq(mode, "auto") && !streq(mode, "manual"))
                return manager_set_mode(m, mode, error);
        r = bus_authorize_sync(m, sd_bus_get_current_message(m->bus), "org.boostd.set-boost", error);
        if (r < 0)
                return r;
        return manager_set_mode(m, mode, error);
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
        SD_BUS_PROPERTY("Version", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),

        SD_BUS_METHOD_WITH_NAMES("SetBoost", "su", SD_BUS_PARAM(group) SD_BUS_PARAM(boost),
                                 NULL, , method_set_boost, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetBoost", "s", SD_BUS_PARAM(group),
                                 "uu", SD_BUS_PARAM(base) SD_BUS_PARAM(effective),
                                 method_get_boost, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Classify", "us", SD_BUS_PARAM(pid) SD_BUS_PARAM(group),
                                 NULL, , method_classify, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetForeground", "u", SD_BUS_PARAM(pid),
                                 NULL, , method_set_foreground, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Hold", "suus",
                                 SD_BUS_PARAM(group) SD_BUS_PARAM(boost)
                                 SD_BUS_PARAM(timeout_ms) SD_BUS_PARAM(reason),
                                 "u", SD_BUS_PARAM(cookie), method_hold, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Release", "u", SD_BUS_PARAM(cookie),
                                 NULL, , method_release, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", "", "", method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

void manager_emit_changed(Manager *m, const char *property) {
        if (!m->bus)
                return;
        (void) sd_bus_emit_properties_changed(m->bus, BOOST_BUS_PATH, BOOST_BUS_IFACE, property,
                                              NULL);
}

static int on_track_gone(sd_bus_track *t, void *userdata) {
        Manager *m = userdata;

        manager_drop_holds_of(m, t);
        sd_bus_track_unref(t);
        return 0;
}

int manager_track_hold(Manager *m, Hold *h) {
        sd_bus_track *t = NULL;
        int r;

        h->userdata = NULL;
        if (!m->bus)
                return 0;
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

void manager_untrack_hold(Manager *m, void *userdata) {
        (void) m;
        sd_bus_track_unref(userdata);
}

int manager_connect_bus(Manager *m) {
        int r;

        r = sd_bus_default_system(&m->bus);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to connect to the system bus: %m");
        r = sd_bus_add_object_vtable(m->bus, NULL, BOOST_BUS_PATH, BOOST_BUS_IFACE, boost_vtable, m);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to add the object vtable: %m");
        r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to attach the bus to the event loop: %m");
        r = sd_bus_request_name(m->bus, BOOST_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to take the bus name %s: %m", BOOST_BUS_NAME);
        r = gamemode_watch_new(m, &m->gamemode);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to follow GameMode, ignoring: %m");
        return 0;
}

void manager_bus_done(Manager *m) {
        while (m->pending) {
                PendingAuth *p = m->pending;

                m->pending = p->next;
                pending_free(p);
        }
        if (m->bus) {
                (void) sd_bus_flush(m->bus);
                m->bus = sd_bus_flush_close_unref(m->bus);
        }
}
