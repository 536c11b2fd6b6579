/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [Sessions] section: the hint-session controller's gains and bounds. */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-hints.h"
#include "config-sources.h"
#include "macro.h"
#include "util.h"

/* A finite decimal number in [min, max], nothing after it. */
static int parse_gain(const char *key, const char *value, double min, double max,
                      double *ret, char **ret_msg) {
        char *end;
        double d;

        errno = 0;
        d = strtod(value, &end);
        if (end == value || *end != '\0' || errno == ERANGE || !isfinite(d))
                return config_fail(ret_msg, -EINVAL, "%s=%s: not a number", key, value);
        if (d < min || d > max)
                return config_fail(ret_msg, -ERANGE, "%s=%s: value out of range %g..%g",
                            key, value, min, max);
        *ret = d;
        return 0;
}

/* An integer in [min, max]. */
static int parse_int_range(const char *key, const char *value, int min, int max,
                           int *ret, char **ret_msg) {
        char *end;
        long l;

        errno = 0;
        l = strtol(value, &end, 10);
        if (end == value || *end != '\0' || errno == ERANGE)
                return config_fail(ret_msg, -EINVAL, "%s=%s: not an integer", key, value);
        if (l < min || l > max)
                return config_fail(ret_msg, -ERANGE, "%s=%s: value out of range %d..%d",
                            key, value, min, max);
        *ret = (int) l;
        return 0;
}

/* The named sets of values Profile= loads. The facts behind the Android
 * ones, with their sources, are in docs/adpf-facts.md. */
typedef struct HintProfile {
        const char *name;
        HintConfig values;
} HintProfile;

/* What every profile shares unless it says otherwise: the heuristic boost
 * off, with Pixel's thresholds ready for HeuristicBoost=yes. */
#define HEURISTIC_PIXEL                                                 \
        .jank_factor = 1.2, .jank_window = 300, .moderate_jank = 2,    \
        .severe_jank = 8, .recover_ratio = 4.0, .low_frame_rate = 25

static const HintProfile profiles[] = {
        /* ADPF's first gains (Android 12/13 Pixel and libperfmgr's own
         * test profile), with boostd's two departures: no wind-up, the
         * integral over time; the heuristic boost off */
        { "boostd", {
                .p_over = 5.0, .p_under = 3.0, .i_gain = 0.001, .i_high = 512, .i_low = -120,
                .d_over = 500.0, .d_under = 0.0, .low = 0, .high = 384, .initial = 100,
                .stale_targets = 10, .load_up = 384, .efficient_high = 100,
                HEURISTIC_PIXEL, .severe_p_under = 1.5,
                .moderate_low = 100, .severe_low = 200, .moderate_high = 384, .severe_high = 600,
        } },
        /* the same gains as ADPF ran them: each duration integrated, wound
         * up at the bounds */
        { "adpf-2022", {
                .p_over = 5.0, .p_under = 3.0, .i_gain = 0.001, .i_high = 512, .i_low = -120,
                .d_over = 500.0, .d_under = 0.0, .low = 0, .high = 384, .initial = 100,
                .stale_targets = 10, .load_up = 384, .efficient_high = 100,
                HEURISTIC_PIXEL, .severe_p_under = 1.5,
                .moderate_low = 100, .severe_low = 200, .moderate_high = 384, .severe_high = 600,
                .integral_per_duration = true, .windup = true,
        } },
        /* a Pixel 9 at 120 Hz (REFRESH_120FPS, December 2024): no integral,
         * the heuristic boost on */
        { "pixel-2024", {
                .p_over = 2.0, .p_under = 0.6, .i_gain = 0.0, .i_high = 512, .i_low = -30,
                .d_over = 500.0, .d_under = 0.0, .low = 2, .high = 480, .initial = 231,
                .stale_targets = 15, .load_up = 480, .efficient_high = 231,
                HEURISTIC_PIXEL, .heuristic = true, .severe_p_under = 0.3,
                .moderate_low = 230, .severe_low = 410, .moderate_high = 480, .severe_high = 722,
        } },
};

int hint_config_profile(HintConfig *c, const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(profiles); i++)
                if (streq(profiles[i].name, name)) {
                        HintConfig n = profiles[i].values;

                        n.actuator = c->actuator;
                        n.bounds_file = c->bounds_file;
                        n.bounds_line = c->bounds_line;
                        n.actuator_file = c->actuator_file;
                        n.actuator_line = c->actuator_line;
                        *c = n;
                        return 0;
                }
        return -EINVAL;
}

int hint_config_init(HintConfig *c) {
        *c = (HintConfig) {};
        return hint_config_profile(c, "boostd");
}

void hint_config_done(HintConfig *c) {
        free(c->bounds_file);
        free(c->actuator_file);
        *c = (HintConfig) {};
}

/* Keys that are bounds: where the last one was set, for
 * hint_config_verify()'s error. */
static int set_bound(HintConfig *n, const char *file, unsigned line, char **ret_msg) {
        char *f = strdup(file);

        if (!f)
                return config_fail(ret_msg, -ENOMEM, "out of memory");
        /* the old string is c's until the copy is taken */
        n->bounds_file = f;
        n->bounds_line = line;
        return 0;
}

typedef struct BoundKey {
        const char *key;
        size_t offset;
        unsigned min, max;
} BoundKey;

static const BoundKey bound_keys[] = {
        { "Low", offsetof(HintConfig, low), 0, HINT_OUTPUT_MAX },
        { "High", offsetof(HintConfig, high), 0, HINT_OUTPUT_MAX },
        { "Initial", offsetof(HintConfig, initial), 0, HINT_OUTPUT_MAX },
        { "LoadUp", offsetof(HintConfig, load_up), 0, HINT_OUTPUT_MAX },
        { "PowerEfficientHigh", offsetof(HintConfig, efficient_high), 0, HINT_OUTPUT_MAX },
        { "ModerateJankLow", offsetof(HintConfig, moderate_low), 0, HINT_OUTPUT_MAX },
        { "SevereJankLow", offsetof(HintConfig, severe_low), 0, HINT_OUTPUT_MAX },
        { "ModerateJankHigh", offsetof(HintConfig, moderate_high), 0, HINT_OUTPUT_MAX },
        { "SevereJankHigh", offsetof(HintConfig, severe_high), 0, HINT_OUTPUT_MAX },
        { "JankWindow", offsetof(HintConfig, jank_window), 1, HINT_JANK_WINDOW_MAX },
        { "ModerateJank", offsetof(HintConfig, moderate_jank), 1, HINT_JANK_WINDOW_MAX },
        { "SevereJank", offsetof(HintConfig, severe_jank), 1, HINT_JANK_WINDOW_MAX },
        { "LowFrameRate", offsetof(HintConfig, low_frame_rate), 0, 1000 },
};

int hint_config_parse_key(HintConfig *c, const char *key, const char *value,
                              const char *file, unsigned line, char **ret_msg) {
        HintConfig n = *c;
        char *f;
        int r;

        /* Parsed into a copy, so that a bad value changes nothing; the
         * copy shares c's strings until one is replaced. */
        *ret_msg = NULL;
        for (size_t i = 0; i < ELEMENTSOF(bound_keys); i++)
                if (streq(key, bound_keys[i].key)) {
                        r = config_parse_range(key, value, bound_keys[i].min, bound_keys[i].max,
                                               (unsigned *) ((char *) &n + bound_keys[i].offset),
                                               ret_msg);
                        if (r >= 0)
                                r = set_bound(&n, file, line, ret_msg);
                        goto done;
                }
        if (streq(key, "Profile")) {
                if (hint_config_profile(&n, value) < 0)
                        return config_fail(ret_msg, -EINVAL,
                                           "Profile=%s: expected boostd, adpf-2022 or pixel-2024",
                                           value);
                r = set_bound(&n, file, line, ret_msg);
        } else if (streq(key, "ProportionalOver"))
                r = parse_gain(key, value, 0, 1000, &n.p_over, ret_msg);
        else if (streq(key, "ProportionalUnder"))
                r = parse_gain(key, value, 0, 1000, &n.p_under, ret_msg);
        else if (streq(key, "Integral"))
                r = parse_gain(key, value, 0, 1, &n.i_gain, ret_msg);
        else if (streq(key, "IntegralHigh"))
                r = parse_int_range(key, value, 0, (int) HINT_OUTPUT_MAX, &n.i_high, ret_msg);
        else if (streq(key, "IntegralLow"))
                r = parse_int_range(key, value, -(int) HINT_OUTPUT_MAX, 0, &n.i_low, ret_msg);
        else if (streq(key, "DerivativeOver"))
                r = parse_gain(key, value, 0, 100000, &n.d_over, ret_msg);
        else if (streq(key, "DerivativeUnder"))
                r = parse_gain(key, value, 0, 100000, &n.d_under, ret_msg);
        else if (streq(key, "StaleTargets"))
                r = config_parse_range(key, value, 1, HINT_STALE_TARGETS_MAX, &n.stale_targets,
                                   ret_msg);
        else if (streq(key, "HeuristicBoost")) {
                r = parse_bool(value);
                if (r < 0)
                        return config_fail(ret_msg, -EINVAL, "HeuristicBoost=%s: expected yes or no",
                                           value);
                n.heuristic = r;
        } else if (streq(key, "JankFactor"))
                r = parse_gain(key, value, 1, 100, &n.jank_factor, ret_msg);
        else if (streq(key, "SevereJankProportionalUnder"))
                r = parse_gain(key, value, 0, 1000, &n.severe_p_under, ret_msg);
        else if (streq(key, "RecoverMaxMeanRatio"))
                r = parse_gain(key, value, 1, 1000, &n.recover_ratio, ret_msg);
        else if (streq(key, "Actuator")) {
                if (streq(value, "auto"))
                        n.actuator = HINT_ACTUATOR_AUTO;
                else if (streq(value, "uclamp"))
                        n.actuator = HINT_ACTUATOR_UCLAMP;
                else if (streq(value, "schedtune"))
                        n.actuator = HINT_ACTUATOR_SCHEDTUNE;
                else
                        return config_fail(ret_msg, -EINVAL,
                                           "Actuator=%s: expected auto, uclamp or schedtune", value);
                f = strdup(file);
                if (!f)
                        return config_fail(ret_msg, -ENOMEM, "out of memory");
                n.actuator_file = f;
                n.actuator_line = line;
                r = 0;
        } else
                return config_fail(ret_msg, -EINVAL, "unknown key '%s' in section [Sessions]", key);
done:
        if (r < 0)
                return r;
        if (n.actuator_file != c->actuator_file)
                free(c->actuator_file);
        if (n.bounds_file != c->bounds_file)
                free(c->bounds_file);
        *c = n;
        return 0;
}

int hint_config_verify(const HintConfig *c, char **ret_msg) {
        *ret_msg = NULL;
        if (c->low > c->initial || c->initial > c->high)
                return config_fail(ret_msg, -EINVAL,
                            "[Sessions] needs Low <= Initial <= High, got %u, %u, %u",
                            c->low, c->initial, c->high);
        if (c->efficient_high < c->low || c->efficient_high > c->high)
                return config_fail(ret_msg, -EINVAL,
                            "[Sessions] needs Low <= PowerEfficientHigh <= High, got %u, %u, %u",
                            c->low, c->efficient_high, c->high);
        if (c->load_up < c->low)
                return config_fail(ret_msg, -EINVAL, "[Sessions] needs Low <= LoadUp, got %u, %u",
                                   c->low, c->load_up);
        if (c->moderate_low > c->severe_low || c->moderate_high > c->severe_high ||
            c->severe_low > c->severe_high)
                return config_fail(ret_msg, -EINVAL,
                            "[Sessions] needs ModerateJankLow <= SevereJankLow <= SevereJankHigh and ModerateJankHigh <= SevereJankHigh, got %u, %u, %u, %u",
                            c->moderate_low, c->severe_low, c->severe_high, c->moderate_high);
        if (c->moderate_jank >= c->severe_jank || c->severe_jank > c->jank_window)
                return config_fail(ret_msg, -EINVAL,
                            "[Sessions] needs ModerateJank < SevereJank <= JankWindow, got %u, %u, %u",
                            c->moderate_jank, c->severe_jank, c->jank_window);
        return 0;
}
