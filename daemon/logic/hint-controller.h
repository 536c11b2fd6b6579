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
#define HINT_LOAD_UP_TARGETS 2U              /* a load-up hint lasts this long */

typedef struct HintWork {
        uint64_t timestamp_ns;  /* when the unit of work ended */
        uint64_t actual_ns;     /* how long it took */
} HintWork;

typedef enum HintKind {
        HINT_LOAD_UP,
        HINT_LOAD_DOWN,
        HINT_LOAD_RESET,
        _HINT_KIND_MAX,
} HintKind;

typedef struct HintController {
        const HintConfig *config;
        uint64_t target_ns;
        int64_t integral;       /* sum of error * dt, in (100 us)^2 */
        int64_t previous_error; /* the last error, 100 us */
        unsigned value;         /* the controlled output, low..high */
        uint64_t last_report;   /* or creation, or the last hint */
        uint64_t load_up_until; /* 0: no load-up hint in force */
} HintController;

/* -EINVAL for a target outside SESSION_TARGET_{MIN,MAX}_NS. */
int hint_controller_init(HintController *s, const HintConfig *config, uint64_t target_ns,
                     uint64_t now);

/* A batch of n (1..HINT_REPORT_MAX) durations, oldest first: updates the
 * value. -EINVAL for an empty or too long batch, or a duration of 0; the
 * state is then unchanged. */
int hint_controller_report(HintController *s, const HintWork *work, size_t n, uint64_t now);

/* A new target, for the next reports. -EINVAL out of range, unchanged. */
int hint_controller_set_target(HintController *s, uint64_t target_ns);

/* load-up: the high bound for HINT_LOAD_UP_TARGETS targets; load-down:
 * the value goes to the low bound; load-reset: back to the initial value,
 * the integral and derivative state cleared. -EINVAL for another hint. */
int hint_controller_hint(HintController *s, HintKind hint, uint64_t now);

/* "load-up", "load-down", "load-reset" -> hint; -EINVAL otherwise. */
int hint_kind_from_string(const char *s, HintKind *ret);

/* No report (nor hint) for stale_targets targets. */
bool hint_controller_is_stale(const HintController *s, uint64_t now);

/* What the threads get now: the high bound during a load-up hint, the low
 * bound while stale, the value otherwise. */
unsigned hint_controller_output(const HintController *s, uint64_t now);

/* When hint_controller_output() changes next without a call (a load-up hint
 * ends, the session turns stale), 0 for never. */
uint64_t hint_controller_next_change(const HintController *s, uint64_t now);
