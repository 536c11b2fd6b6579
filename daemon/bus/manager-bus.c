/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager on the system bus: connects, serves org.boostd.Boost1
 * (bus-boost.c, bus-agent.c) and the hint sessions' objects
 * (bus-hint-session.c), takes the name, and lets go of it all at stop.
 * The bus layer translates; what happens is the manager's. */
#include "bus-agent.h"
#include "bus-boost.h"
#include "bus-hint-session.h"
#include "bus-names.h"
#include "bus-util.h"
#include "manager-bus.h"

static void on_changed(void *userdata, const char *property) {
        bus_emit_changed(userdata, property);
}

static void on_hold_gone(void *userdata, void *hold_userdata) {
        (void) userdata;
        sd_bus_track_unref(hold_userdata);
}

int manager_bus_connect(Manager *m) {
        int r;

        m->bus_data = calloc(1, sizeof(BusData));
        if (!m->bus_data)
                return log_oom(&m->log);
        m->observer = (Observer) {
                .userdata = m,
                .changed = on_changed,
                .hold_gone = on_hold_gone,
        };
        r = sd_bus_default_system(&m->bus);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to connect to the system bus: %m");
        r = sd_bus_add_filter(m->bus, &m->bus_data->filter, bus_on_set_property, m);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to add the property filter: %m");
        r = sd_bus_add_object_vtable(m->bus, NULL, BOOST_BUS_PATH, BOOST_BUS_IFACE, bus_boost_vtable, m);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to add the object vtable: %m");
        r = bus_hint_sessions_attach(m);
        if (r < 0)
                return r;
        /* Without its bus boostd serves nobody: the loop ends with
         * EXIT_FAILURE, so that Restart=on-failure brings the API back. */
        r = sd_bus_set_exit_on_disconnect(m->bus, true);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to exit on a bus disconnect: %m");
        r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to attach the bus to the event loop: %m");
        r = sd_bus_request_name(m->bus, BOOST_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to take the bus name %s: %m", BOOST_BUS_NAME);
        /* The sources that need the bus start after manager_start()
         * (manager_bus_ready()): no asynchronous call of theirs may wait
         * through a long start and time out. */
        return 0;
}

void manager_bus_done(Manager *m) {
        if (m->bus_data) {
                polkit_cancel_all(&m->bus_data->queries);
                sd_bus_slot_unref(m->bus_data->filter);
                free(m->bus_data);
                m->bus_data = NULL;
        }
        for (size_t i = 0; i < m->groups.holds.n; i++)
                m->groups.holds.holds[i].userdata = sd_bus_track_unref(m->groups.holds.holds[i].userdata);
        bus_agents_detach(m);
        bus_hint_sessions_detach(m);
        m->observer = (Observer) {};
        manager_bus_gone(m);
        if (m->bus) {
                (void) sd_bus_flush(m->bus);
                m->bus = sd_bus_flush_close_unref(m->bus);
        }
}
