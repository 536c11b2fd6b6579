/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seats: which user has the active session on which seat, as logind
 * records it in /run/systemd/seats/SEAT (ACTIVE_UID=). The foreground is
 * kept per seat (placer.h); does not log. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* logind's seat names: "seat" followed by [A-Za-z0-9_-], at most 255
 * bytes; other names are not taken for seats. */
#define SEAT_NAME_MAX 256

/* logind's seat directory below root ("/" or a test's prefix);
 * allocated, NULL without memory. */
char *seats_dir(const char *root);

/* Whether s is a seat name boostd keeps ("" is the slot of processes of
 * no seat's user, see placer.h). */
bool seat_name_is_valid(const char *s);

/* The seat on which uid has the active session, from the files in dir
 * (<root>/run/systemd/seats): its name goes to seat. -ENOENT if uid has
 * none (or there is no logind); the first seat in name order if uid is
 * active on several. */
int seat_of_uid(const char *dir, uid_t uid, char seat[static SEAT_NAME_MAX]);

/* The user with the active session on seat; -ENOENT if none (or no such
 * seat). */
int seat_active_uid(const char *dir, const char *seat, uid_t *ret);
