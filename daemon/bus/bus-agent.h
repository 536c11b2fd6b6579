/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agents' methods and property of Boost1 (bus-agent.c). */
#pragma once

#include <systemd/sd-bus.h>

#include "manager.h"

int bus_method_register_agent(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_register_game(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_unregister_game(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_property_get_agents(sd_bus *bus, const char *path, const char *interface, const char *property,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error);
/* Lets go of the agents' tracks (the manager forgets the agents). */
void bus_agents_detach(Manager *m);
