/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The controller of a hint session: from the reported durations of a
 * client's units of work (frames) against its target, the minimum
 * utilization its threads should run at. Android's ADPF controller, in its
 * units, as pure code with an explicit clock (CLOCK_MONOTONIC, ns): the
 * manager owns the timers and the actuation. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config-hints.h"

#define HINT_TARGET_MIN_NS 100000ULL         /* 100 us: the error's unit */
#define HINT_TARGET_MAX_NS 10000000000ULL    /* 10 s */
#define HINT_REPORT_MAX 64U                  /* durations in one report */
#define HINT_LOAD_UP_TARGETS 2U              /* a load-up hint lasts at most this long */

typedef struct HintWork {
        uint64_t timestamp_ns;  /* when the unit of work ended */
        uint64_t actual_ns;     /* how long it took */
} HintWork;

typedef enum HintKind {
        HINT_LOAD_UP,           /* also "workload-increase" */
        HINT_LOAD_DOWN,
        HINT_LOAD_RESET,        /* also "workload-reset" */
        HINT_WORKLOAD_SPIKE,
        _HINT_KIND_MAX,
} HintKind;

/* The heuristic boost's state (Android's Pixel power HAL, 2024): how
 * many of the last durations were jank, and the level that follows. */
typedef enum HintJankLevel {
        HINT_JANK_LIGHT,        /* no boost */
        HINT_JANK_MODERATE,
        HINT_JANK_SEVERE,
        _HINT_JANK_LEVEL_MAX,
} HintJankLevel;

typedef struct HintJank {
        uint32_t duration_us[HINT_JANK_WINDOW_MAX];     /* a ring, oldest at head */
        bool missed[HINT_JANK_WINDOW_MAX];
        unsigned head, n;
        unsigned n_missed;
        uint64_t sum_us;
        uint64_t last_start;    /* of the last duration, 0: none */
        uint64_t intervals[3];  /* between the last starts, newest first */
        unsigned n_intervals;
        HintJankLevel level;
        double factor;          /* 0..1: how far MODERATE is towards SEVERE */
} HintJank;

typedef struct HintController {
        const HintConfig *config;
        uint64_t target_ns;
        int64_t integral;       /* sum of error * dt, in (100 us)^2 */
        int64_t previous_error; /* the last error, 100 us */
        unsigned value;         /* the controlled output, within the bounds */
        uint64_t last_report;   /* or creation, or the last hint */
        uint64_t integrated_at; /* when the integral was last added to */
        /* a hint's value (load-up, reset, spike) until the next report or
         * boost_until, whichever comes first; 0: none */
        uint64_t boost_until;
        unsigned boost_value;
        bool skip_spike;        /* the next report's longest duration is a
                                 * spike the client announced: not fed */
        bool efficient;         /* prefers power efficiency: a lower high
                                 * bound */
        HintJank jank;
} HintController;

/* -EINVAL for a target outside HINT_TARGET_{MIN,MAX}_NS. */
int hint_controller_init(HintController *s, const HintConfig *config, uint64_t target_ns,
                     uint64_t now);

/* A batch of n (1..HINT_REPORT_MAX) durations, oldest first: updates the
 * value, ends a hint's value. -EINVAL for an empty or too long batch, or
 * a duration of 0 or over 20 times HINT_TARGET_MAX_NS; the state is then
 * unchanged. */
int hint_controller_report(HintController *s, const HintWork *work, size_t n, uint64_t now);

/* A new target, for the next reports; one that moves by more than 30 %
 * starts the heuristic boost's window afresh. -EINVAL out of range,
 * unchanged. */
int hint_controller_set_target(HintController *s, uint64_t target_ns);

/* load-up: LoadUp= until the next report, for at most 2 targets;
 * load-down: the value goes to the low bound; load-reset: the value at
 * least the initial one, the integral, the derivative and the heuristic
 * boost's window cleared, and LoadUp= until the next report, for at most
 * half of StaleTargets=; workload-spike: LoadUp= until the next report, for
 * at most one target, and that report's longest duration is not fed to
 * the controller nor the jank window. -EINVAL for another hint. */
int hint_controller_hint(HintController *s, HintKind hint, uint64_t now);

/* "load-up", "load-down", "load-reset", "workload-increase",
 * "workload-reset", "workload-spike" -> hint; -EINVAL otherwise. */
int hint_kind_from_string(const char *s, HintKind *ret);

/* Prefer power efficiency: the high bound is PowerEfficientHigh= (and
 * the value comes down to it at once), the heuristic boost raises
 * nothing above it. */
void hint_controller_set_efficient(HintController *s, bool efficient);

/* "light", "moderate", "severe". */
const char *hint_jank_level_to_string(HintJankLevel l);

/* The bounds the next report keeps the value within, and the gain
 * under the target: the heuristic boost's, the power-efficient high. */
void hint_controller_bounds(const HintController *s, unsigned *ret_low, unsigned *ret_high,
                            double *ret_p_under);

/* No report (nor hint) for stale_targets targets. */
bool hint_controller_is_stale(const HintController *s, uint64_t now);

/* What the threads get now: the low bound while stale, the larger of the
 * value and a hint's value while it lasts, the value otherwise. */
unsigned hint_controller_output(const HintController *s, uint64_t now);

/* When hint_controller_output() changes next without a call (a hint's
 * value ends, the session turns stale), 0 for never. */
uint64_t hint_controller_next_change(const HintController *s, uint64_t now);
