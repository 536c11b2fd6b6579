/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GameMode's games: com.feralinteractive.GameMode's GameRegistered and
 * GameUnregistered signals on the system bus. */
#pragma once

#include "macro.h"

typedef struct Manager Manager;
typedef struct GameModeWatch GameModeWatch;

/* Follows the owner of com.feralinteractive.GameMode on the manager's bus
 * and takes its signals (only from that owner), and its ListGames() when
 * an owner appears. Call after the bus is connected. */
int gamemode_watch_new(Manager *m, GameModeWatch **ret);
GameModeWatch *gamemode_watch_free(GameModeWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(GameModeWatch *, gamemode_watch_free);
