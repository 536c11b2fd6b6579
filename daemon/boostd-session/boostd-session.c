/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* boostd-session: the agent in a user's session. boostd serves the system
 * bus; what knows about games and focus lives in the session: GameMode's
 * gamemoded serves the user's bus, and a compositor's scripts reach the
 * user's bus most easily. The agent
 *
 *   - follows GameMode on the user's bus (gamemode.c, as boostd follows
 *     a GameMode service on the system bus: GameRegistered,
 *     GameUnregistered, ListGames() when it appears) and forwards each
 *     game to boostd with RegisterGame()/UnregisterGame(); boostd places
 *     it as GameMode's row of its decisions says, with the user's own
 *     authorization (org.boostd.classify), and drops the agent's games
 *     when the agent leaves the bus;
 *   - serves org.boostd.SessionAgent1 on the user's bus, whose
 *     SetForeground(u pid) is boostd's SetForeground, so that a
 *     compositor script reports focus with one call;
 *   - registers with boostd (RegisterAgent(): boostctl status lists it),
 *     and again, with its games, when boostd comes back.
 *
 * It holds no privilege: every call is the user's own, decided by boostd
 * and polkit. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-login.h>

#include "bus-names.h"
#include "config-version.h"
#include "events.h"
#include "gamemode.h"
#include "log.h"
#include "macro.h"
#include "util.h"

#define AGENT_GAMES_MAX 64

typedef struct Agent {
        LogContext log;
        sd_event *event;
        sd_bus *user;                   /* the user's bus */
        sd_bus *system;
        EventSink sink;                 /* what GameMode's watch reports to */
        GameModeWatch *gamemode;
        sd_bus_slot *boostd_owner;      /* NameOwnerChanged of boostd */
        bool registered;                /* boostd took RegisterAgent() */
        char *refusal;                  /* why it did not, NULL: it did not
                                         * answer yet, or it took it */
        sd_login_monitor *logins;       /* logind's sessions, while refused */
        sd_event_source *logins_source;
        pid_t games[AGENT_GAMES_MAX];   /* what GameMode says now */
        size_t n_games;
} Agent;

/* A forwarded call, until its answer. */
typedef struct Forward {
        Agent *agent;
        pid_t pid;
        const char *method;
} Forward;

/* The answer of a forwarded call: only logged (the game stays in the
 * agent's list, and is sent again when boostd comes back). */
static int on_forwarded(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Forward *f = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        (void) ret_error;
        if (e)
                log_warning(&f->agent->log, "boostd refused game %d (%s): %s: %s", (int) f->pid, f->method,
                            e->name, e->message ?: "");
        return 0;
}

static void forward_game(Agent *a, pid_t pid, bool registered) {
        _cleanup_(freep) Forward *f = malloc(sizeof(Forward));
        sd_bus_slot *slot = NULL;
        int r;

        if (!f) {
                log_oom(&a->log);
                return;
        }
        *f = (Forward) { a, pid, registered ? "RegisterGame" : "UnregisterGame" };
        r = sd_bus_call_method_async(a->system, &slot, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE,
                                     f->method, on_forwarded, f, "u", (uint32_t) pid);
        if (r < 0) {
                log_warning_errno(&a->log, r, "Cannot forward game %d to boostd: %m", (int) pid);
                return;
        }
        /* the slot frees f, after the answer or with the bus */
        (void) sd_bus_slot_set_destroy_callback(slot, free);
        (void) sd_bus_slot_set_floating(slot, 1);
        sd_bus_slot_unref(slot);
        TAKE_PTR(f);
}

static bool games_drop(Agent *a, pid_t pid) {
        for (size_t i = 0; i < a->n_games; i++)
                if (a->games[i] == pid) {
                        a->games[i] = a->games[--a->n_games];
                        return true;
                }
        return false;
}

static int on_game(void *userdata, pid_t pid, bool registered) {
        Agent *a = userdata;
        bool known = games_drop(a, pid);

        if (registered) {
                if (a->n_games >= AGENT_GAMES_MAX) {
                        log_warning(&a->log, "GameMode: more than %d games, %d not forwarded.",
                                    AGENT_GAMES_MAX, (int) pid);
                        return -ENOSPC;
                }
                a->games[a->n_games++] = pid;
        } else if (!known)
                return 0;
        log_info(&a->log, "GameMode: game %d %s.", (int) pid, registered ? "registered" : "unregistered");
        forward_game(a, pid, registered);
        return 0;
}

static void on_games_gone(void *userdata) {
        Agent *a = userdata;

        while (a->n_games > 0)
                (void) on_game(a, a->games[0], false);
}

static void agent_announce(Agent *a);

/* A logind session changed (one became active, say): a refused agent
 * asks again, as polkit's answer may be another now. */
static int on_logins(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Agent *a = userdata;

        (void) s, (void) fd, (void) revents;
        (void) sd_login_monitor_flush(a->logins);
        if (!a->registered) {
                log_info(&a->log, "A login session changed: asking boostd again.");
                agent_announce(a);
        }
        return 0;
}

static void logins_follow(Agent *a) {
        int r;

        if (a->logins)
                return;
        r = sd_login_monitor_new("session", &a->logins);
        if (r >= 0)
                r = sd_event_add_io(a->event, &a->logins_source, sd_login_monitor_get_fd(a->logins),
                                    (uint32_t) sd_login_monitor_get_events(a->logins), on_logins, a);
        if (r < 0) {
                log_warning_errno(&a->log, r, "Cannot follow logind's sessions, asking again only when boostd comes back: %m");
                a->logins = sd_login_monitor_unref(a->logins);
        }
}

static void logins_unfollow(Agent *a) {
        a->logins_source = sd_event_source_disable_unref(a->logins_source);
        a->logins = sd_login_monitor_unref(a->logins);
}

/* boostd's answer to RegisterAgent(): refused (polkit grants
 * org.boostd.classify to an active local session by default: a login
 * over ssh, or one in the background, gets nothing), the agent says why
 * and asks again when a logind session changes. */
static int on_registered(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Agent *a = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        (void) ret_error;
        a->refusal = mfree(a->refusal);
        if (!e) {
                if (!a->registered)
                        log_info(&a->log, "Registered with boostd.");
                a->registered = true;
                logins_unfollow(a);
                return 0;
        }
        a->registered = false;
        if (asprintf(&a->refusal, "%s: %s", e->name, e->message ?: "") < 0)
                a->refusal = NULL;
        log_warning(&a->log,
                    "boostd refused to register this agent: %s: %s. Its games are not forwarded until it "
                    "does; polkit grants org.boostd.classify to an active local session: asking again "
                    "when a login session changes.", e->name, e->message ?: "");
        logins_follow(a);
        return 0;
}

/* Registers with boostd and tells it every game there is. */
static void agent_announce(Agent *a) {
        int r;

        r = sd_bus_call_method_async(a->system, NULL, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE,
                                     "RegisterAgent", on_registered, a, "");
        if (r < 0)
                log_warning_errno(&a->log, r, "Cannot register with boostd: %m");
        for (size_t i = 0; i < a->n_games; i++)
                forward_game(a, a->games[i], true);
}

/* boostd came back (a restart): what it knew of this agent is gone. */
static int on_boostd_owner(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        Agent *a = userdata;
        const char *name, *old, *new;

        (void) ret_error;
        if (sd_bus_message_read(msg, "sss", &name, &old, &new) < 0 || !new[0])
                return 0;
        log_info(&a->log, "boostd is back on the bus: registering again with %zu games.", a->n_games);
        a->registered = false;
        a->refusal = mfree(a->refusal);
        agent_announce(a);
        return 0;
}

static int on_set_foreground_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        sd_bus_message *call = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int r;

        (void) ret_error;
        /* boostd's answer, its error name and all, is the caller's */
        r = e ? sd_bus_reply_method_error(call, e) : sd_bus_reply_method_return(call, "");
        sd_bus_message_unref(call);
        return r;
}

/* SetForeground(u pid) on the user's bus: boostd's, as the user. */
static int method_set_foreground(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Agent *a = userdata;
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        r = sd_bus_call_method_async(a->system, NULL, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE,
                                     "SetForeground", on_set_foreground_reply, sd_bus_message_ref(msg), "u",
                                     pid);
        if (r < 0) {
                sd_bus_message_unref(msg);
                return sd_bus_error_set_errnof(error, r, "Cannot reach boostd: %s", strerror(-r));
        }
        return 1;       /* answered later */
}

/* Registration (s): "registered", "refused: NAME: MESSAGE" (asked again
 * when a login session changes), or "waiting" for boostd's answer or for
 * boostd on the bus; boostctl status shows it. */
static int property_get_registration(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error) {
        Agent *a = userdata;
        _cleanup_(freep) char *s = NULL;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        if (a->registered)
                return sd_bus_message_append(reply, "s", "registered");
        if (!a->refusal)
                return sd_bus_message_append(reply, "s", "waiting");
        if (asprintf(&s, "refused: %s", a->refusal) < 0)
                return -ENOMEM;
        return sd_bus_message_append(reply, "s", s);
}

static const sd_bus_vtable agent_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Registration", "s", property_get_registration, 0, 0),
        SD_BUS_METHOD_WITH_NAMES("SetForeground", "u", SD_BUS_PARAM(pid), NULL, , method_set_foreground,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

static void agent_done(Agent *a) {
        logins_unfollow(a);
        a->refusal = mfree(a->refusal);
        a->gamemode = gamemode_watch_free(a->gamemode);
        a->boostd_owner = sd_bus_slot_unref(a->boostd_owner);
        if (a->system)
                a->system = sd_bus_flush_close_unref(a->system);
        if (a->user)
                a->user = sd_bus_flush_close_unref(a->user);
        a->event = sd_event_unref(a->event);
}

static int agent_start(Agent *a) {
        SourceContext ctx;
        sigset_t mask;
        int r;

        r = sd_event_default(&a->event);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot make the event loop: %m");
        /* SIGTERM (the session's end) and SIGINT end the loop; leaving the
         * bus is what tells boostd */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(&a->log, -errno, "Cannot block SIGTERM: %m");
        r = sd_event_add_signal(a->event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(a->event, NULL, SIGINT, NULL, NULL);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot handle SIGTERM: %m");
        r = sd_bus_open_system(&a->system);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot connect to the system bus: %m");
        r = sd_bus_open_user(&a->user);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot connect to the user's bus: %m");
        r = sd_bus_attach_event(a->system, a->event, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0)
                r = sd_bus_attach_event(a->user, a->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot attach the buses: %m");
        /* the session ends, or the system bus goes: the agent with it */
        (void) sd_bus_set_exit_on_disconnect(a->system, true);
        (void) sd_bus_set_exit_on_disconnect(a->user, true);

        r = sd_bus_add_object_vtable(a->user, NULL, BOOST_AGENT_BUS_PATH, BOOST_AGENT_BUS_IFACE, agent_vtable,
                                     a);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot serve %s: %m", BOOST_AGENT_BUS_PATH);
        r = sd_bus_request_name(a->user, BOOST_AGENT_BUS_NAME, 0);
        if (r == -EEXIST)
                return log_error_errno(&a->log, r, "Another boostd-session serves this session (%s is taken).",
                                       BOOST_AGENT_BUS_NAME);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot take %s: %m", BOOST_AGENT_BUS_NAME);

        r = sd_bus_add_match_async(a->system, &a->boostd_owner,
                                   "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                   "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                                   "arg0='" BOOST_BUS_NAME "'",
                                   on_boostd_owner, NULL, a);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot follow boostd on the bus: %m");
        agent_announce(a);

        a->sink = (EventSink) { .userdata = a, .game = on_game, .games_gone = on_games_gone };
        ctx = (SourceContext) { .event = a->event, .bus = a->user, .log = &a->log, .root = "/", .sink = &a->sink };
        r = gamemode_watch_new(&ctx, &a->gamemode);
        if (r < 0)
                return log_error_errno(&a->log, r, "Cannot follow GameMode on the user's bus: %m");
        return 0;
}

static void help(void) {
        printf("boostd-session [--log-level=LEVEL]\n\n"
               "The agent in a user's session: forwards GameMode's games to boostd and serves\n"
               "org.boostd.SessionAgent1.SetForeground(u pid) on the user's bus.\n\n"
               "  -h --help              Show this help\n"
               "     --version           Show the version\n"
               "     --log-level=LEVEL   debug, info, notice, warning, err (default info)\n");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { "log-level", required_argument, NULL, 'l' },
                {}
        };
        Agent a = { .log = log_context_make(LOG_INFO) };
        int c, r;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case 'V':
                        printf("boostd-session %s\n", BOOSTD_VERSION);
                        return EXIT_SUCCESS;
                case 'l':
                        r = log_level_from_string(optarg);
                        if (r < 0) {
                                fprintf(stderr, "boostd-session: unknown log level '%s'\n", optarg);
                                return 2;
                        }
                        a.log.max_level = r;
                        break;
                default:
                        return 2;
                }
        if (optind < argc) {
                fprintf(stderr, "boostd-session: no arguments expected\n");
                return 2;
        }

        r = agent_start(&a);
        /* the loop's exit code: 0 after a signal, EXIT_FAILURE when a bus
         * went away (sd_bus_set_exit_on_disconnect()) */
        if (r >= 0)
                r = sd_event_loop(a.event);
        agent_done(&a);
        return r < 0 ? EXIT_FAILURE : r;
}
