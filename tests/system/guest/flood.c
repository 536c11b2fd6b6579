// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * flood: one bus client that sends boostd a stream of bad calls and then
 * asks for holds until it is refused, to show that neither makes the
 * daemon unresponsive or grow without bound.
 *
 * Usage: flood BAD_CALLS HOLD_ATTEMPTS
 * Prints "bad=N invalid=N other=N holds=N refused=N" and exits 0 when every
 * bad call got org.boostd.Boost1.Error.InvalidBoost or UnknownGroup and
 * the holds stopped with TooManyHolds; holds end when flood exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define BUS_NAME "org.boostd.Boost1"
#define OBJ_PATH "/org/boostd/Boost1"
#define ERR "org.boostd.Boost1.Error."

int main(int argc, char **argv)
{
	unsigned long bad, attempts, invalid = 0, other = 0, holds = 0, refused = 0;
	sd_bus *bus = NULL;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: %s BAD_CALLS HOLD_ATTEMPTS\n", argv[0]);
		return 2;
	}
	bad = strtoul(argv[1], NULL, 10);
	attempts = strtoul(argv[2], NULL, 10);
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "flood: cannot connect to the system bus: %s\n", strerror(-r));
		return 1;
	}
	for (unsigned long i = 0; i < bad; i++) {
		sd_bus_error error = SD_BUS_ERROR_NULL;

		if (i % 2)
			r = sd_bus_call_method(bus, BUS_NAME, OBJ_PATH, BUS_NAME, "SetBoost",
					       &error, NULL, "su", "performance", 101 + (unsigned) i);
		else
			r = sd_bus_call_method(bus, BUS_NAME, OBJ_PATH, BUS_NAME, "GetBoost",
					       &error, NULL, "s", "no-such-group");
		if (r < 0 && (sd_bus_error_has_name(&error, ERR "InvalidBoost") ||
			      sd_bus_error_has_name(&error, ERR "UnknownGroup")))
			invalid++;
		else
			other++;
		sd_bus_error_free(&error);
	}
	for (unsigned long i = 0; i < attempts; i++) {
		sd_bus_error error = SD_BUS_ERROR_NULL;

		r = sd_bus_call_method(bus, BUS_NAME, OBJ_PATH, BUS_NAME, "Hold",
				       &error, NULL, "suus", "background", 5, 0, "flood");
		if (r >= 0) {
			holds++;
		} else if (sd_bus_error_has_name(&error, ERR "TooManyHolds")) {
			refused++;
		} else {
			fprintf(stderr, "flood: Hold: %s\n", error.name ?: strerror(-r));
			other++;
		}
		sd_bus_error_free(&error);
	}
	printf("bad=%lu invalid=%lu other=%lu holds=%lu refused=%lu\n",
	       bad, invalid, other, holds, refused);
	sd_bus_flush_close_unref(bus);
	return invalid == bad && other == 0 && refused > 0 ? 0 : 1;
}
