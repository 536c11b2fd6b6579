/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration: /etc/boostd.conf and /etc/boostd.conf.d/ (*.conf).
 * Here its defaults, the files loaded in order and the checks after the
 * last; the parser of one file is config-parse.c. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "config-internal.h"
#include "config.h"
#include "util.h"

static const char *const power_state_names[_POWER_STATE_MAX] = {
        [POWER_AC] = "ac",
        [POWER_BATTERY] = "battery",
        [POWER_LOW] = "low",
};

const char *power_state_to_string(PowerState s) {
        if (s < 0 || s >= _POWER_STATE_MAX)
                return NULL;
        return power_state_names[s];
}

PowerState power_state_from_string(const char *s) {
        for (int i = 0; i < _POWER_STATE_MAX; i++)
                if (streq(s, power_state_names[i]))
                        return (PowerState) i;
        return _POWER_STATE_INVALID;
}

/* Built-in classes; the shipped boostd.conf spells out the same values. */
static const ClassConfig builtin_classes[] = {
        { "root",        { 0, 0, 0 } },
        { "background",  { 0, 0, 0 } },
        { "interactive", { 10, 5, 0 } },
        { "performance", { 50, 30, 10 } },
};

Config *config_new(void) {
        Config *c = calloc(1, sizeof(Config));

        if (!c)
                return NULL;
        c->backend = strdup("auto");
        c->mount_point = strdup("/dev/stune");
        c->default_class = strdup("root");
        if (!c->backend || !c->mount_point || !c->default_class)
                return config_free(c);
        if (input_config_init(&c->input) < 0)
                return config_free(c);
        power_config_init(&c->power);
        launch_config_init(&c->launch);
        if (hint_config_init(&c->hints) < 0)
                return config_free(c);
        c->log_level = -1;
        c->max_holds_per_client = HOLDS_PER_CLIENT_DEFAULT;
        memcpy(c->classes, builtin_classes, sizeof(builtin_classes));
        c->n_classes = ELEMENTSOF(builtin_classes);
        return c;
}

void rule_done(Rule *r) {
        free(r->name);
        free(r->unit);
        free(r->slice);
        free(r->comm);
        free(r->exe);
        free(r->user);
        free(r->class_name);
        free(r->file);
}

Config *config_free(Config *c) {
        if (!c)
                return NULL;
        free(c->backend);
        free(c->mount_point);
        free(c->uclamp_group);
        free(c->default_class);
        free(c->default_class_file);
        for (size_t i = 0; i < c->n_rules; i++)
                rule_done(&c->rules[i]);
        free(c->rules);
        input_config_done(&c->input);
        hint_config_done(&c->hints);
        free(c);
        return NULL;
}

int config_find_class(const Config *c, const char *name) {
        for (size_t i = 0; i < c->n_classes; i++)
                if (streq(c->classes[i].name, name))
                        return (int) i;
        return -ENOENT;
}

static int config_verify(Config *c, char **ret_error) {
        _cleanup_(freep) char *msg = NULL;
        int r;

        for (size_t i = 0; i < c->n_rules; i++) {
                Rule *rule = &c->rules[i];

                if (!rule->unit && !rule->slice && !rule->comm && !rule->exe && !rule->user) {
                        if (asprintf(ret_error,
                                     "%s:%u: rule '%s' has no match key (Unit=, Slice=, Comm=, Exe= or User=)",
                                     rule->file, rule->section_line, rule->name) < 0)
                                *ret_error = NULL;
                        return -EINVAL;
                }
                if (rule->user_manager && !rule->unit && !rule->slice) {
                        if (asprintf(ret_error, "%s:%u: rule '%s' has Manager=user but no Unit= or Slice=",
                                     rule->file, rule->section_line, rule->name) < 0)
                                *ret_error = NULL;
                        return -EINVAL;
                }
                if (!rule->class_name) {
                        if (asprintf(ret_error, "%s:%u: rule '%s' has no Class=",
                                     rule->file, rule->section_line, rule->name) < 0)
                                *ret_error = NULL;
                        return -EINVAL;
                }
                r = config_find_class(c, rule->class_name);
                if (r < 0) {
                        if (asprintf(ret_error, "%s:%u: rule '%s' names unknown class '%s'",
                                     rule->file, rule->line, rule->name, rule->class_name) < 0)
                                *ret_error = NULL;
                        return -ENOENT;
                }
                rule->class_index = r;
        }

        if (config_find_class(c, c->input.group) < 0) {
                if (c->input.group_file)
                        r = asprintf(ret_error, "%s:%u: Group=%s: unknown class", c->input.group_file,
                                     c->input.group_line, c->input.group);
                else
                        r = asprintf(ret_error, "[Input] Group=%s: unknown class", c->input.group);
                if (r < 0)
                        *ret_error = NULL;
                return -ENOENT;
        }

        r = config_find_class(c, c->default_class);
        if (r < 0) {
                /* the built-in default, root, always exists */
                if (asprintf(ret_error, "%s:%u: DefaultClass=%s: unknown class", c->default_class_file,
                             c->default_class_line, c->default_class) < 0)
                        *ret_error = NULL;
                return -ENOENT;
        }
        c->default_class_index = r;

        /* Actuator=schedtune: the pool groups must find room beside the
         * classes' groups, whatever the drop-ins add. */
        if (c->hints.actuator == HINT_ACTUATOR_SCHEDTUNE && c->n_classes + HINT_POOL_GROUPS > GROUPS_MAX) {
                if (asprintf(ret_error,
                             "%s:%u: Actuator=schedtune keeps %u of the kernel's %d groups for the pool "
                             "groups: at most %u classes besides root, and there are %zu",
                             c->hints.actuator_file ?: c->default_class_file, c->hints.actuator_line,
                             HINT_POOL_GROUPS, GROUPS_MAX, GROUPS_MAX - 1 - HINT_POOL_GROUPS,
                             c->n_classes - 1) < 0)
                        *ret_error = NULL;
                return -ENOSPC;
        }

        if (hint_config_verify(&c->hints, &msg) < 0) {
                if (c->hints.bounds_file)
                        r = asprintf(ret_error, "%s:%u: %s", c->hints.bounds_file,
                                     c->hints.bounds_line, msg ?: "out of memory");
                else
                        r = asprintf(ret_error, "%s", msg ?: "out of memory");
                if (r < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        return 0;
}

static int dropin_filter(const struct dirent *de) {
        size_t l = strlen(de->d_name);

        return de->d_name[0] != '.' && l > 5 && streq(de->d_name + l - 5, ".conf");
}

int config_load(const char *main_file, bool main_optional, const char *dropin_dir,
                Config **ret, char **ret_error) {
        _cleanup_(config_freep) Config *c = NULL;
        struct dirent **list = NULL;
        int n, r;

        *ret_error = NULL;
        c = config_new();
        if (!c)
                return -ENOMEM;

        if (main_file) {
                r = config_parse_file(c, main_file, main_optional, ret_error);
                if (r < 0)
                        return r;
        }

        if (dropin_dir) {
                n = scandir(dropin_dir, &list, dropin_filter, alphasort);
                if (n < 0 && errno != ENOENT) {
                        r = -errno;
                        if (asprintf(ret_error, "%s: cannot read directory: %s", dropin_dir, strerror(-r)) < 0)
                                *ret_error = NULL;
                        return r;
                }
                r = 0;
                for (int i = 0; i < n; i++) {
                        _cleanup_(freep) char *p = NULL;

                        if (r == 0) {
                                p = path_join(dropin_dir, list[i]->d_name);
                                r = p ? config_parse_file(c, p, false, ret_error) : -ENOMEM;
                        }
                        free(list[i]);
                }
                free(list);
                if (r < 0)
                        return r;
        }

        r = config_verify(c, ret_error);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(c);
        return 0;
}
