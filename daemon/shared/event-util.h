/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The monotonic clock and one-shot timers on sd-event, for every part
 * that waits. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* CLOCK_MONOTONIC in µs, the clock of every timer here. */
uint64_t now_usec(void);

/* A one-shot CLOCK_MONOTONIC timer at usec (absolute): made on first use
 * (with description), set to usec and enabled again after. */
int event_timer_arm(sd_event *e, sd_event_source **t, uint64_t usec, sd_event_time_handler_t fn,
                    void *userdata, const char *description);
/* Whether t exists and waits to fire. */
bool event_timer_armed(sd_event_source *t);
void event_timer_disarm(sd_event_source *t);
