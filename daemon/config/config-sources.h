/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sections of the event sources: [Input], [Power] and [Launch]. */
#pragma once

#include <stdbool.h>

#include "macro.h"

#define INPUT_BOOST_DEFAULT 30U
#define INPUT_DURATION_MS_DEFAULT 500U
#define INPUT_DURATION_MS_MAX 60000U
#define LOW_BATTERY_PERCENT_DEFAULT 15U
#define LOW_BATTERY_PERCENT_MAX 50U
#define LOW_BATTERY_HYSTERESIS_DEFAULT 5U
#define LOW_BATTERY_HYSTERESIS_MAX 50U

typedef enum InputKind {
        INPUT_KEYBOARD    = 1U << 0,
        INPUT_POINTER     = 1U << 1,
        INPUT_TOUCHSCREEN = 1U << 2,
        INPUT_ALL         = INPUT_KEYBOARD | INPUT_POINTER | INPUT_TOUCHSCREEN,
} InputKind;

typedef struct InputConfig {
        char *group;            /* the group input activity raises */
        unsigned boost;         /* 0 = input boost off */
        unsigned duration_ms;   /* after the last event */
        unsigned kinds;         /* InputKind mask */
        char *group_file;       /* where Group= was set, for messages */
        unsigned group_line;
} InputConfig;

#define LAUNCH_DURATION_MS_DEFAULT 5000U
#define LAUNCH_DURATION_MS_MAX 60000U
#define LAUNCH_AGE_MS 1000U             /* "just started": younger than this */

/* [Launch]: an app brought to the foreground just after it started gets
 * its group raised for a while. Off (Boost=0) unless configured. */
typedef struct LaunchConfig {
        unsigned boost;
        unsigned duration_ms;
} LaunchConfig;

typedef struct PowerConfig {
        unsigned low_percent;   /* 0 = never low */
        unsigned hysteresis;
} PowerConfig;

int input_config_init(InputConfig *c);
void input_config_done(InputConfig *c);
void power_config_init(PowerConfig *c);
void launch_config_init(LaunchConfig *c);

/* Parse one key; on error return negative errno and the message (without
 * file and line) in *ret_msg. */
int input_config_parse_key(InputConfig *c, const char *key, const char *value,
                           const char *file, unsigned line, char **ret_msg);
int power_config_parse_key(PowerConfig *c, const char *key, const char *value, char **ret_msg);
int launch_config_parse_key(LaunchConfig *c, const char *key, const char *value, char **ret_msg);

/* For the sections' parsers: r with the message in *ret_msg, and an
 * unsigned key in [min, max] (-ERANGE, or -EINVAL for not a number). */
int config_fail(char **ret_msg, int r, const char *fmt, ...) _printf_(3, 4);
int config_parse_range(const char *key, const char *value, unsigned min, unsigned max,
                       unsigned *ret, char **ret_msg);

/* "keyboard,pointer" -> mask; -EINVAL on an unknown kind. */
int input_kinds_from_string(const char *s, unsigned *ret);
