/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* boostctl: command-line client of org.boostd.Boost1: options, the bus connection, the verbs. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "boostctl.h"
#include "config-version.h"

static void help(void) {
        printf("Usage: boostctl [--timeout-call SEC] [--no-ask-password] COMMAND [ARGS]\n\n"
               "Commands:\n"
               "  status                         Backend, mode, power state, groups, holds\n"
               "  get GROUP                      Print the base and effective boost\n"
               "  set GROUP N|default            Set the base boost of GROUP (0..100), or go\n"
               "                                 back to the configured one\n"
               "  classify PID GROUP             Move a process into GROUP\n"
               "  foreground PID                 Tell boostd which process has the focus\n"
               "  why PID                        Print the group of a process and what decided it\n"
               "  hold GROUP N [--timeout MS] [--reason TEXT] -- COMMAND [ARGS]\n"
               "                                 Hold GROUP at N or more while COMMAND runs\n"
               "  mode [auto|manual]             Print or set the mode\n"
               "  reload                         Reload the configuration\n"
               "  monitor                        Print changes as they happen\n"
               "  sessions                       List the hint sessions\n\n"
               "Exit status: 0 ok, 1 failure, 2 usage, 3 boostd unreachable,\n"
               "4 access denied, 5 request rejected; hold: the command's status.\n");
}

/* The commands and how many arguments each takes (-1: any number more). */
static bool verb_known(const char *verb, int n_args) {
        static const struct {
                const char *verb;
                int min, max;
        } verbs[] = {
                { "status", 0, 0 },  { "get", 1, 1 },    { "set", 2, 2 },
                { "classify", 2, 2 }, { "foreground", 1, 1 }, { "why", 1, 1 },  { "hold", 2, -1 },
                { "mode", 0, 1 },    { "reload", 0, 0 }, { "monitor", 0, 0 },
                { "sessions", 0, 0 },
        };

        for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
                if (strcmp(verb, verbs[i].verb) == 0)
                        return n_args >= verbs[i].min && (verbs[i].max < 0 || n_args <= verbs[i].max);
        return false;
}

/* "1.5" -> 1500000 µs; above 0. */
static int parse_seconds(const char *s, uint64_t *ret) {
        char *end;
        double d;

        errno = 0;
        d = strtod(s, &end);
        if (errno != 0 || end == s || *end != '\0' || !(d > 0) || d > 86400)
                return -EINVAL;
        *ret = (uint64_t) (d * 1e6);
        return 0;
}

int main(int argc, char *argv[]) {
        sd_bus *bus = NULL;
        uint64_t timeout_usec = 0;
        bool ask_password = true;
        const char *verb;
        int r;

        for (;;) {
                if (argc >= 2 && strcmp(argv[1], "--no-ask-password") == 0) {
                        ask_password = false;
                        argc--;
                        argv++;
                } else if (argc >= 2 && strncmp(argv[1], "--timeout-call", 14) == 0 &&
                           (argv[1][14] == '=' || argv[1][14] == '\0')) {
                        bool eq = argv[1][14] == '=';
                        const char *v = eq ? argv[1] + 15 : argc >= 3 ? argv[2] : NULL;

                        if (!v || parse_seconds(v, &timeout_usec) < 0)
                                return usage_error("--timeout-call takes a number of seconds above 0");
                        argc -= eq ? 1 : 2;
                        argv += eq ? 1 : 2;
                } else
                        break;
        }
        if (argc < 2)
                return usage_error("no command given");
        verb = argv[1];
        if (strcmp(verb, "-h") == 0 || strcmp(verb, "--help") == 0 || strcmp(verb, "help") == 0) {
                help();
                return EXIT_OK;
        }
        if (strcmp(verb, "--version") == 0) {
                printf("boostctl %s\n", BOOSTD_VERSION);
                return EXIT_OK;
        }
        /* A typo is a usage error, whether or not boostd is reachable. */
        if (!verb_known(verb, argc - 2))
                return usage_error("unknown command or wrong number of arguments");

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "boostctl: cannot connect to the system bus: %s\n", strerror(-r));
                return EXIT_UNREACHABLE;
        }
        /* someone at a terminal may be typing a password for polkit,
         * which boostd waits up to 120 s for */
        if (timeout_usec == 0 && ask_password && isatty(STDIN_FILENO))
                timeout_usec = 120 * 1000000ULL;
        if (timeout_usec > 0)
                (void) sd_bus_set_method_call_timeout(bus, timeout_usec);
        /* polkit may then ask the session's authentication agent */
        (void) sd_bus_set_allow_interactive_authorization(bus, ask_password);

        if (strcmp(verb, "status") == 0 && argc == 2)
                r = cmd_status(bus);
        else if (strcmp(verb, "get") == 0 && argc == 3)
                r = cmd_get(bus, argv[2]);
        else if (strcmp(verb, "set") == 0 && argc == 4)
                r = cmd_set(bus, argv[2], argv[3]);
        else if (strcmp(verb, "classify") == 0 && argc == 4)
                r = cmd_classify(bus, argv[2], argv[3]);
        else if (strcmp(verb, "foreground") == 0 && argc == 3)
                r = cmd_foreground(bus, argv[2]);
        else if (strcmp(verb, "why") == 0 && argc == 3)
                r = cmd_why(bus, argv[2]);
        else if (strcmp(verb, "hold") == 0)
                r = cmd_hold(bus, argc - 1, argv + 1);
        else if (strcmp(verb, "mode") == 0 && argc == 2)
                r = cmd_mode_print(bus);
        else if (strcmp(verb, "mode") == 0 && argc == 3)
                r = cmd_mode_set(bus, argv[2]);
        else if (strcmp(verb, "reload") == 0 && argc == 2)
                r = cmd_reload(bus);
        else if (strcmp(verb, "monitor") == 0 && argc == 2)
                r = cmd_monitor(bus);
        else if (strcmp(verb, "sessions") == 0 && argc == 2)
                r = cmd_sessions(bus);
        else
                r = usage_error("unknown command or wrong number of arguments");

        sd_bus_flush_close_unref(bus);
        return r;
}
