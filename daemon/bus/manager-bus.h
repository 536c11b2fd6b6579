/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The D-Bus face of the manager: org.boostd.Boost1 on the system bus. */
#pragma once

#include "manager.h"

/* Connects to the system bus, serves the object, takes the name, tracks
 * hold owners and tells the manager the bus is there. */
int manager_bus_connect(Manager *m);
/* Drops the polkit queries in flight and the client tracking, and closes
 * the bus. */
void manager_bus_done(Manager *m);
