/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agents: boostd-session processes, one per user's session, that
 * forward their user's GameMode games. Who each is (bus name, UID, PID,
 * logind session) and how many a user may run; the bus layer tracks each
 * on the bus (userdata) and says when one left. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define AGENTS_MAX 64U
#define AGENTS_PER_UID_MAX 4U
#define GAMES_PER_AGENT_MAX 64U

typedef struct Agent {
        char *name;                     /* unique bus name */
        uid_t uid;
        pid_t pid;
        char session[64];               /* its logind session, "" if none */
        void *userdata;                 /* the bus layer's */
} Agent;

typedef struct Agents {
        Agent agents[AGENTS_MAX];
        size_t n;
} Agents;

Agent *agents_find(Agents *a, const char *name);
/* A new agent, its logind session looked up from pid (a user service has
 * none of its own: then its user's display session). -EUSERS at
 * AGENTS_PER_UID_MAX of its UID or AGENTS_MAX in all. */
int agents_add(Agents *a, const char *name, uid_t uid, pid_t pid, Agent **ret);
/* Forgets x; its userdata must have been let go. */
void agents_remove(Agents *a, Agent *x);
