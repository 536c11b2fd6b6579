/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The monotonic clock and one-shot timers on sd-event. */
#include <time.h>

#include "event-util.h"
#include "macro.h"

uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

int event_timer_arm(sd_event *e, sd_event_source **t, uint64_t usec, sd_event_time_handler_t fn,
                    void *userdata, const char *description) {
        int r;

        if (!*t) {
                r = sd_event_add_time(e, t, CLOCK_MONOTONIC, usec, 0, fn, userdata);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_description(*t, description);
                return 0;
        }
        r = sd_event_source_set_time(*t, usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(*t, SD_EVENT_ONESHOT);
}

bool event_timer_armed(sd_event_source *t) {
        int enabled;

        return t && sd_event_source_get_enabled(t, &enabled) >= 0 && enabled != SD_EVENT_OFF;
}

void event_timer_disarm(sd_event_source *t) {
        if (t)
                (void) sd_event_source_set_enabled(t, SD_EVENT_OFF);
}
