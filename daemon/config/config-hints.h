/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [Sessions] section: the gains, bounds and clock of the hint-session
 * controller (hint-controller.c), in ADPF's units: errors in 100 us, the
 * output in 1/1024 of a CPU's capacity. Profile= loads a named set of
 * them: boostd's defaults ("boostd", ADPF's first gains), Android's
 * first ("adpf-2022", the same gains, every departure off) or a Pixel
 * phone's of 2024 at 120 Hz ("pixel-2024"). */
#pragma once

#include <stdbool.h>

#define HINT_OUTPUT_MAX 1024U
/* The schedtune backend's pool groups, session.20 to session.100: of the
 * kernel's GROUPS_MAX groups, what Actuator=schedtune keeps for them. */
#define HINT_POOL_GROUPS 5U
#define HINT_STALE_TARGETS_MAX 1000U
#define HINT_JANK_WINDOW_MAX 600U

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
        unsigned load_up;       /* what a load-up, reset or spike hint gives */
        unsigned efficient_high; /* the high bound of a session that
                                  * prefers power efficiency */
        /* The heuristic boost: when jank frames (over jank_factor times
         * the target) reach moderate_jank of the last jank_window, the
         * bounds rise towards severe_low..severe_high and the gain under
         * the target falls towards severe_p_under, fully at severe_jank;
         * it ends when fewer than moderate_jank are left and the longest
         * frame of the window is under recover_ratio times their mean, or
         * when the loop runs below low_frame_rate frames a second. */
        bool heuristic;
        double jank_factor;
        unsigned jank_window;
        unsigned moderate_jank;
        unsigned severe_jank;
        double severe_p_under;
        unsigned moderate_low, severe_low;
        unsigned moderate_high, severe_high;
        double recover_ratio;
        unsigned low_frame_rate; /* 0: no such check */
        /* The integral adds each report's mean error times the time since
         * the previous report (boostd), or each duration's error times the
         * target (ADPF: more frames a report, more integral) */
        bool integral_per_duration;
        /* ADPF integrates an error also while the output sits at the bound
         * it pushes towards (wind-up); boostd does not */
        bool windup;
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

/* The profile's values, the file and line fields left as they are:
 * -EINVAL for an unknown name. */
int hint_config_profile(HintConfig *c, const char *name);

/* After the last file: Low <= Initial <= High, Low <= PowerEfficientHigh
 * <= High, Low <= LoadUp, the heuristic's bounds in order and its jank
 * counts within its window. -EINVAL with the message in *ret_msg. */
int hint_config_verify(const HintConfig *c, char **ret_msg);
