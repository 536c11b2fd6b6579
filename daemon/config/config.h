/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration: /etc/boostd.conf and /etc/boostd.conf.d/ (*.conf). */
#pragma once

#include <stdbool.h>
#include <errno.h>
#include <sys/types.h>

#include "boost.h"
#include "config-hints.h"
#include "config-sources.h"
#include "macro.h"

#define HOLDS_PER_CLIENT_DEFAULT 16U
#define HOLDS_PER_CLIENT_MAX 1024U

typedef enum PowerState {
        POWER_AC,
        POWER_BATTERY,
        POWER_LOW,
        _POWER_STATE_MAX,
        _POWER_STATE_INVALID = -EINVAL,
} PowerState;

const char *power_state_to_string(PowerState s);
PowerState power_state_from_string(const char *s);

typedef struct ClassConfig {
        char name[CLASS_NAME_MAX];
        unsigned boost[_POWER_STATE_MAX];
} ClassConfig;

typedef struct Rule {
        char *name;
        char *unit;             /* globs, NULL = any */
        char *slice;
        char *comm;
        char *exe;
        char *user;             /* user name or numeric UID, as written */
        uid_t uid;              /* ... resolved once, at load */
        char *class_name;
        int class_index;        /* resolved after loading */
        bool pin;               /* Pin=: the class holds even in the foreground */
        bool user_manager;      /* Manager=user: Unit= and Slice= name units
                                 * of a user's manager, not the system's */
        char *file;             /* where Class= was set, for messages */
        unsigned line;
        unsigned section_line;
} Rule;

typedef struct Config {
        char *backend;          /* auto, schedtune, uclamp, none */
        char *mount_point;      /* below the root prefix */
        char *uclamp_group;     /* cgroup v2 group boostd owns, or NULL */
        int log_level;          /* syslog priority, -1 = unset */
        char *default_class;
        char *default_class_file;       /* where DefaultClass= was set, for messages */
        unsigned default_class_line;
        int default_class_index;
        unsigned max_holds_per_client;
        bool restore_found;     /* RestoreOnStop=found */

        ClassConfig classes[GROUPS_MAX];   /* [0] is root */
        size_t n_classes;

        Rule *rules;
        size_t n_rules;

        InputConfig input;      /* [Input] */
        PowerConfig power;      /* [Power] */
        HintConfig hints;       /* [Sessions] */
        LaunchConfig launch;    /* [Launch] */
} Config;

Config *config_new(void);
Config *config_free(Config *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Config *, config_free);

/* Loads the main file (a missing file leaves the built-in defaults when
 * main_optional is true) and then every *.conf in dropin_dir in lexical
 * order (dropin_dir may be NULL). On error returns negative errno and a
 * message "FILE:LINE: what is wrong" in *ret_error. */
int config_load(const char *main_file, bool main_optional, const char *dropin_dir,
                Config **ret, char **ret_error);

int config_find_class(const Config *c, const char *name);
