/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hint-session controller: ADPF's PID, in its units, with the
 * heuristic boost and the workload hints of Android's current one. */
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "hint-controller.h"
#include "util.h"

/* Errors and the time step are counted in 100 us, as ADPF does. */
#define NS_PER_UNIT 100000LL
/* A target that moves by more than this (percent) starts the jank window
 * afresh: its durations were judged against another target. */
#define TARGET_CHANGE_PERCENT 30U

static int64_t ns_to_units(int64_t ns) {
        return ns / NS_PER_UNIT;
}

static bool target_valid(uint64_t target_ns) {
        return target_ns >= HINT_TARGET_MIN_NS && target_ns <= HINT_TARGET_MAX_NS;
}

static void jank_reset(HintJank *j) {
        memset(j, 0, sizeof(*j));
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
                .integrated_at = now,
        };
        return 0;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
        return v < lo ? lo : v > hi ? hi : v;
}

static unsigned lerp(unsigned a, unsigned b, double f) {
        return a + (unsigned) (f * ((double) b - (double) a));
}

void hint_controller_bounds(const HintController *s, unsigned *ret_low, unsigned *ret_high,
                            double *ret_p_under) {
        const HintConfig *c = s->config;
        unsigned low = c->low, high = c->high;
        double p_under = c->p_under;

        if (c->heuristic && s->jank.level != HINT_JANK_LIGHT) {
                double f = s->jank.factor;

                /* Pixel's: neither range reaches below the plain bounds */
                low = lerp(MAX(c->low, c->moderate_low), MAX(c->low, c->severe_low), f);
                high = lerp(MAX(c->high, c->moderate_high), MAX(c->high, c->severe_high), f);
                p_under = c->p_under + f * (MIN(c->severe_p_under, c->p_under) - c->p_under);
        }
        if (s->efficient) {
                high = MIN(high, c->efficient_high);
                low = MIN(low, high);
        }
        *ret_low = low;
        *ret_high = high;
        *ret_p_under = p_under;
}

/* One duration into the jank window: missed when over jank_factor times
 * the target; its start (end - duration) against the one before. */
static void jank_add(HintJank *j, const HintConfig *c, uint64_t target_ns, const HintWork *w) {
        unsigned cap = c->jank_window, slot;
        uint64_t us = w->actual_ns / 1000, start;
        bool missed = (double) w->actual_ns > (double) target_ns * c->jank_factor;

        if (j->n == cap) {
                j->sum_us -= j->duration_us[j->head];
                j->n_missed -= j->missed[j->head];
                j->head = (j->head + 1) % cap;
                j->n--;
        }
        slot = (j->head + j->n) % cap;
        j->duration_us[slot] = (uint32_t) MIN(us, (uint64_t) UINT32_MAX);
        j->missed[slot] = missed;
        j->sum_us += j->duration_us[slot];
        j->n_missed += missed;
        j->n++;

        if (w->timestamp_ns <= w->actual_ns)
                return;         /* no start time to compare */
        start = w->timestamp_ns - w->actual_ns;
        if (j->last_start != 0 && start > j->last_start) {
                memmove(j->intervals + 1, j->intervals, sizeof(j->intervals) - sizeof(j->intervals[0]));
                j->intervals[0] = start - j->last_start;
                j->n_intervals = MIN(j->n_intervals + 1, (unsigned) ELEMENTSOF(j->intervals));
        }
        j->last_start = start;
}

/* Below low_frame_rate: the last three frames started that far apart. */
static bool jank_low_frame_rate(const HintJank *j, const HintConfig *c) {
        if (c->low_frame_rate == 0 || j->n_intervals < ELEMENTSOF(j->intervals))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(j->intervals); i++)
                if (j->intervals[i] < 1000000000ULL / c->low_frame_rate)
                        return false;
        return true;
}

static void jank_update_level(HintJank *j, const HintConfig *c) {
        uint32_t max_us = 0;

        j->factor = 0;
        if (jank_low_frame_rate(j, c)) {
                j->level = HINT_JANK_LIGHT;
                return;
        }
        if (j->n_missed < c->moderate_jank) {
                /* it ends once the window's longest frame is also back
                 * near their mean: one long frame left keeps it at
                 * MODERATE, with the lowest boost */
                for (unsigned i = 0; i < j->n; i++)
                        max_us = MAX(max_us, j->duration_us[(j->head + i) % c->jank_window]);
                if (j->level == HINT_JANK_LIGHT || j->n == 0 ||
                    (double) max_us * j->n < c->recover_ratio * (double) j->sum_us)
                        j->level = HINT_JANK_LIGHT;
                else
                        j->level = HINT_JANK_MODERATE;
        } else if (j->n_missed < c->severe_jank) {
                j->level = HINT_JANK_MODERATE;
                j->factor = (double) (j->n_missed - c->moderate_jank) /
                            (double) (c->severe_jank - c->moderate_jank);
        } else {
                j->level = HINT_JANK_SEVERE;
                j->factor = 1.0;
        }
}

/* Adds to the integral unless the output sits at the bound this error
 * pushes it towards (no wind-up), or ADPF's way (windup). */
static int64_t integrate(const HintController *s, int64_t integral, int64_t amount,
                         unsigned low, unsigned high) {
        const HintConfig *c = s->config;
        int64_t i_high = c->i_gain > 0 ? (int64_t) (c->i_high / c->i_gain) : 0;
        int64_t i_low = c->i_gain > 0 ? (int64_t) (c->i_low / c->i_gain) : 0;

        if (!c->windup && ((amount > 0 && s->value >= high) || (amount < 0 && s->value <= low)))
                return integral;
        /* kept so that the integral term stays within
         * [IntegralLow, IntegralHigh] of the output */
        return clamp64(integral + amount, i_low, i_high);
}

int hint_controller_report(HintController *s, const HintWork *work, size_t n, uint64_t now) {
        const HintConfig *c = s->config;
        int64_t dt = ns_to_units((int64_t) s->target_ns);
        int64_t err_sum = 0, error = 0, mean, derivative, integral = s->integral;
        int64_t next, elapsed;
        HintWork fed[HINT_REPORT_MAX];
        unsigned low, high;
        double p_under, p_out, i_out, d_out;
        size_t n_fed = 0, spike = n;

        if (n == 0 || n > HINT_REPORT_MAX)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (work[i].actual_ns == 0 || work[i].actual_ns > HINT_TARGET_MAX_NS * 20)
                        return -EINVAL;

        /* The announced spike: the longest duration of the report after
         * the hint, whatever its place in the batch. */
        if (s->skip_spike) {
                spike = 0;
                for (size_t i = 1; i < n; i++)
                        if (work[i].actual_ns > work[spike].actual_ns)
                                spike = i;
        }
        for (size_t i = 0; i < n; i++)
                if (i != spike)
                        fed[n_fed++] = work[i];
        s->skip_spike = false;
        s->boost_until = 0;     /* a hint's value lasts until a report */
        s->last_report = now;
        if (n_fed == 0)
                return 0;

        if (c->heuristic) {
                for (size_t i = 0; i < n_fed; i++)
                        jank_add(&s->jank, c, s->target_ns, &fed[i]);
                jank_update_level(&s->jank, c);
        }
        hint_controller_bounds(s, &low, &high, &p_under);

        for (size_t i = 0; i < n_fed; i++) {
                error = ns_to_units((int64_t) fed[i].actual_ns - (int64_t) s->target_ns);
                err_sum += error;
                if (c->integral_per_duration)
                        integral = integrate(s, integral, error * dt, low, high);
        }
        /* boostd's integral: the report's mean error times the time it
         * stood for (since the last report, at most the stale time), so
         * that its action per second does not depend on how often a
         * client reports nor how many durations it batches; ADPF adds
         * each duration's error times the target. The time is boostd's
         * own clock: a client's timestamps could say anything. */
        mean = err_sum / (int64_t) n_fed;
        if (!c->integral_per_duration) {
                elapsed = (int64_t) MIN(now - MIN(s->integrated_at, now),
                                        (uint64_t) c->stale_targets * s->target_ns);
                integral = integrate(s, integral, mean * elapsed / NS_PER_UNIT, low, high);
        }
        s->integrated_at = now;
        /* P on the batch's mean error; D on its last error against the one
         * before. Asymmetric gains: a frame over its target raises faster
         * than one under it lowers. */
        p_out = (err_sum > 0 ? c->p_over : p_under) * (double) err_sum / (double) n_fed;
        i_out = c->i_gain * (double) integral;
        derivative = error - s->previous_error;
        d_out = (derivative > 0 ? c->d_over : c->d_under) * (double) derivative / (double) dt;

        next = (int64_t) s->value + (int64_t) (p_out + i_out + d_out);
        s->value = (unsigned) clamp64(next, low, high);
        s->integral = integral;
        s->previous_error = error;
        return 0;
}

int hint_controller_set_target(HintController *s, uint64_t target_ns) {
        uint64_t old = s->target_ns, moved;

        if (!target_valid(target_ns))
                return -EINVAL;
        moved = target_ns > old ? target_ns - old : old - target_ns;
        if (moved * 100 > old * TARGET_CHANGE_PERCENT)
                jank_reset(&s->jank);
        s->target_ns = target_ns;
        return 0;
}

int hint_controller_hint(HintController *s, HintKind hint, uint64_t now) {
        const HintConfig *c = s->config;
        unsigned low, high;
        double p_under;

        switch (hint) {
        case HINT_LOAD_UP:
                s->boost_value = c->load_up;
                s->boost_until = now + HINT_LOAD_UP_TARGETS * s->target_ns;
                break;
        case HINT_LOAD_DOWN:
                hint_controller_bounds(s, &low, &high, &p_under);
                s->value = low;
                s->boost_until = 0;
                break;
        case HINT_LOAD_RESET:
                /* a new workload: what was learnt of the old one goes,
                 * the first frames get the load-up value (Pixel's) */
                s->integral = 0;
                s->previous_error = 0;
                s->integrated_at = now;
                jank_reset(&s->jank);
                hint_controller_bounds(s, &low, &high, &p_under);
                s->value = MIN(MAX(s->value, c->initial), high);
                s->boost_value = c->load_up;
                s->boost_until = now + (uint64_t) MAX(c->stale_targets / 2, 1U) * s->target_ns;
                break;
        case HINT_WORKLOAD_SPIKE:
                s->boost_value = c->load_up;
                s->boost_until = now + s->target_ns;
                s->skip_spike = true;
                break;
        default:
                return -EINVAL;
        }
        s->last_report = now;
        return 0;
}

int hint_kind_from_string(const char *s, HintKind *ret) {
        static const struct {
                const char *name;
                HintKind kind;
        } names[] = {
                { "load-up", HINT_LOAD_UP },
                { "load-down", HINT_LOAD_DOWN },
                { "load-reset", HINT_LOAD_RESET },
                /* Android's NDK names (notifyWorkload*) */
                { "workload-increase", HINT_LOAD_UP },
                { "workload-reset", HINT_LOAD_RESET },
                { "workload-spike", HINT_WORKLOAD_SPIKE },
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(s, names[i].name)) {
                        *ret = names[i].kind;
                        return 0;
                }
        return -EINVAL;
}

void hint_controller_set_efficient(HintController *s, bool efficient) {
        s->efficient = efficient;
        if (efficient)
                s->value = MIN(s->value, s->config->efficient_high);
}

const char *hint_jank_level_to_string(HintJankLevel l) {
        static const char *const names[_HINT_JANK_LEVEL_MAX] = {
                [HINT_JANK_LIGHT] = "light",
                [HINT_JANK_MODERATE] = "moderate",
                [HINT_JANK_SEVERE] = "severe",
        };

        return l < _HINT_JANK_LEVEL_MAX ? names[l] : NULL;
}

static uint64_t stale_at(const HintController *s) {
        return s->last_report + (uint64_t) s->config->stale_targets * s->target_ns;
}

bool hint_controller_is_stale(const HintController *s, uint64_t now) {
        return now >= stale_at(s);
}

unsigned hint_controller_output(const HintController *s, uint64_t now) {
        unsigned v = s->value;

        if (hint_controller_is_stale(s, now))
                return s->config->low;
        if (s->boost_until > now)
                v = MAX(v, s->efficient ? MIN(s->boost_value, s->config->efficient_high)
                                        : s->boost_value);
        return v;
}

uint64_t hint_controller_next_change(const HintController *s, uint64_t now) {
        uint64_t next = 0;

        if (s->boost_until > now)
                next = s->boost_until;
        if (stale_at(s) > now && (next == 0 || stale_at(s) < next))
                next = stale_at(s);
        return next;
}
