/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* boostctl: what its files share: exit codes, calls to boostd, the verbs. */
#pragma once

#include <stdint.h>
#include <systemd/sd-bus.h>

/* Exit codes: part of the interface, see boostctl(1). */
enum {
        EXIT_OK = 0,
        EXIT_FAIL = 1,
        EXIT_USAGE = 2,
        EXIT_UNREACHABLE = 3,
        EXIT_DENIED = 4,
        EXIT_REJECTED = 5,
};

/* boostctl-util.c. Unlike the rest of the tree, what returns "int" here
 * and below returns an exit code (EXIT_*, or hold's command's status),
 * not a negative errno: main() returns it as it is. parse_u32() and
 * get_string_property() are the exceptions: negative errno. */

/* Prints what failed, from the D-Bus error e if it has a name, else from
 * errno r, and returns the exit code for it. */
int exit_for_error(const sd_bus_error *e, int r);
/* Prints msg with a pointer to --help; EXIT_USAGE. */
int usage_error(const char *msg);
/* A decimal number, no sign; -EINVAL otherwise. */
int parse_u32(const char *s, uint32_t *ret);
/* A string property of boostd's manager object; negative errno, e filled. */
int get_string_property(sd_bus *bus, const char *name, char **ret, sd_bus_error *e);
/* Calls method of boostd's manager with the arguments in types; EXIT_OK,
 * or the error printed and its exit code. */
int call(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...);
/* The same, printing no error: EXIT_OK or EXIT_FAIL. */
int call_quiet(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...);

/* boostctl-show.c: the verbs that read and print. */
int cmd_status(sd_bus *bus);
int cmd_get(sd_bus *bus, const char *group);
int cmd_mode_print(sd_bus *bus);
int cmd_why(sd_bus *bus, const char *pid_arg);
int cmd_sessions(sd_bus *bus);
int cmd_monitor(sd_bus *bus);

/* boostctl-change.c: the verbs that change things. */
int cmd_set(sd_bus *bus, const char *group, const char *boost);
int cmd_classify(sd_bus *bus, const char *pid_arg, const char *group);
int cmd_foreground(sd_bus *bus, const char *pid_arg);
int cmd_hold(sd_bus *bus, int argc, char *argv[]);
int cmd_mode_set(sd_bus *bus, const char *mode);
int cmd_reload(sd_bus *bus);
