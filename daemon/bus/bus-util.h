/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the bus layer's files share (bus-util.c). Nothing below the bus
 * layer sees D-Bus: these turn the core's negative errno into error names
 * and messages for clients. */
#pragma once

#include <systemd/sd-bus.h>

#include "macro.h"
#include "manager.h"
#include "polkit.h"
#include "process.h"

/* The bus layer's own data (Manager.bus_data). */
struct BusData {
        PolkitQuery *queries;           /* polkit checks in flight */
        sd_bus_slot *filter;            /* Properties.Set of Mode */
};

/* Sets error to name and the formatted message; returns r. */
int bus_error(sd_bus_error *error, int r, const char *name, const char *fmt, ...) _printf_(4, 5);
/* A group and boost named by a caller: InvalidBoost before UnknownGroup. */
int bus_check_group_boost(Manager *m, const char *group, unsigned boost, int r, sd_bus_error *error);
int bus_check_group(Manager *m, const char *group, sd_bus_error *error);
/* After the checks of a method's arguments: perform reads them again. */
int bus_authorize(Manager *m, sd_bus_message *msg, const char *action, PolkitPerform perform,
                  sd_bus_error *error);
/* NoSuchProcess for -ESRCH, else BackendFailed "Failed to WHAT process". */
int bus_process_error(int r, uint32_t pid, const char *what, sd_bus_error *error);
/* The caller's PID and effective UID, as the bus has them (SO_PEERCRED
 * at connect): who owns a hint session or an agent. polkit's subject
 * takes the real UID: bus_caller_uid(). */
int bus_caller_pid_uid(sd_bus_message *msg, pid_t *ret_pid, uid_t *ret_uid);
/* PropertiesChanged of one Boost1 property. */
void bus_emit_changed(Manager *m, const char *property);

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

/* The target is still what was pinned, or an error for the caller. */
int bus_target_check(TargetCall *t, sd_bus_error *error);
/* Pins the process a caller names, by PID or by pidfd (fd >= 0), and asks
 * polkit: a caller may name its own processes with own_action (NULL: no
 * check); others' need org.boostd.classify-any (admin). perform gets the
 * TargetCall as its userdata. */
int bus_target_authorize(Manager *m, sd_bus_message *msg, uint32_t pid, int fd, const char *group,
                         const char *own_action, PolkitPerform perform, sd_bus_error *error);
