/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GameMode's games, from the signals of com.feralinteractive.GameMode:
 * GameRegistered(i pid, o path) and GameUnregistered(i pid, o path) on
 * /com/feralinteractive/GameMode. Anyone may send a signal, so only those
 * of the name's current owner count: the owner is followed with
 * NameOwnerChanged. gamemoded as shipped serves the user's bus; boostd
 * hears a GameMode service on the system bus. */
#include <string.h>

#include "events.h"
#include "gamemode.h"
#include "log.h"

#define GAMEMODE_NAME "com.feralinteractive.GameMode"
#define GAMEMODE_PATH "/com/feralinteractive/GameMode"
#define GAMEMODE_IFACE "com.feralinteractive.GameMode"

struct GameModeWatch {
        SourceContext ctx;
        sd_bus_slot *signals;
        sd_bus_slot *owner_changed;
        sd_bus_slot *get_owner;
        sd_bus_slot *list_games;
        char *owner;            /* unique name of the owner, NULL if none */
};

static int on_list_games(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        GameModeWatch *w = userdata;
        const char *path;
        int32_t pid;
        int r;

        (void) ret_error;
        w->list_games = sd_bus_slot_unref(w->list_games);
        if (sd_bus_message_is_method_error(reply, NULL)) {
                log_debug(w->ctx.log, "GameMode: ListGames() failed: %s",
                          sd_bus_message_get_error(reply)->message);
                return 0;
        }
        r = sd_bus_message_enter_container(reply, 'a', "(io)");
        while (r > 0 && (r = sd_bus_message_read(reply, "(io)", &pid, &path)) > 0)
                (void) w->ctx.sink->game(w->ctx.sink->userdata, pid, true);
        if (r < 0)
                log_debug_errno(w->ctx.log, r, "GameMode: cannot read ListGames(): %m");
        return 0;
}

static void gamemode_set_owner(GameModeWatch *w, const char *owner) {
        char *o = NULL;
        int r;

        if (streq_ptr(owner, w->owner))
                return;
        if (owner && owner[0]) {
                o = strdup(owner);
                if (!o) {
                        log_oom(w->ctx.log);
                        return;
                }
        }
        free(w->owner);
        w->owner = o;
        /* Another instance, or none: what the old one registered ends. */
        w->ctx.sink->games_gone(w->ctx.sink->userdata);
        log_info(w->ctx.log, "GameMode: %s.", o ? "service on the bus" : "service gone");
        if (!o)
                return;
        w->list_games = sd_bus_slot_unref(w->list_games);
        r = sd_bus_call_method_async(w->ctx.bus, &w->list_games, GAMEMODE_NAME, GAMEMODE_PATH,
                                     GAMEMODE_IFACE, "ListGames", on_list_games, w, "");
        if (r < 0)
                log_debug_errno(w->ctx.log, r, "GameMode: cannot call ListGames(): %m");
}

static int on_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        const char *name, *old, *new;

        (void) ret_error;
        if (sd_bus_message_read(msg, "sss", &name, &old, &new) < 0 || !streq(name, GAMEMODE_NAME))
                return 0;
        gamemode_set_owner(userdata, new);
        return 0;
}

static int on_get_owner(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        GameModeWatch *w = userdata;
        const char *owner;

        (void) ret_error;
        w->get_owner = sd_bus_slot_unref(w->get_owner);
        if (sd_bus_message_is_method_error(reply, NULL))
                return 0;       /* NameHasNoOwner */
        if (sd_bus_message_read(reply, "s", &owner) >= 0)
                gamemode_set_owner(w, owner);
        return 0;
}

static int on_game_signal(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        GameModeWatch *w = userdata;
        const char *sender = sd_bus_message_get_sender(msg), *member = sd_bus_message_get_member(msg);
        const char *path;
        int32_t pid;
        int r;

        (void) ret_error;
        if (!member || (!streq(member, "GameRegistered") && !streq(member, "GameUnregistered")))
                return 0;
        if (!w->owner || !streq_ptr(sender, w->owner)) {
                log_debug(w->ctx.log, "GameMode: ignoring %s from %s, which does not own %s.", member,
                          sender ?: "?", GAMEMODE_NAME);
                return 0;
        }
        r = sd_bus_message_read(msg, "io", &pid, &path);
        if (r < 0) {
                log_debug_errno(w->ctx.log, r, "GameMode: malformed %s: %m", member);
                return 0;
        }
        r = w->ctx.sink->game(w->ctx.sink->userdata, pid, streq(member, "GameRegistered"));
        if (r < 0 && r != -ESRCH)
                log_warning_errno(w->ctx.log, r, "GameMode: failed to place PID %d: %m", (int) pid);
        return 0;
}

/* A match the bus did not install (a limit, a timeout): without an
 * install callback sd-bus would close the whole connection, and boostd
 * with it; GameMode's games are not worth that. */
static int on_match_installed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        GameModeWatch *w = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        if (e)
                log_warning(w->ctx.log, "GameMode: the bus did not take a match (%s: %s), its games are not followed.",
                            e->name, e->message ?: "");
        return 0;
}

int gamemode_watch_new(const SourceContext *ctx, GameModeWatch **ret) {
        _cleanup_(gamemode_watch_freep) GameModeWatch *w = NULL;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->ctx = *ctx;
        r = sd_bus_add_match_async(ctx->bus, &w->signals,
                                   "type='signal',sender='" GAMEMODE_NAME "',path='" GAMEMODE_PATH "',"
                                   "interface='" GAMEMODE_IFACE "'",
                                   on_game_signal, on_match_installed, w);
        if (r < 0)
                return r;
        r = sd_bus_add_match_async(ctx->bus, &w->owner_changed,
                                   "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                   "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                                   "arg0='" GAMEMODE_NAME "'",
                                   on_owner_changed, on_match_installed, w);
        if (r < 0)
                return r;
        r = sd_bus_call_method_async(ctx->bus, &w->get_owner, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "GetNameOwner", on_get_owner, w, "s",
                                     GAMEMODE_NAME);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

GameModeWatch *gamemode_watch_free(GameModeWatch *w) {
        if (!w)
                return NULL;
        sd_bus_slot_unref(w->signals);
        sd_bus_slot_unref(w->owner_changed);
        sd_bus_slot_unref(w->get_owner);
        sd_bus_slot_unref(w->list_games);
        free(w->owner);
        free(w);
        return NULL;
}
