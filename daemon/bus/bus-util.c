/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the bus layer's files share: errors worded for clients, polkit
 * checks, the caller's credentials and the process a caller names,
 * pinned. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bus-names.h"
#include "bus-util.h"
#include "util.h"

int bus_error(sd_bus_error *error, int r, const char *name, const char *fmt, ...) {
        char msg[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        (void) sd_bus_error_set(error, name, msg);
        return r;
}

/* A group and boost named by a caller: InvalidBoost before UnknownGroup. */
int bus_check_group_boost(Manager *m, const char *group, unsigned boost, int r, sd_bus_error *error) {
        if (r == -ERANGE || boost > BOOST_MAX)
                return bus_error(error, -ERANGE, BOOST_ERROR_INVALID_BOOST,
                                 "Boost %u is out of range 0..%u", boost, BOOST_MAX);
        if (r == -ENOENT || groups_find(&m->groups, group) < 0)
                return bus_error(error, -ENOENT, BOOST_ERROR_UNKNOWN_GROUP, "No group '%.64s'", group);
        return r;
}

int bus_check_group(Manager *m, const char *group, sd_bus_error *error) {
        return bus_check_group_boost(m, group, 0, 0, error);
}

/* After the checks of a method's arguments: perform reads them again. */
int bus_authorize(Manager *m, sd_bus_message *msg, const char *action, PolkitPerform perform,
                  sd_bus_error *error) {
        int r = sd_bus_message_rewind(msg, true);

        if (r < 0)
                return r;
        return polkit_authorize(&m->bus_data->queries, m->bus, msg, action, perform, m, NULL, &m->log, error);
}

int bus_process_error(int r, uint32_t pid, const char *what, sd_bus_error *error) {
        if (r == -ESRCH)
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS, "No process %u", pid);
        return bus_error(error, r, BOOST_ERROR_BACKEND_FAILED, "Failed to %s process %u: %s", what, pid,
                         strerror(-r));
}


static void target_call_free(void *p) {
        free(p);
}

/* The target is still what was pinned, or an error for the caller. */
int bus_target_check(TargetCall *t, sd_bus_error *error) {
        uid_t owner;

        if (process_id_is_current(t->m->proc_root, &t->id) <= 0 ||
            proc_get_uid(t->m->proc_root, t->id.pid, &owner) < 0)
                return bus_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS, "No process %d", (int) t->id.pid);
        if (owner != t->owner)
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED,
                                 "Process %d changed its owner while the call was checked", (int) t->id.pid);
        return 0;
}

/* Pins the process a caller names, by PID or by pidfd (fd >= 0), and asks
 * polkit: a caller may name its own processes with own_action (NULL: no
 * check); others' need org.boostd.classify-any (admin). */
int bus_target_authorize(Manager *m, sd_bus_message *msg, uint32_t pid, int fd, const char *group,
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

/* The caller's PID and effective UID. */
int bus_caller_pid_uid(sd_bus_message *msg, pid_t *ret_pid, uid_t *ret_uid) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r;

        r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_PID | SD_BUS_CREDS_EUID, &creds);
        if (r >= 0)
                r = sd_bus_creds_get_pid(creds, ret_pid);
        if (r >= 0)
                r = sd_bus_creds_get_euid(creds, ret_uid);
        return r;
}

void bus_emit_changed(Manager *m, const char *property) {
        if (m->bus)
                (void) sd_bus_emit_properties_changed(m->bus, BOOST_BUS_PATH, BOOST_BUS_IFACE, property,
                                                      NULL);
}
