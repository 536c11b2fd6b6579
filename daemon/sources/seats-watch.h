/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Follows logind's seat files (<root>/run/systemd/seats/): a change of
 * a seat's active session (a user switch, a logout, a seat removed) is
 * reported, so that the foreground of a seat ends with its user's turn.
 * Without that directory (no logind) it watches nothing. */
#pragma once

#include "events.h"

typedef struct SeatsWatch SeatsWatch;

int seats_watch_new(const SourceContext *ctx, SeatsWatch **ret);
SeatsWatch *seats_watch_free(SeatsWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(SeatsWatch *, seats_watch_free);
