/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Asking polkit whether a bus caller may do an action, without blocking:
 * one asynchronous CheckAuthorization for methods and property writes
 * alike. */
#pragma once

#include <systemd/sd-bus.h>

#include "log.h"

/* The queries in flight; NULL when none. */
typedef struct PolkitQuery PolkitQuery;

/* Does what msg asks (and replies to it); an error it returns is the
 * reply. */
typedef int (*PolkitPerform)(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/* The caller's real UID (its effective one when the real is not known),
 * from the bus's credentials of the sender (never from anything it
 * passes in): polkit's unix-process subject is compared with the real
 * UID in /proc. Ownership (hint sessions, agents) uses the effective UID
 * the bus vouches for instead: bus_caller_pid_uid(). */
int bus_caller_uid(sd_bus_message *msg, uid_t *ret);

/* Runs perform now for root, else once polkit allows action for msg's
 * sender (with interaction if the caller allowed it); a refusal or a
 * failed check answers msg with AccessDenied. Returns what perform
 * returns, or 1 when the reply will follow. With free_userdata the query
 * owns userdata (what the handler pinned before the round trip, say) and
 * frees it in every case, on error too. */
int polkit_authorize(PolkitQuery **queries, sd_bus *bus, sd_bus_message *msg, const char *action,
                     PolkitPerform perform, void *userdata, void (*free_userdata)(void *),
                     const LogContext *log, sd_bus_error *error);
/* Drops the queries in flight, unanswered (the daemon stops). */
void polkit_cancel_all(PolkitQuery **queries);
