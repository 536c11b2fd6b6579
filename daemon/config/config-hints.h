/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [Sessions] section: the gains, bounds and clock of the work-session
 * controller (session-pid.c). The defaults are ADPF's reference values, in
 * its units: errors in 100 us, the output in 1/1024 of a CPU's capacity. */
#pragma once

#define SESSIONS_OUTPUT_MAX 1024U
#define SESSIONS_STALE_TARGETS_MAX 1000U

/* How an output reaches a thread: uclamp.min where the kernel has it,
 * else a pool group of the schedtune backend (auto); or only one of
 * them. */
typedef enum SessionsActuator {
        SESSIONS_ACTUATOR_AUTO,
        SESSIONS_ACTUATOR_UCLAMP,
        SESSIONS_ACTUATOR_SCHEDTUNE,
} SessionsActuator;

typedef struct SessionsConfig {
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
        SessionsActuator actuator;
        char *bounds_file;      /* where Low=, High= or Initial= was last set */
        unsigned bounds_line;
} SessionsConfig;

int sessions_config_init(SessionsConfig *c);
void sessions_config_done(SessionsConfig *c);

/* Parse one key; on error return negative errno and the message (without
 * file and line) in *ret_msg. */
int sessions_config_parse_key(SessionsConfig *c, const char *key, const char *value,
                              const char *file, unsigned line, char **ret_msg);

/* After the last file: Low <= Initial <= High.
 * -EINVAL with the message in *ret_msg. */
int sessions_config_verify(const SessionsConfig *c, char **ret_msg);
