/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* boostctl: command-line client of org.boostd.Boost1. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bus-names.h"
#include "config-version.h"

/* Exit codes: part of the interface, see boostctl(1). */
enum {
        EXIT_OK = 0,
        EXIT_FAIL = 1,
        EXIT_USAGE = 2,
        EXIT_UNREACHABLE = 3,
        EXIT_DENIED = 4,
        EXIT_REJECTED = 5,
};

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
               "  sessions                       List the work sessions\n\n"
               "Exit status: 0 ok, 1 failure, 2 usage, 3 boostd unreachable,\n"
               "4 access denied, 5 request rejected; hold: the command's status.\n");
}

static int exit_for_error(const sd_bus_error *e, int r) {
        if (e && e->name) {
                fprintf(stderr, "boostctl: %s: %s\n", e->name, e->message ?: "");
                if (strcmp(e->name, BOOST_ERROR_ACCESS_DENIED) == 0 ||
                    strcmp(e->name, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") == 0)
                        return EXIT_DENIED;
                if (strcmp(e->name, "org.freedesktop.DBus.Error.ServiceUnknown") == 0 ||
                    strcmp(e->name, "org.freedesktop.DBus.Error.NameHasNoOwner") == 0 ||
                    strcmp(e->name, "org.freedesktop.DBus.Error.NoReply") == 0 ||
                    strcmp(e->name, "org.freedesktop.DBus.Error.Disconnected") == 0)
                        return EXIT_UNREACHABLE;
                if (strncmp(e->name, BOOST_ERROR_PREFIX, strlen(BOOST_ERROR_PREFIX)) == 0 ||
                    strcmp(e->name, BOOST_ERROR_INVALID_ARGS) == 0)
                        return strcmp(e->name, BOOST_ERROR_BACKEND_FAILED) == 0 ?
                                EXIT_FAIL : EXIT_REJECTED;
                return EXIT_FAIL;
        }
        fprintf(stderr, "boostctl: %s\n", strerror(-r));
        return EXIT_FAIL;
}

static int parse_u32(const char *s, uint32_t *ret) {
        char *end;
        unsigned long v;

        if (!s || !*s || *s == '-' || *s == '+')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || *end || v > UINT32_MAX)
                return -EINVAL;
        *ret = (uint32_t) v;
        return 0;
}

static int usage_error(const char *msg) {
        fprintf(stderr, "boostctl: %s (see boostctl --help)\n", msg);
        return EXIT_USAGE;
}

static int get_string_property(sd_bus *bus, const char *name, char **ret, sd_bus_error *e) {
        return sd_bus_get_property_string(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, name, e, ret);
}

/* Whether list (" a b c ") has the word w. */
static bool word_in(const char *list, const char *w) {
        size_t l = strlen(w);

        for (const char *p = strstr(list, w); p; p = strstr(p + 1, w))
                if (p > list && p[-1] == ' ' && p[l] == ' ')
                        return true;
        return false;
}

/* The groups; with overrides (the Overrides property, or NULL), where each
 * base comes from. */
static int print_groups(sd_bus_message *m, const char *indent, const char *overrides) {
        const char *name;
        uint32_t base, eff;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(suu)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(suu)", &name, &base, &eff)) > 0) {
                printf("%s%-16s base %3" PRIu32 "  effective %3" PRIu32, indent, name, base, eff);
                if (overrides)
                        printf("  (%s)", word_in(overrides, name) ? "override" : "config");
                printf("\n");
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int print_holds(sd_bus_message *m, const char *indent) {
        const char *group, *reason;
        uint32_t boost, uid;
        uint64_t deadline;
        int r, n = 0;

        r = sd_bus_message_enter_container(m, 'a', "(suuts)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(suuts)", &group, &boost, &uid, &deadline, &reason)) > 0) {
                printf("%s%-16s at least %3" PRIu32 "  uid %" PRIu32, indent, group, boost, uid);
                if (deadline) {
                        struct timespec ts;
                        uint64_t now;

                        clock_gettime(CLOCK_MONOTONIC, &ts);
                        now = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
                        printf("  %.1f s left", deadline > now ? (double) (deadline - now) / 1e6 : 0.0);
                }
                printf("%s%s\n", reason[0] ? "  " : "", reason);
                n++;
        }
        if (r < 0)
                return r;
        if (n == 0)
                printf("%s(none)\n", indent);
        return sd_bus_message_exit_container(m);
}

/* " name1 name2 ... ": the groups with a SetBoost() base. */
static int overrides_to_text(sd_bus_message *m, char **ret) {
        size_t n = 0;
        FILE *f = open_memstream(ret, &n);
        const char *name;
        uint32_t boost;
        int r;

        if (!f)
                return -ENOMEM;
        fputc(' ', f);
        r = sd_bus_message_enter_container(m, 'a', "(su)");
        while (r >= 0 && (r = sd_bus_message_read(m, "(su)", &name, &boost)) > 0)
                fprintf(f, "%s ", name);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        return r < 0 ? r : 0;
}

/* "  :1.42 uid 1000 pid 812 session 2: 1 game" per agent, "  none" */
static int print_agents(sd_bus_message *reply, const char *indent) {
        const char *name, *session;
        uint32_t uid, pid, games;
        unsigned n = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(suusu)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(suusu)", &name, &uid, &pid, &session, &games)) > 0) {
                printf("%s%s uid %" PRIu32 " pid %" PRIu32 " %s%s: %" PRIu32 " game%s\n", indent, name, uid, pid,
                       session[0] ? "session " : "no session", session, games, games == 1 ? "" : "s");
                n++;
        }
        if (r >= 0 && n == 0)
                printf("%snone\n", indent);
        return r;
}

static int cmd_status(sd_bus *bus) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *overrides = NULL;
        static const char *const props[] = { "Version", "Backend", "Mode", "PowerState" };
        int r;

        for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
                char *v = NULL;

                r = get_string_property(bus, props[i], &v, &e);
                if (r < 0) {
                        r = exit_for_error(&e, r);
                        sd_bus_error_free(&e);
                        return r;
                }
                printf("%-11s %s\n", props[i], v);
                free(v);
        }
        r = sd_bus_get_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "Overrides", &e, &reply,
                                "a(su)");
        if (r < 0)
                goto fail;
        r = overrides_to_text(reply, &overrides);
        reply = sd_bus_message_unref(reply);
        if (r < 0)
                goto fail;
        r = sd_bus_get_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "Groups", &e, &reply, "a(suu)");
        if (r < 0)
                goto fail;
        printf("Groups:\n");
        r = print_groups(reply, "  ", overrides);
        reply = sd_bus_message_unref(reply);
        if (r < 0)
                goto fail;
        r = sd_bus_get_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "Holds", &e, &reply, "a(suuts)");
        if (r < 0)
                goto fail;
        printf("Holds:\n");
        r = print_holds(reply, "  ");
        reply = sd_bus_message_unref(reply);
        if (r < 0)
                goto fail;
        r = sd_bus_get_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "Agents", &e, &reply,
                                "a(suusu)");
        if (r < 0)
                goto fail;
        printf("Session agents:\n");
        r = print_agents(reply, "  ");
        reply = sd_bus_message_unref(reply);
        if (r < 0)
                goto fail;
        free(overrides);
        return EXIT_OK;
fail:
        free(overrides);
        r = exit_for_error(&e, r);
        sd_bus_error_free(&e);
        return r;
}

static int callv(sd_bus *bus, bool quiet, const char *method, sd_bus_message **reply, const char *types,
                 va_list ap) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, method);
        if (r < 0)
                return quiet ? EXIT_FAIL : exit_for_error(NULL, r);
        r = sd_bus_message_appendv(m, types, ap);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &e, reply);
        sd_bus_message_unref(m);
        if (r < 0) {
                r = quiet ? EXIT_FAIL : exit_for_error(&e, r);
                sd_bus_error_free(&e);
                return r;
        }
        return EXIT_OK;
}

static int call(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = callv(bus, false, method, reply, types, ap);
        va_end(ap);
        return r;
}

/* The same, printing no error. */
static int call_quiet(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = callv(bus, true, method, reply, types, ap);
        va_end(ap);
        return r;
}

/* why PID: "PID 1240 is in performance: inherited from PID 1234
 * (classified)". */
/* The work sessions naming thread tid, with their output: what sets its
 * uclamp.min (or without uclamp, the pool group it is in), beside the
 * group that gives its boost. Best effort: a
 * session closing meanwhile is left out. */
static void print_sessions_of(sd_bus *bus, uint32_t tid) {
        sd_bus_message *list = NULL, *threads = NULL;
        char *group = NULL;
        const char *path;
        uint32_t u, boost;
        int r;

        if (sd_bus_get_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "Sessions", NULL, &list,
                                "a(ouuuu)") < 0)
                return;
        r = sd_bus_message_enter_container(list, 'a', "(ouuuu)");
        while (r >= 0 && (r = sd_bus_message_read(list, "(ouuuu)", &path, &u, &u, &u, &boost)) > 0) {
                bool found = false;

                if (sd_bus_get_property(bus, BOOST_BUS_NAME, path, BOOST_SESSION_IFACE, "Threads", NULL,
                                        &threads, "au") < 0)
                        continue;
                if (sd_bus_message_enter_container(threads, 'a', "u") >= 0)
                        while (sd_bus_message_read(threads, "u", &u) > 0)
                                found = found || u == tid;
                threads = sd_bus_message_unref(threads);
                if (!found)
                        continue;
                /* without uclamp the output is a group of the pool */
                if (sd_bus_get_property_string(bus, BOOST_BUS_NAME, path, BOOST_SESSION_IFACE, "Group", NULL,
                                               &group) >= 0 && group[0])
                        printf("thread %" PRIu32 " is in work session %s: output %" PRIu32
                               " of 1024, group %s\n", tid, path, boost, group);
                else
                        printf("thread %" PRIu32 " is in work session %s: uclamp.min %" PRIu32 "\n", tid,
                               path, boost);
                free(group);
                group = NULL;
        }
        sd_bus_message_unref(list);
}

static int cmd_why(sd_bus *bus, uint32_t pid) {
        sd_bus_message *reply = NULL, *up = NULL;
        const char *group, *class, *reason, *rule, *up_reason = NULL, *s;
        uint32_t parent, u;
        int r;

        r = call(bus, "GetProcess", &reply, "u", pid);
        if (r != EXIT_OK)
                return r;
        if (sd_bus_message_read(reply, "ssssu", &group, &class, &reason, &rule, &parent) <= 0) {
                sd_bus_message_unref(reply);
                return exit_for_error(NULL, -EBADMSG);
        }
        /* the parent may be gone by now: then its reason is not told */
        if (strcmp(reason, "inherited") == 0 && call_quiet(bus, "GetProcess", &up, "u", parent) == EXIT_OK &&
            sd_bus_message_read(up, "ssssu", &s, &s, &up_reason, &s, &u) <= 0)
                up_reason = NULL;
        printf("PID %" PRIu32 " is in %s: %s", pid, group[0] ? group : "(unknown group)", reason);
        if (rule[0])
                printf(" %s", rule);
        if (strcmp(reason, "inherited") == 0)
                printf(" from PID %" PRIu32 "%s%s%s", parent, up_reason ? " (" : "", up_reason ?: "",
                       up_reason ? ")" : "");
        if (strcmp(group, class) != 0)
                printf(" (its class: %s)", class);
        printf("\n");
        print_sessions_of(bus, pid);
        sd_bus_message_unref(up);
        sd_bus_message_unref(reply);
        return EXIT_OK;
}

static int cmd_hold(sd_bus *bus, int argc, char *argv[]) {
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

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *iface, *name;
        int r;

        (void) userdata, (void) error;
        r = sd_bus_message_read(m, "s", &iface);
        if (r < 0 || strcmp(iface, BOOST_BUS_IFACE) != 0)
                return 0;
        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return 0;
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *contents, *s;
                char type;

                if (sd_bus_message_read(m, "s", &name) < 0 ||
                    sd_bus_message_peek_type(m, &type, &contents) < 0)
                        break;
                if (sd_bus_message_enter_container(m, 'v', contents) < 0)
                        break;
                if (strcmp(contents, "s") == 0 && sd_bus_message_read(m, "s", &s) > 0)
                        printf("%s %s\n", name, s);
                else if (strcmp(contents, "a(suu)") == 0) {
                        printf("%s\n", name);
                        (void) print_groups(m, "  ", NULL);
                } else if (strcmp(contents, "a(suuts)") == 0) {
                        printf("%s\n", name);
                        (void) print_holds(m, "  ");
                } else
                        (void) sd_bus_message_skip(m, contents);
                (void) sd_bus_message_exit_container(m);
                (void) sd_bus_message_exit_container(m);
        }
        fflush(stdout);
        return 0;
}

static int cmd_monitor(sd_bus *bus) {
        int r;

        r = sd_bus_match_signal(bus, NULL, BOOST_BUS_NAME, BOOST_BUS_PATH, "org.freedesktop.DBus.Properties",
                                "PropertiesChanged", on_properties_changed, NULL);
        if (r < 0)
                return exit_for_error(NULL, r);
        printf("Monitoring %s; Ctrl-C to stop.\n", BOOST_BUS_NAME);
        fflush(stdout);
        for (;;) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return r == -ECONNRESET || r == -ENOTCONN ? EXIT_UNREACHABLE : exit_for_error(NULL, r);
                if (r > 0)
                        continue;
                r = sd_bus_wait(bus, UINT64_MAX);
                if (r < 0 && r != -EINTR)
                        return exit_for_error(NULL, r);
        }
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

/* sessions: path, client PID, UID, threads and output of each */
static int cmd_sessions(sd_bus *bus) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        uint32_t pid, uid, threads, boost;
        const char *path;
        int r, n = 0;

        r = sd_bus_get_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "Sessions", &e,
                                &reply, "a(ouuuu)");
        if (r < 0) {
                r = exit_for_error(&e, r);
                sd_bus_error_free(&e);
                return r;
        }
        r = sd_bus_message_enter_container(reply, 'a', "(ouuuu)");
        while (r >= 0 &&
               (r = sd_bus_message_read(reply, "(ouuuu)", &path, &pid, &uid, &threads, &boost)) > 0) {
                printf("%s  pid %" PRIu32 "  uid %" PRIu32 "  threads %" PRIu32 "  boost %" PRIu32
                       "\n", path, pid, uid, threads, boost);
                n++;
        }
        sd_bus_message_unref(reply);
        if (r < 0) {
                fprintf(stderr, "boostctl: cannot read the sessions: %s\n", strerror(-r));
                return EXIT_FAIL;
        }
        if (n == 0)
                printf("(none)\n");
        return EXIT_OK;
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
        sd_bus_message *reply = NULL;
        uint64_t timeout_usec = 0;
        bool ask_password = true;
        const char *verb;
        uint32_t a, b;
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
        else if (strcmp(verb, "get") == 0 && argc == 3) {
                r = call(bus, "GetBoost", &reply, "s", argv[2]);
                if (r == EXIT_OK && sd_bus_message_read(reply, "uu", &a, &b) > 0)
                        printf("%" PRIu32 " %" PRIu32 "\n", a, b);
        } else if (strcmp(verb, "set") == 0 && argc == 4) {
                if (strcmp(argv[3], "default") == 0)
                        r = call(bus, "ResetBoost", NULL, "s", argv[2]);
                else if (parse_u32(argv[3], &a) < 0)
                        r = usage_error("the boost must be a number 0..100 or \"default\"");
                else
                        r = call(bus, "SetBoost", NULL, "su", argv[2], a);
        } else if (strcmp(verb, "classify") == 0 && argc == 4) {
                if (parse_u32(argv[2], &a) < 0)
                        r = usage_error("PID must be a number");
                else
                        r = call(bus, "Classify", NULL, "us", a, argv[3]);
        } else if (strcmp(verb, "foreground") == 0 && argc == 3) {
                if (parse_u32(argv[2], &a) < 0)
                        r = usage_error("PID must be a number");
                else
                        r = call(bus, "SetForeground", NULL, "u", a);
        } else if (strcmp(verb, "why") == 0 && argc == 3) {
                if (parse_u32(argv[2], &a) < 0)
                        r = usage_error("PID must be a number");
                else
                        r = cmd_why(bus, a);
        } else if (strcmp(verb, "hold") == 0)
                r = cmd_hold(bus, argc - 1, argv + 1);
        else if (strcmp(verb, "mode") == 0 && argc == 2) {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                char *v = NULL;

                r = get_string_property(bus, "Mode", &v, &e);
                if (r < 0)
                        r = exit_for_error(&e, r);
                else {
                        printf("%s\n", v);
                        r = EXIT_OK;
                }
                free(v);
                sd_bus_error_free(&e);
        } else if (strcmp(verb, "mode") == 0 && argc == 3) {
                sd_bus_error e = SD_BUS_ERROR_NULL;

                r = sd_bus_set_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "Mode", &e, "s", argv[2]);
                r = r < 0 ? exit_for_error(&e, r) : EXIT_OK;
                sd_bus_error_free(&e);
        } else if (strcmp(verb, "reload") == 0 && argc == 2)
                r = call(bus, "Reload", NULL, "");
        else if (strcmp(verb, "monitor") == 0 && argc == 2)
                r = cmd_monitor(bus);
        else if (strcmp(verb, "sessions") == 0 && argc == 2)
                r = cmd_sessions(bus);
        else
                r = usage_error("unknown command or wrong number of arguments");

        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r;
}
