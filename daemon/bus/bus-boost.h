/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.boostd.Boost1 (bus-boost.c). */
#pragma once

#include <systemd/sd-bus.h>

extern const sd_bus_vtable bus_boost_vtable[];
/* The filter that sees Properties.Set of Mode before sd-bus does: its
 * polkit check is asynchronous (bus-boost.c says why). */
int bus_on_set_property(sd_bus_message *msg, void *userdata, sd_bus_error *error);
