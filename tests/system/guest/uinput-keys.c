// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uinput-keys: creates a virtual keyboard with uinput and types on it, so
 * that the guest's boostd sees a real input device appear through udev
 * and real key events on its evdev node.
 *
 * Usage: uinput-keys SETTLE_MS COUNT INTERVAL_MS [LINGER_MS]
 *   waits SETTLE_MS after creating the device (udev tags it, boostd opens
 *   it), or until SIGUSR1 (a caller that saw boostd open it), presses and releases KEY_A COUNT times every INTERVAL_MS, then
 *   keeps the device LINGER_MS before removing it. Prints "typing" when
 *   the first key goes out and "done" after the last one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go_now;

static void go(int sig)
{
	(void)sig;
	go_now = 1;
}

/* Sleeps ms, or until SIGUSR1 comes. */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !go_now)
		;
}

static int emit(int fd, unsigned short type, unsigned short code, int value)
{
	struct input_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.code = code;
	ev.value = value;
	return write(fd, &ev, sizeof(ev)) == sizeof(ev) ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct uinput_setup setup;
	long settle, count, interval, linger = 0;
	int fd;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s SETTLE_MS COUNT INTERVAL_MS [LINGER_MS]\n", argv[0]);
		return 2;
	}
	settle = atol(argv[1]);
	{
		struct sigaction sa = { .sa_handler = go };

		sigaction(SIGUSR1, &sa, NULL);
	}
	count = atol(argv[2]);
	interval = atol(argv[3]);
	if (argc == 5)
		linger = atol(argv[4]);

	fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		perror("uinput-keys: /dev/uinput");
		return 1;
	}
	if (ioctl(fd, UI_SET_EVBIT, EV_KEY) < 0 ||
	    ioctl(fd, UI_SET_EVBIT, EV_SYN) < 0) {
		perror("uinput-keys: UI_SET_EVBIT");
		return 1;
	}
	/* A full letter row, so that udev calls it a keyboard. */
	for (int k = KEY_ESC; k <= KEY_D; k++)
		if (ioctl(fd, UI_SET_KEYBIT, k) < 0) {
			perror("uinput-keys: UI_SET_KEYBIT");
			return 1;
		}
	memset(&setup, 0, sizeof(setup));
	setup.id.bustype = BUS_VIRTUAL;
	setup.id.vendor = 0x1d6b;
	setup.id.product = 0x0b05;
	snprintf(setup.name, sizeof(setup.name), "boostd-systest keyboard");
	if (ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
		perror("uinput-keys: UI_DEV_CREATE");
		return 1;
	}
	sleep_ms(settle);
	go_now = 0;
	printf("typing\n");
	fflush(stdout);
	for (long i = 0; i < count; i++) {
		if (emit(fd, EV_KEY, KEY_A, 1) || emit(fd, EV_SYN, SYN_REPORT, 0) ||
		    emit(fd, EV_KEY, KEY_A, 0) || emit(fd, EV_SYN, SYN_REPORT, 0)) {
			perror("uinput-keys: write");
			return 1;
		}
		if (i + 1 < count)
			sleep_ms(interval);
	}
	printf("done\n");
	fflush(stdout);
	sleep_ms(linger);
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
