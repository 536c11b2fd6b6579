/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* boostctl: the verbs that change things: set, classify, foreground, hold, mode MODE, reload. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "boostctl.h"
#include "bus-names.h"

/* set GROUP N|default */
int cmd_set(sd_bus *bus, const char *group, const char *boost) {
        uint32_t n;

        if (strcmp(boost, "default") == 0)
                return call(bus, "ResetBoost", NULL, "s", group);
        if (parse_u32(boost, &n) < 0)
                return usage_error("the boost must be a number 0..100 or \"default\"");
        return call(bus, "SetBoost", NULL, "su", group, n);
}

int cmd_classify(sd_bus *bus, const char *pid_arg, const char *group) {
        uint32_t pid;

        if (parse_u32(pid_arg, &pid) < 0)
                return usage_error("PID must be a number");
        return call(bus, "Classify", NULL, "us", pid, group);
}

int cmd_foreground(sd_bus *bus, const char *pid_arg) {
        uint32_t pid;

        if (parse_u32(pid_arg, &pid) < 0)
                return usage_error("PID must be a number");
        return call(bus, "SetForeground", NULL, "u", pid);
}

int cmd_hold(sd_bus *bus, int argc, char *argv[]) {
        sd_bus_message *reply = NULL;
        const char *reason = NULL, *group = NULL, *boost_s = NULL;
        uint32_t boost, timeout = 0, cookie;
        char **command = NULL;
        int r, status;
        pid_t pid;

        /* hold GROUP N [--timeout MS] [--reason TEXT] -- COMMAND [ARGS] */
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--") == 0) {
                        command = argv + i + 1;
                        break;
                }
                if ((strcmp(argv[i], "--timeout") == 0 || strcmp(argv[i], "--reason") == 0) &&
                    i + 1 < argc) {
                        if (argv[i][2] == 't') {
                                if (parse_u32(argv[i + 1], &timeout) < 0)
                                        return usage_error("--timeout needs milliseconds");
                        } else
                                reason = argv[i + 1];
                        i++;
                } else if (strncmp(argv[i], "--timeout=", 10) == 0) {
                        if (parse_u32(argv[i] + 10, &timeout) < 0)
                                return usage_error("--timeout needs milliseconds");
                } else if (strncmp(argv[i], "--reason=", 9) == 0)
                        reason = argv[i] + 9;
                else if (!group)
                        group = argv[i];
                else if (!boost_s)
                        boost_s = argv[i];
                else
                        return usage_error("hold: unexpected argument before --");
        }
        if (!group || !boost_s || !command || !command[0])
                return usage_error("hold needs GROUP N -- COMMAND");
        if (parse_u32(boost_s, &boost) < 0)
                return usage_error("the boost must be a number 0..100");
        if (!reason)
                reason = command[0];

        r = call(bus, "Hold", &reply, "suus", group, boost, timeout, reason);
        if (r != EXIT_OK)
                return r;
        r = sd_bus_message_read(reply, "u", &cookie);
        sd_bus_message_unref(reply);
        if (r < 0)
                return exit_for_error(NULL, r);

        pid = fork();
        if (pid < 0)
                return exit_for_error(NULL, -errno);
        if (pid == 0) {
                execvp(command[0], command);
                fprintf(stderr, "boostctl: cannot run %s: %s\n", command[0], strerror(errno));
                _exit(127);
        }
        /* The hold lasts while this process stays on the bus. */
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return exit_for_error(NULL, -errno);
        (void) call(bus, "Release", NULL, "u", cookie);
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        return 128 + WTERMSIG(status);
}

int cmd_mode_set(sd_bus *bus, const char *mode) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_set_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "Mode", &e, "s", mode);
        r = r < 0 ? exit_for_error(&e, r) : EXIT_OK;
        sd_bus_error_free(&e);
        return r;
}

int cmd_reload(sd_bus *bus) {
        return call(bus, "Reload", NULL, "");
}
