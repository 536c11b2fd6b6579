/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which class a process belongs in, from everything that has a say;
 * pure logic. */
#pragma once

#include <stdbool.h>

#include "config.h"
#include "rules.h"

/* What decided, strongest first. */
typedef enum ClassifyReason {
        CLASSIFY_EXPLICIT,      /* Classify() */
        CLASSIFY_PINNED,        /* the first matching rule has Pin=yes */
        CLASSIFY_GAME,          /* registered with GameMode */
        CLASSIFY_FOREGROUND,    /* the foreground process, or in its unit */
        CLASSIFY_INHERITED,     /* a parent's Classify(), game or foreground */
        CLASSIFY_RULE,          /* the first matching rule */
        CLASSIFY_DEFAULT,       /* DefaultClass= */
        _CLASSIFY_REASON_MAX,
} ClassifyReason;

typedef struct ClassifyFacts {
        const ProcessInfo *info;
        int explicit_class;     /* the class Classify() gave, -1 if none */
        bool game;
        bool foreground;
        bool inherited;         /* a parent's own decision gave it ... */
        size_t inherited_class; /* ... this class */
} ClassifyFacts;

/* The class index for a process:
 *   Classify() > a rule with Pin=yes > GameMode game (performance) >
 *   foreground (interactive, or performance if its rule gives that) >
 *   a parent's decision > the first matching rule > DefaultClass=.
 * Pin= belongs to the rule that matches first: a later rule never
 * pins. */
int classify_process(const Config *c, const ClassifyFacts *f, ClassifyReason *ret_reason);

const char *classify_reason_to_string(ClassifyReason r);

/* The unit directory that counts as "the app" of a process in cgroup (a
 * cgroup path): its innermost .service or .scope, copied into a new
 * string in *ret. NULL when there is none, or when the unit is shared by
 * a whole session or manager (session-*.scope, user@*.service,
 * init.scope), where only the process itself counts. */
int classify_app_unit(const char *cgroup, char **ret);
