/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [Sessions] section: the hint-session controller's gains and bounds. */
#include <errno.h>
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

int hint_config_init(HintConfig *c) {
        *c = (HintConfig) {
                .p_over = 5.0,
                .p_under = 3.0,
                .i_gain = 0.001,
                .i_high = 512,
                .i_low = -120,
                .d_over = 500.0,
                .d_under = 0.0,
                .low = 0,
                .high = 384,
                .initial = 100,
                .stale_targets = 10,
        };
        return 0;
}

void hint_config_done(HintConfig *c) {
        free(c->bounds_file);
        free(c->actuator_file);
        *c = (HintConfig) {};
}

static int set_bound(HintConfig *c, const char *key, const char *value,
                     const char *file, unsigned line, unsigned *where, char **ret_msg) {
        char *f;
        int r;

        r = config_parse_range(key, value, 0, HINT_OUTPUT_MAX, where, ret_msg);
        if (r < 0)
                return r;
        f = strdup(file);
        if (!f)
                return config_fail(ret_msg, -ENOMEM, "out of memory");
        free(c->bounds_file);
        c->bounds_file = f;
        c->bounds_line = line;
        return 0;
}

int hint_config_parse_key(HintConfig *c, const char *key, const char *value,
                              const char *file, unsigned line, char **ret_msg) {
        HintConfig n = *c;
        char *f;
        int r;

        /* Parsed into a copy, so that a bad value changes nothing. */
        *ret_msg = NULL;
        if (streq(key, "ProportionalOver"))
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
                free(n.actuator_file);
                n.actuator_file = f;
                n.actuator_line = line;
                r = 0;
        } else if (streq(key, "Low"))
                return set_bound(c, key, value, file, line, &c->low, ret_msg);
        else if (streq(key, "High"))
                return set_bound(c, key, value, file, line, &c->high, ret_msg);
        else if (streq(key, "Initial"))
                return set_bound(c, key, value, file, line, &c->initial, ret_msg);
        else
                return config_fail(ret_msg, -EINVAL, "unknown key '%s' in section [Sessions]", key);
        if (r < 0)
                return r;
        *c = n;
        return 0;
}

int hint_config_verify(const HintConfig *c, char **ret_msg) {
        *ret_msg = NULL;
        if (c->low > c->initial || c->initial > c->high)
                return config_fail(ret_msg, -EINVAL,
                            "[Sessions] needs Low <= Initial <= High, got %u, %u, %u",
                            c->low, c->initial, c->high);
        return 0;
}
