/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [Sessions] section: the gains, bounds and clock of the hint-session
 * controller (session-pid.c). The defaults are ADPF's reference values, in
 * its units: errors in 100 us, the output in 1/1024 of a CPU's capacity. */
#pragma once

#define HINT_OUTPUT_MAX 1024U
/* The schedtune backend's pool groups, session.20 to session.100: of the
 * kernel's GROUPS_MAX groups, what Actuator=schedtune keeps for them. */
#define HINT_POOL_GROUPS 5U
#define HINT_STALE_TARGETS_MAX 1000U

/* How an output reaches a thread: uclamp.min where the kernel has it,
 * else a pool group of the schedtune backend (auto); or only one of
 * them. */
typedef enum HintActuator {
        HINT_ACTUATOR_AUTO,
        HINT_ACTUATOR_UCLAMP,
        HINT_ACTUATOR_SCHEDTUNE,
} HintActuator;

typedef struct HintConfig {
        double p_over;          /* proportional gain, frame over its target */
        double p_under;         /* ... under it */
        double i_gain;          /* integral gain */
        int i_high;             /* the integral term's clamp, in output units */
        int i_low;
        double d_over;          /* derivative gain, error growing */
        double d_under;         /* ... shrinking */
        unsigned low;           /* output bounds, and where a session starts */
        unsigned high;
        unsigned initial;
        unsigned stale_targets; /* no report for this many targets: stale */
        HintActuator actuator;
        char *bounds_file;      /* where Low=, High= or Initial= was last set */
        unsigned bounds_line;
        char *actuator_file;    /* where Actuator= was last set */
        unsigned actuator_line;
} HintConfig;

int hint_config_init(HintConfig *c);
void hint_config_done(HintConfig *c);

/* Parse one key; on error return negative errno and the message (without
 * file and line) in *ret_msg. */
int hint_config_parse_key(HintConfig *c, const char *key, const char *value,
                              const char *file, unsigned line, char **ret_msg);

/* After the last file: Low <= Initial <= High.
 * -EINVAL with the message in *ret_msg. */
int hint_config_verify(const HintConfig *c, char **ret_msg);
