/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hint sessions on the bus (bus-hint-session.c). */
#pragma once

#include <systemd/sd-bus.h>

#include "manager.h"

/* Boost1's CreateSession(au tids, t target_ns) -> (o session) */
int bus_method_create_session(sd_bus_message *msg, void *userdata, sd_bus_error *error);
/* Boost1's Sessions (a(ouuuu)) */
int bus_property_get_sessions(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error);
/* Serves the Session1 objects; hears of the sessions' outputs and ends. */
int bus_hint_sessions_attach(Manager *m);
/* Lets go of the clients' tracks and the callbacks. */
void bus_hint_sessions_detach(Manager *m);
