/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.boostd.Boost1 on /org/boostd/Boost1: its methods and properties
 * translated to the manager's calls, and its vtable. The agents' methods
 * (bus-agent.c) and CreateSession and HintTable (bus-hint-session.c) are
 * in the same interface, served from their own files. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bus-agent.h"
#include "bus-boost.h"
#include "bus-hint-session.h"
#include "bus-names.h"
#include "bus-util.h"
#include "config-version.h"
#include "event-util.h"
#include "util.h"

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

static int perform_classify(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        TargetCall *t = userdata;
        int r;

        r = bus_target_check(t, error);
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

        r = bus_target_check(t, error);
        if (r < 0)
                return r;
        r = manager_set_foreground_process(t->m, &t->id, t->confine);
        if (r < 0)
                return bus_process_error(r, (uint32_t) t->id.pid, "place", error);
        return sd_bus_reply_method_return(msg, "");
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

        r = bus_target_check(t, error);
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
int bus_on_set_property(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
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
        else if (streq(property, "BackendReason"))
                v = m->backend ? backend_reason(m->backend) : "";
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

/* FrequencyReach (a(ssbs)): policy, its CPUs, whether a boost changes
 * its frequency, why; no policy at all is one entry named "". */
static int property_get_frequency_reach(sd_bus *bus, const char *path, const char *interface,
                                        const char *property, sd_bus_message *reply, void *userdata,
                                        sd_bus_error *error) {
        const Reach *x = &((Manager *) userdata)->reach;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "(ssbs)");
        if (r >= 0 && x->no_cpufreq)
                r = sd_bus_message_append(reply, "(ssbs)", "", "", 0, x->no_cpufreq_why);
        for (size_t i = 0; r >= 0 && i < x->n; i++)
                r = sd_bus_message_append(reply, "(ssbs)", x->policies[i].name, x->policies[i].cpus,
                                          (int) x->policies[i].reaches, x->policies[i].why);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* PlacementReach ((bs)): whether placement can act, why. */
static int property_get_placement_reach(sd_bus *bus, const char *path, const char *interface,
                                        const char *property, sd_bus_message *reply, void *userdata,
                                        sd_bus_error *error) {
        const Reach *x = &((Manager *) userdata)->reach;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append(reply, "(bs)", (int) x->placement, x->placement_why);
}

const sd_bus_vtable bus_boost_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_WRITABLE_PROPERTY("Mode", "s", property_get_string, property_set_mode, 0,
                                 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Backend", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("BackendReason", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("FrequencyReach", "a(ssbs)", property_get_frequency_reach, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PlacementReach", "(bs)", property_get_placement_reach, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PowerState", "s", property_get_string, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Groups", "a(suu)", property_get_groups, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Holds", "a(suuts)", property_get_holds, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Overrides", "a(su)", property_get_overrides, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Version", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Sessions", "a(ouuuu)", bus_property_get_sessions, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Agents", "a(suusu)", bus_property_get_agents, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD("RegisterAgent", "", "", bus_method_register_agent, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("RegisterGame", "u", SD_BUS_PARAM(pid),
                                 NULL, , bus_method_register_game, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("UnregisterGame", "u", SD_BUS_PARAM(pid),
                                 NULL, , bus_method_unregister_game, SD_BUS_VTABLE_UNPRIVILEGED),

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
                                 "o", SD_BUS_PARAM(session), bus_method_create_session,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};
