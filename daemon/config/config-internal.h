/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What config.c (the configuration, its defaults, loading and checks)
 * and config-parse.c (the parser of one file) share. Only for them:
 * config.h is the interface. */
#pragma once

#include <stdbool.h>

/* config.h's typedefs again rather than config.h: config.c includes this
 * file, and check-layers.py would see config.h here as a cycle. */
typedef struct Config Config;
typedef struct Rule Rule;

/* config.c: frees what a rule holds, not the rule itself. */
void rule_done(Rule *r);

/* config-parse.c: parses one file into c; a missing file is no error
 * when optional. On error returns negative errno and a message
 * "FILE:LINE: what is wrong" in *ret_error. */
int config_parse_file(Config *c, const char *path, bool optional, char **ret_error);
