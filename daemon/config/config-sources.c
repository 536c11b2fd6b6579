/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sections of the event sources: [Input], [Power] and [Launch]. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boost.h"
#include "config-sources.h"
#include "macro.h"
#include "util.h"

int config_fail(char **ret_msg, int r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(ret_msg, fmt, ap) < 0)
                *ret_msg = NULL;
        va_end(ap);
        return r;
}

int config_parse_range(const char *key, const char *value, unsigned min, unsigned max,
                       unsigned *ret, char **ret_msg) {
        unsigned u;
        int r;

        r = parse_uint(value, max, &u);
        if (r == -ERANGE || (r == 0 && u < min))
                return config_fail(ret_msg, -ERANGE, "%s=%s: value out of range %u..%u",
                            key, value, min, max);
        if (r < 0)
                return config_fail(ret_msg, -EINVAL, "%s=%s: not a number", key, value);
        *ret = u;
        return 0;
}

int input_config_init(InputConfig *c) {
        *c = (InputConfig) {
                .group = strdup("interactive"),
                .boost = INPUT_BOOST_DEFAULT,
                .duration_ms = INPUT_DURATION_MS_DEFAULT,
                .kinds = INPUT_ALL,
        };
        return c->group ? 0 : -ENOMEM;
}

void input_config_done(InputConfig *c) {
        free(c->group);
        free(c->group_file);
        *c = (InputConfig) {};
}

void power_config_init(PowerConfig *c) {
        *c = (PowerConfig) {
                .low_percent = LOW_BATTERY_PERCENT_DEFAULT,
                .hysteresis = LOW_BATTERY_HYSTERESIS_DEFAULT,
        };
}

int input_kinds_from_string(const char *s, unsigned *ret) {
        static const struct {
                const char *name;
                unsigned kind;
        } table[] = {
                { "keyboard", INPUT_KEYBOARD },
                { "pointer", INPUT_POINTER },
                { "touchscreen", INPUT_TOUCHSCREEN },
        };
        unsigned mask = 0;

        while (*s) {
                size_t l = strcspn(s, ", \t");
                bool found = false;

                for (size_t i = 0; l > 0 && i < ELEMENTSOF(table); i++)
                        if (strlen(table[i].name) == l && strncmp(s, table[i].name, l) == 0) {
                                mask |= table[i].kind;
                                found = true;
                        }
                if (l > 0 && !found)
                        return -EINVAL;
                s += l;
                s += strspn(s, ", \t");
        }
        if (mask == 0)
                return -EINVAL;
        *ret = mask;
        return 0;
}

int input_config_parse_key(InputConfig *c, const char *key, const char *value,
                           const char *file, unsigned line, char **ret_msg) {
        char *g, *f;

        *ret_msg = NULL;
        if (streq(key, "Group")) {
                if (!class_name_is_valid(value))
                        return config_fail(ret_msg, -EINVAL, "Group=%s: invalid class name", value);
                g = strdup(value);
                f = strdup(file);
                if (!g || !f) {
                        free(g);
                        free(f);
                        return config_fail(ret_msg, -ENOMEM, "out of memory");
                }
                free(c->group);
                free(c->group_file);
                c->group = g;
                c->group_file = f;
                c->group_line = line;
                return 0;
        }
        if (streq(key, "Boost"))
                return config_parse_range(key, value, 0, BOOST_MAX, &c->boost, ret_msg);
        if (streq(key, "DurationMs"))
                return config_parse_range(key, value, 1, INPUT_DURATION_MS_MAX, &c->duration_ms, ret_msg);
        if (streq(key, "Devices")) {
                if (input_kinds_from_string(value, &c->kinds) < 0)
                        return config_fail(ret_msg, -EINVAL,
                                    "Devices=%s: expected a list of keyboard, pointer and touchscreen",
                                    value);
                return 0;
        }
        return config_fail(ret_msg, -EINVAL, "unknown key '%s' in section [Input]", key);
}

int power_config_parse_key(PowerConfig *c, const char *key, const char *value, char **ret_msg) {
        *ret_msg = NULL;
        if (streq(key, "LowBatteryPercent"))
                return config_parse_range(key, value, 0, LOW_BATTERY_PERCENT_MAX, &c->low_percent, ret_msg);
        if (streq(key, "LowBatteryHysteresis"))
                return config_parse_range(key, value, 0, LOW_BATTERY_HYSTERESIS_MAX, &c->hysteresis,
                                   ret_msg);
        return config_fail(ret_msg, -EINVAL, "unknown key '%s' in section [Power]", key);
}

void launch_config_init(LaunchConfig *c) {
        *c = (LaunchConfig) {
                .boost = 0,
                .duration_ms = LAUNCH_DURATION_MS_DEFAULT,
        };
}

int launch_config_parse_key(LaunchConfig *c, const char *key, const char *value, char **ret_msg) {
        *ret_msg = NULL;
        if (streq(key, "Boost"))
                return config_parse_range(key, value, 0, BOOST_MAX, &c->boost, ret_msg);
        if (streq(key, "DurationMs"))
                return config_parse_range(key, value, 1, LAUNCH_DURATION_MS_MAX, &c->duration_ms, ret_msg);
        return config_fail(ret_msg, -EINVAL, "unknown key '%s' in section [Launch]", key);
}
