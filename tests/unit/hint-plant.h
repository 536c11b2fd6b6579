/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A model of a frame loop for the hint-session controller: a frame of
 * `fixed_ms` that no frequency changes (waiting for the GPU, I/O) plus
 * `cycles` of CPU work, at the frequency schedutil asks for a minimum
 * utilization u of a 200-2000 MHz CPU: 1.25 * u / 1024 * fmax (its 25 %
 * margin), at least fmin. The frame time is what the client reports. */
#pragma once

typedef struct Plant {
        double fixed_ms;
        double cycles;          /* in ms x MHz, so that cycles / MHz = ms */
} Plant;

static inline double plant_mhz(unsigned u) {
        double f = 1.25 * u / 1024.0 * 2000.0;

        return f < 200.0 ? 200.0 : f > 2000.0 ? 2000.0 : f;
}

static inline double plant_frame_ms(const Plant *p, unsigned u) {
        return p->fixed_ms + p->cycles / plant_mhz(u);
}

/* A plant whose frame takes exactly target_ms at `mhz`. */
static inline Plant plant_meeting(double target_ms, double fixed_ms, double mhz) {
        return (Plant) { .fixed_ms = fixed_ms, .cycles = (target_ms - fixed_ms) * mhz };
}
