/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hint-session controller: ADPF's PID, in its units. */
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "hint-controller.h"
#include "util.h"

/* Errors and the time step are counted in 100 us, as ADPF does. */
#define NS_PER_UNIT 100000LL

static int64_t ns_to_units(int64_t ns) {
        return ns / NS_PER_UNIT;
}

static bool target_valid(uint64_t target_ns) {
        return target_ns >= HINT_TARGET_MIN_NS && target_ns <= HINT_TARGET_MAX_NS;
}

int hint_controller_init(HintController *s, const HintConfig *config, uint64_t target_ns,
                     uint64_t now) {
        if (!target_valid(target_ns))
                return -EINVAL;
        *s = (HintController) {
                .config = config,
                .target_ns = target_ns,
                .value = config->initial,
                .last_report = now,
        };
        return 0;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
        return v < lo ? lo : v > hi ? hi : v;
}

int hint_controller_report(HintController *s, const HintWork *work, size_t n, uint64_t now) {
        const HintConfig *c = s->config;
        int64_t dt = ns_to_units((int64_t) s->target_ns);
        int64_t err_sum = 0, error = 0, mean, derivative, integral = s->integral;
        int64_t i_high, i_low, next;
        double p_out, i_out, d_out;

        if (n == 0 || n > HINT_REPORT_MAX)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (work[i].actual_ns == 0 || work[i].actual_ns > HINT_TARGET_MAX_NS * 20)
                        return -EINVAL;

        /* The integral is clamped so that its term stays within
         * [IntegralLow, IntegralHigh] of the output. */
        i_high = c->i_gain > 0 ? (int64_t) (c->i_high / c->i_gain) : 0;
        i_low = c->i_gain > 0 ? (int64_t) (c->i_low / c->i_gain) : 0;
        for (size_t i = 0; i < n; i++) {
                error = ns_to_units((int64_t) work[i].actual_ns - (int64_t) s->target_ns);
                err_sum += error;
        }
        /* The integral takes the batch's mean error once, not each of its
         * errors: ADPF integrates every duration, so that a client
         * batching 8 frames a report would get 8 times the integral gain.
         * No wind-up: an error the output cannot answer, being at its
         * bound already, is not integrated. */
        mean = err_sum / (int64_t) n;
        if (!((mean > 0 && s->value >= c->high) || (mean < 0 && s->value <= c->low)))
                integral = clamp64(integral + mean * dt, i_low, i_high);
        /* P on the batch's mean error; D on its last error against the one
         * before (ADPF's windows: all, all, 1). Asymmetric gains: a frame
         * over its target raises faster than one under it lowers. */
        p_out = (err_sum > 0 ? c->p_over : c->p_under) * (double) err_sum / (double) n;
        i_out = c->i_gain * (double) integral;
        derivative = error - s->previous_error;
        d_out = (derivative > 0 ? c->d_over : c->d_under) * (double) derivative / (double) dt;

        next = (int64_t) s->value + (int64_t) (p_out + i_out + d_out);
        s->value = (unsigned) clamp64(next, c->low, c->high);
        s->integral = integral;
        s->previous_error = error;
        s->last_report = now;
        return 0;
}

int hint_controller_set_target(HintController *s, uint64_t target_ns) {
        if (!target_valid(target_ns))
                return -EINVAL;
        s->target_ns = target_ns;
        return 0;
}

int hint_controller_hint(HintController *s, HintKind hint, uint64_t now) {
        const HintConfig *c = s->config;

        switch (hint) {
        case HINT_LOAD_UP:
                s->load_up_until = now + HINT_LOAD_UP_TARGETS * s->target_ns;
                break;
        case HINT_LOAD_DOWN:
                s->value = c->low;
                s->load_up_until = 0;
                break;
        case HINT_LOAD_RESET:
                s->value = c->initial;
                s->integral = 0;
                s->previous_error = 0;
                s->load_up_until = 0;
                break;
        default:
                return -EINVAL;
        }
        s->last_report = now;
        return 0;
}

int hint_kind_from_string(const char *s, HintKind *ret) {
        static const char *const names[_HINT_KIND_MAX] = {
                [HINT_LOAD_UP] = "load-up",
                [HINT_LOAD_DOWN] = "load-down",
                [HINT_LOAD_RESET] = "load-reset",
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(s, names[i])) {
                        *ret = (HintKind) i;
                        return 0;
                }
        return -EINVAL;
}

static uint64_t stale_at(const HintController *s) {
        return s->last_report + (uint64_t) s->config->stale_targets * s->target_ns;
}

bool hint_controller_is_stale(const HintController *s, uint64_t now) {
        return now >= stale_at(s);
}

unsigned hint_controller_output(const HintController *s, uint64_t now) {
        if (s->load_up_until > now)
                return s->config->high;
        if (hint_controller_is_stale(s, now))
                return s->config->low;
        return s->value;
}

uint64_t hint_controller_next_change(const HintController *s, uint64_t now) {
        uint64_t next = 0;

        if (s->load_up_until > now)
                next = s->load_up_until;
        if (stale_at(s) > now && (next == 0 || stale_at(s) < next))
                next = stale_at(s);
        return next;
}
