/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hint-session controller's profiles on one plant (hint-plant.h): a
 * table of how each settles a frame loop, answers a load step and a
 * spike, and what output it keeps (the README's table). One report a
 * frame, frames every target.
 *
 *   hint-plant                  the table, in Markdown
 *   hint-plant --check README   exits 1 unless README has that table
 *                               between its hint-plant markers: a figure
 *                               the code no longer gives fails */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-hints.h"
#include "hint-controller.h"
#include "hint-plant.h"

#define BAND 0.03               /* "settled": within 3 % of the target ... */
#define HOLD 30                 /* ... for this many reports in a row */
#define RUN 300                 /* reports after the change */

typedef struct Result {
        int settle;             /* reports to settle, -1: not in RUN */
        double overshoot;       /* % of the target past it, after crossing */
        double mean;            /* the output's mean over RUN reports */
        double needed;          /* the least output meeting the target */
} Result;

typedef struct Loop {
        HintController ctl;
        uint64_t target, now;
} Loop;

static double frame(Loop *l, const Plant *p, double extra_cycles) {
        unsigned u = hint_controller_output(&l->ctl, l->now);
        Plant q = *p;
        HintWork w;
        double ms;

        q.cycles += extra_cycles;
        ms = plant_frame_ms(&q, u);
        l->now += l->target;
        w = (HintWork) { .timestamp_ns = l->now, .actual_ns = (uint64_t) (ms * 1e6) };
        (void) hint_controller_report(&l->ctl, &w, 1, l->now);
        return ms;
}

/* The least output whose frame meets the target. */
static double needed(const Plant *p, double target_ms) {
        for (unsigned u = 0; u <= 1024; u++)
                if (plant_frame_ms(p, u) <= target_ms)
                        return u;
        return NAN;
}

/* RUN reports on p; the first `spike_at` ... frame gets extra cycles. */
static Result run(Loop *l, const Plant *p, int spike_at, double spike_cycles) {
        double t_ms = l->target / 1e6, first_err = 0, sum = 0;
        int in_band = 0, crossed = 0;
        Result r = { .settle = -1, .needed = needed(p, t_ms) };

        for (int i = 0; i < RUN; i++) {
                double ms, err;

                sum += hint_controller_output(&l->ctl, l->now);
                ms = frame(l, p, i == spike_at ? spike_cycles : 0);
                err = (ms - t_ms) / t_ms;
                if (i == 0 || (first_err == 0 && fabs(err) > BAND))
                        first_err = fabs(err) > BAND ? err : 0;
                if (first_err != 0 && !crossed && err * first_err < 0)
                        crossed = 1;
                if (crossed && err * first_err < 0)
                        r.overshoot = fmax(r.overshoot, 100 * fabs(err));
                if (fabs(err) <= BAND) {
                        if (++in_band == HOLD && r.settle < 0)
                                r.settle = i - HOLD + 1;
                } else
                        in_band = 0;
        }
        r.mean = sum / RUN;
        return r;
}

typedef enum Scenario {
        LOOP_60,
        LOOP_120,
        STEP_UP,
        STEP_DOWN,
        STEP_BEYOND,
        SPIKE,
        SPIKE_ANNOUNCED,
        _SCENARIO_MAX,
} Scenario;

static const char *const scenario_names[_SCENARIO_MAX] = {
        [LOOP_60] = "60 Hz loop from the start (needs 700 MHz)",
        [LOOP_120] = "120 Hz loop from the start (needs 700 MHz)",
        [STEP_UP] = "60 Hz, load step 500 -> 900 MHz",
        [STEP_DOWN] = "60 Hz, load step 900 -> 500 MHz",
        [STEP_BEYOND] = "60 Hz, load step 500 -> 1700 MHz (needs more than 384 and 480)",
        [SPIKE] = "60 Hz at 700 MHz, one frame of 3x the work",
        [SPIKE_ANNOUNCED] = "the same spike, announced (workload-spike)",
};

static Result scenario(const HintConfig *c, Scenario s) {
        const double t60 = 1000.0 / 60, t120 = 1000.0 / 120;
        Loop l = { .target = (uint64_t) (t60 * 1e6) };
        Plant p;

        if (s == LOOP_120)
                l.target = (uint64_t) (t120 * 1e6);
        (void) hint_controller_init(&l.ctl, c, l.target, 0);
        switch (s) {
        case LOOP_60:
                p = plant_meeting(t60, 8, 700);
                return run(&l, &p, -1, 0);
        case LOOP_120:
                p = plant_meeting(t120, 4, 700);
                return run(&l, &p, -1, 0);
        case STEP_UP:
        case STEP_DOWN:
        case STEP_BEYOND:
                p = plant_meeting(t60, 8, s == STEP_DOWN ? 900 : 500);
                (void) run(&l, &p, -1, 0);
                p = plant_meeting(t60, 8, s == STEP_UP ? 900 : s == STEP_DOWN ? 500 : 1700);
                return run(&l, &p, -1, 0);
        case SPIKE:
        case SPIKE_ANNOUNCED:
                p = plant_meeting(t60, 8, 700);
                (void) run(&l, &p, -1, 0);
                if (s == SPIKE_ANNOUNCED)
                        (void) hint_controller_hint(&l.ctl, HINT_WORKLOAD_SPIKE, l.now);
                return run(&l, &p, 0, 2 * p.cycles);
        default:
                return (Result) {};
        }
}

static const char *const profiles[] = { "boostd", "pixel-2024", "adpf-2022" };

#define MARK_BEGIN "<!-- hint-plant begin -->\n"
#define MARK_END "<!-- hint-plant end -->\n"

static char *table(void) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        HintConfig c[3];

        if (!f)
                return NULL;
        for (size_t k = 0; k < 3; k++)
                if (hint_config_init(&c[k]) < 0 || hint_config_profile(&c[k], profiles[k]) < 0)
                        return NULL;
        fprintf(f, "| scenario | profile | reports to settle (3 %%) | overshoot (%% of target) | mean output (needed) |\n");
        fprintf(f, "|---|---|---:|---:|---:|\n");
        for (Scenario s = 0; s < _SCENARIO_MAX; s++)
                for (size_t k = 0; k < 3; k++) {
                        Result r = scenario(&c[k], s);
                        char settle[16];

                        if (r.settle < 0)
                                snprintf(settle, sizeof(settle), "not in %d", RUN);
                        else
                                snprintf(settle, sizeof(settle), "%d", r.settle);
                        fprintf(f, "| %s | %s | %s | %.1f | %.0f (%.0f) |\n", scenario_names[s],
                                profiles[k], settle, r.overshoot, r.mean, r.needed);
                }
        for (size_t k = 0; k < 3; k++)
                hint_config_done(&c[k]);
        fclose(f);
        return buf;
}

int main(int argc, char **argv) {
        char *t = table(), *doc = NULL, *begin, *end;
        size_t size = 0;
        FILE *f;

        if (!t)
                return 2;
        if (argc < 3 || strcmp(argv[1], "--check") != 0) {
                fputs(t, stdout);
                return 0;
        }
        f = fopen(argv[2], "re");
        if (!f || getdelim(&doc, &size, '\0', f) < 0) {
                perror(argv[2]);
                return 2;
        }
        fclose(f);
        begin = strstr(doc, MARK_BEGIN);
        end = begin ? strstr(begin, MARK_END) : NULL;
        if (!end) {
                fprintf(stderr, "%s: no %s...%s\n", argv[2], MARK_BEGIN, MARK_END);
                return 1;
        }
        begin += strlen(MARK_BEGIN);
        if ((size_t) (end - begin) != strlen(t) || memcmp(begin, t, strlen(t)) != 0) {
                fprintf(stderr, "%s: the table differs from what the controller gives now:\n%s", argv[2], t);
                return 1;
        }
        free(doc);
        free(t);
        return 0;
}
