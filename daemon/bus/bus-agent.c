/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agents' methods of Boost1 (RegisterAgent, RegisterGame,
 * UnregisterGame) and its Agents property. Who may be an agent and how
 * many is core/agents.c's; here each agent is tracked on the bus, and its
 * games end when it leaves. */
#include <string.h>

#include "bus-agent.h"
#include "bus-names.h"
#include "bus-util.h"

/* The agent left the bus (or the session ended): its games go back to
 * whoever decides next. */
static int on_agent_gone(sd_bus_track *t, void *userdata) {
        Manager *m = userdata;

        for (size_t i = 0; i < m->agents.n; i++) {
                Agent *a = &m->agents.agents[i];

                if (a->userdata != t)
                        continue;
                a->userdata = sd_bus_track_unref(a->userdata);
                manager_agent_gone(m, a);
                bus_emit_changed(m, "Agents");
                break;
        }
        return 0;
}

/* The caller as an agent, registered now if it was not. */
static int bus_agent_get(Manager *m, sd_bus_message *msg, Agent **ret, sd_bus_error *error) {
        const char *name = sd_bus_message_get_sender(msg);
        Agent *a = agents_find(&m->agents, name);
        sd_bus_track *track = NULL;
        uid_t uid;
        pid_t pid;
        int r;

        if (a) {
                *ret = a;
                return 0;
        }
        if (!name)
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        r = bus_caller_pid_uid(msg, &pid, &uid);
        if (r < 0)
                return bus_error(error, -EPERM, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        r = sd_bus_track_new(m->bus, &track, on_agent_gone, m);
        if (r >= 0)
                r = sd_bus_track_add_name(track, name);
        if (r < 0) {
                sd_bus_track_unref(track);
                return bus_error(error, r, BOOST_ERROR_NO_SUCH_PROCESS, "Cannot track the caller: %s",
                                 strerror(-r));
        }
        r = manager_agent_add(m, name, uid, pid, &a);
        if (r < 0)
                sd_bus_track_unref(track);
        if (r == -EUSERS)
                return bus_error(error, r, BOOST_ERROR_TOO_MANY_AGENTS,
                                 "At most %u session agents per user and %u in all", AGENTS_PER_UID_MAX,
                                 AGENTS_MAX);
        if (r < 0)
                return r;
        a->userdata = track;
        *ret = a;
        bus_emit_changed(m, "Agents");
        return 0;
}

/* RegisterAgent(): org.boostd.classify, what forwarding the user's own
 * games takes, so that users without an active session cannot fill the
 * table. */
static int perform_register_agent(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Agent *a = NULL;
        int r;

        r = bus_agent_get(userdata, msg, &a, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

int bus_method_register_agent(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return bus_authorize(userdata, msg, "org.boostd.classify", perform_register_agent, error);
}

static int perform_register_game(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        TargetCall *t = userdata;
        Manager *m = t->m;
        Agent *a = NULL;
        int r;

        r = bus_target_check(t, error);
        if (r < 0)
                return r;
        r = bus_agent_get(m, msg, &a, error);
        if (r < 0)
                return r;
        r = manager_agent_game(m, a->name, &t->id, true);
        if (r == -EUSERS)
                return bus_error(error, r, BOOST_ERROR_TOO_MANY_GAMES, "At most %u games per agent",
                                 GAMES_PER_AGENT_MAX);
        if (r < 0)
                return bus_process_error(r, (uint32_t) t->id.pid, "place", error);
        bus_emit_changed(m, "Agents");
        return sd_bus_reply_method_return(msg, "");
}

/* RegisterGame(u pid): as GameMode's GameRegistered, from the user's
 * session; the caller's own processes take org.boostd.classify. */
int bus_method_register_game(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        return bus_target_authorize(userdata, msg, pid, -1, NULL, "org.boostd.classify", perform_register_game,
                                    error);
}

/* UnregisterGame(u pid): only a game this client registered. */
int bus_method_unregister_game(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        Agent *a = agents_find(&m->agents, sd_bus_message_get_sender(msg));
        uint32_t pid;
        int r;

        r = sd_bus_message_read(msg, "u", &pid);
        if (r < 0)
                return r;
        if (!a || pid > INT32_MAX || !placer_game_has(&m->placer, (pid_t) pid, a->name))
                return bus_error(error, -ESRCH, BOOST_ERROR_NO_SUCH_PROCESS,
                                 "PID %u is not a game this client registered", pid);
        r = manager_agent_game(m, a->name, &(ProcessId) { .pid = (pid_t) pid }, false);
        if (r < 0 && r != -ESRCH)
                return bus_process_error(r, pid, "place", error);
        bus_emit_changed(m, "Agents");
        return sd_bus_reply_method_return(msg, "");
}

/* Agents (a(suusu)): bus name, UID, PID, login session, games */
int bus_property_get_agents(sd_bus *bus, const char *path, const char *interface, const char *property,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        r = sd_bus_message_open_container(reply, 'a', "(suusu)");
        for (size_t i = 0; r >= 0 && i < m->agents.n; i++) {
                Agent *a = &m->agents.agents[i];

                r = sd_bus_message_append(reply, "(suusu)", a->name, (uint32_t) a->uid, (uint32_t) a->pid,
                                          a->session, (uint32_t) placer_games_of(&m->placer, a->name));
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

void bus_agents_detach(Manager *m) {
        for (size_t i = 0; i < m->agents.n; i++)
                m->agents.agents[i].userdata = sd_bus_track_unref(m->agents.agents[i].userdata);
}
