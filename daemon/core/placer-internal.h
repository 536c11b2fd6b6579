/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the placer's files (placer.c, placer-focus.c, placer-exit.c) call
 * of each other; no other module includes it. Each function's comment is
 * at its definition. It names Placer and Foreground without including
 * placer.h: placer.c includes this header, and check-layers.py would see
 * placer -> placer-internal -> placer as a cycle. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "process.h"
#include "seats.h"

typedef struct Placer Placer;
typedef struct Foreground Foreground;

/* placer.c: placing */
int placer_pin_process(Placer *p, const ProcessId *want, ProcessId *ret_id, int *ret_pidfd);
char *placer_cgroup_of(Placer *p, pid_t pid);
int placer_place(Placer *p, pid_t pid, const char *cgroup, bool by_hand_wins);
void placer_decision_changed(Placer *p, pid_t pid);

/* placer-focus.c: the foregrounds */
bool placer_is_foreground_pid(Placer *p, pid_t pid);
bool placer_is_foreground(Placer *p, pid_t pid, const char *cgroup);
bool placer_has_foreground_pid(Placer *p);
Foreground *placer_foreground_get(Placer *p, const char *seat);
void placer_seat_of(Placer *p, pid_t pid, char seat[static SEAT_NAME_MAX], uid_t *ret_uid);
void placer_unit_leaves_others(Placer *p, const char *unit, const Foreground *keep);
void placer_save_foregrounds(Placer *p);

/* placer-focus.c: the games */
bool placer_games_remove(Placer *p, pid_t pid, const char *source);
