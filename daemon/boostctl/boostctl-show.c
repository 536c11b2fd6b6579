/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* boostctl: the verbs that read and print: status, get, mode, why, sessions, monitor. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#include "boostctl.h"
#include "bus-names.h"

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

/* Where a boost reaches the CPU: a line per cpufreq policy, one for
 * placement. */
static int print_reach(sd_bus *bus, sd_bus_error *e) {
        sd_bus_message *reply = NULL;
        const char *name, *cpus, *why;
        int reaches, r;

        r = sd_bus_get_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "FrequencyReach", e, &reply,
                                "a(ssbs)");
        if (r < 0)
                return r;
        printf("Frequency:\n");
        r = sd_bus_message_enter_container(reply, 'a', "(ssbs)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ssbs)", &name, &cpus, &reaches, &why)) > 0) {
                if (name[0])
                        printf("  %s (CPUs %s): %s: %s\n", name, cpus, reaches ? "yes" : "no", why);
                else
                        printf("  no: %s\n", why);
        }
        sd_bus_message_unref(reply);
        reply = NULL;
        if (r < 0)
                return r;
        r = sd_bus_get_property(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, "PlacementReach", e, &reply,
                                "(bs)");
        if (r >= 0)
                r = sd_bus_message_read(reply, "(bs)", &reaches, &why);
        if (r >= 0)
                printf("Placement:  %s: %s\n", reaches ? "yes" : "no", why);
        sd_bus_message_unref(reply);
        return r < 0 ? r : 0;
}

/* The agent of the caller's own session (boostd-session, on the user's
 * bus): whether boostd took it, and why not. Quiet about a caller with no
 * user's bus (root from a system service, say). */
static void print_own_agent(void) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus *user = NULL;
        char *v = NULL;
        int r;

        if (sd_bus_open_user(&user) < 0)
                return;
        r = sd_bus_get_property_string(user, BOOST_AGENT_BUS_NAME, BOOST_AGENT_BUS_PATH,
                                       BOOST_AGENT_BUS_IFACE, "Registration", &e, &v);
        if (r >= 0)
                printf("This session's agent: %s%s\n", v,
                       strncmp(v, "refused", 7) == 0 ? " (asks again when a login session changes)" : "");
        else if (sd_bus_error_has_name(&e, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
                 sd_bus_error_has_name(&e, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                printf("This session's agent: none on the user's bus\n");
        else
                printf("This session's agent: cannot ask it: %s\n", e.message ?: strerror(-r));
        free(v);
        sd_bus_error_free(&e);
        sd_bus_flush_close_unref(user);
}

int cmd_status(sd_bus *bus) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *overrides = NULL;
        static const char *const props[] = { "Version", "Backend", "BackendReason", "Mode", "PowerState" };
        int r;

        for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
                char *v = NULL;

                r = get_string_property(bus, props[i], &v, &e);
                if (r < 0) {
                        r = exit_for_error(&e, r);
                        sd_bus_error_free(&e);
                        return r;
                }
                /* the reason under the backend, as its "why" */
                printf("%-11s %s\n", strcmp(props[i], "BackendReason") == 0 ? "  why" : props[i], v);
                free(v);
        }
        r = print_reach(bus, &e);
        if (r < 0)
                goto fail;
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
        print_own_agent();
        free(overrides);
        return EXIT_OK;
fail:
        free(overrides);
        r = exit_for_error(&e, r);
        sd_bus_error_free(&e);
        return r;
}

/* get GROUP: "BASE EFFECTIVE". */
int cmd_get(sd_bus *bus, const char *group) {
        sd_bus_message *reply = NULL;
        uint32_t base, eff;
        int r;

        r = call(bus, "GetBoost", &reply, "s", group);
        if (r == EXIT_OK && sd_bus_message_read(reply, "uu", &base, &eff) > 0)
                printf("%" PRIu32 " %" PRIu32 "\n", base, eff);
        sd_bus_message_unref(reply);
        return r;
}

/* mode, without an argument: print it. */
int cmd_mode_print(sd_bus *bus) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char *v = NULL;
        int r;

        r = get_string_property(bus, "Mode", &v, &e);
        if (r < 0)
                r = exit_for_error(&e, r);
        else {
                printf("%s\n", v);
                r = EXIT_OK;
        }
        free(v);
        sd_bus_error_free(&e);
        return r;
}

/* The hint sessions naming thread tid, with their output: what sets its
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

/* why PID: "PID 1240 is in performance: inherited from PID 1234
 * (classified)". */
int cmd_why(sd_bus *bus, const char *pid_arg) {
        sd_bus_message *reply = NULL, *up = NULL;
        const char *group, *class, *reason, *rule, *up_reason = NULL, *s;
        uint32_t pid, parent, u;
        int r;

        if (parse_u32(pid_arg, &pid) < 0)
                return usage_error("PID must be a number");
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

/* sessions: path, client PID, UID, threads and output of each */
int cmd_sessions(sd_bus *bus) {
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

int cmd_monitor(sd_bus *bus) {
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
