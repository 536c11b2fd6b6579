/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GameMode's games: com.feralinteractive.GameMode's GameRegistered and
 * GameUnregistered signals on the system bus. */
#pragma once

#include "events.h"
#include "macro.h"

typedef struct GameModeWatch GameModeWatch;

/* Follows the owner of com.feralinteractive.GameMode on ctx->bus and
 * reports its games to ctx's sink: its signals (only from that owner),
 * and its ListGames() when an owner appears. */
int gamemode_watch_new(const SourceContext *ctx, GameModeWatch **ret);
GameModeWatch *gamemode_watch_free(GameModeWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(GameModeWatch *, gamemode_watch_free);
