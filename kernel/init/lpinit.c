// SPDX-License-Identifier: GPL-2.0
/*
 * lpinit: the /init of the test kernels' initramfs, one static program
 * for every architecture (x86_64, arm64, riscv64), so no shell or
 * busybox is needed in the guest.  It runs the commands of /lpk.script,
 * one a line, in order, and prints what they read on the console; the
 * host (kernel/bootfacts.sh) turns those lines into the facts the
 * checks compare.  It does no counting or parsing of its own: what
 * ftrace printed reaches the host unchanged.
 *
 * Commands (words separated by single spaces; TEXT is the rest of the
 * line, spaces included):
 *
 *   console                  stdin, stdout, stderr on /dev/console
 *   mount TYPE DIR           mount a TYPE filesystem on DIR (made if missing)
 *   umount DIR
 *   write FILE TEXT          open FILE truncating, write TEXT and a newline
 *   append FILE TEXT         the same without truncating (">>")
 *   dump PREFIX FILE [MAX]   print each line of FILE as "PREFIX line"
 *                            (the first MAX), then "PREFIX-LINES N"
 *   grep PREFIX FILE TEXT    only the lines that contain TEXT
 *   read FILE N              read FILE to its end, N times (work that
 *                            runs vfs_read)
 *   exec N                   run /init as a child N times (each exec
 *                            asks every binary format handler)
 *   insmod NAME FILE [ARGS]  load a module (finit_module)
 *   rmmod NAME               unload it
 *   kmsg PREFIX TEXT         the kernel log lines that contain TEXT
 *   sleep MS
 *   echo TEXT
 *   reboot                   QEMU's -no-reboot turns it into an exit
 *
 * A failing command prints "LPK-ERR <line number> <command>: <cause>"
 * and the script goes on: the host decides what a failure means.
 * insmod and rmmod print "LPK insmod NAME ok|fail" and
 * "LPK rmmod NAME ok|fail".  The last line printed is "LPK done".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCRIPT "/lpk.script"
#define MAX_LINE 4096
#define MAX_WORDS 8

static int lineno;

/* One line to the console in one write, so lines never interleave. */
static void say(const char *fmt, ...)
{
	char buf[MAX_LINE + 256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		return;
}

static int fail(const char *cmd, const char *what)
{
	say("LPK-ERR %d %s: %s: %s", lineno, cmd, what, strerror(errno));
	return -1;
}

static void mkdirs(const char *path)
{
	char p[MAX_LINE];
	char *s;

	snprintf(p, sizeof(p), "%s", path);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static int do_console(void)
{
	int fd = open("/dev/console", O_RDWR);

	if (fd < 0)
		return fail("console", "/dev/console");
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	return 0;
}

static int do_write(const char *file, const char *text, int flags)
{
	char buf[MAX_LINE + 1];
	size_t n = strlen(text);
	int fd = open(file, O_WRONLY | flags);

	if (fd < 0)
		return fail("write", file);
	memcpy(buf, text, n);
	buf[n++] = '\n';
	if (write(fd, buf, n) != (ssize_t)n) {
		fail("write", file);
		close(fd);
		return -1;
	}
	return close(fd) ? fail("write", file) : 0;
}

/*
 * Print the lines of @file with @prefix: those containing @needle when
 * it is not NULL (grep), else the first @max (0: all) and a count of
 * them all (dump).  Read through stdio: tracefs files are read in
 * pieces of any size.
 */
static int do_dump(const char *prefix, const char *file, const char *needle,
		   long max)
{
	char line[MAX_LINE];
	FILE *f = fopen(file, "r");
	long n = 0;

	if (!f)
		return fail("dump", file);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		n++;
		if (needle ? !!strstr(line, needle) : !max || n <= max)
			say("%s %s", prefix, line);
	}
	fclose(f);
	if (!needle)
		say("%s-LINES %ld", prefix, n);
	return 0;
}

static int do_read(const char *file, int times)
{
	char buf[4096];
	int i, fd;

	for (i = 0; i < times; i++) {
		fd = open(file, O_RDONLY);
		if (fd < 0)
			return fail("read", file);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	return 0;
}

static int do_exec(int times)
{
	int i, st;
	pid_t p;

	for (i = 0; i < times; i++) {
		p = fork();
		if (p < 0)
			return fail("exec", "fork");
		if (!p) {
			execl("/init", "/init", "--child", (char *)NULL);
			_exit(127);
		}
		if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			say("LPK-ERR %d exec: child status 0x%x", lineno, st);
	}
	return 0;
}

static int do_insmod(const char *name, const char *file, const char *args)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || syscall(SYS_finit_module, fd, args ? args : "", 0)) {
		fail("insmod", file);
		say("LPK insmod %s fail", name);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	say("LPK insmod %s ok", name);
	return 0;
}

static int do_rmmod(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK)) {
		fail("rmmod", name);
		say("LPK rmmod %s fail", name);
		return -1;
	}
	say("LPK rmmod %s ok", name);
	return 0;
}

/* The kernel log lines containing @needle (SYSLOG_ACTION_READ_ALL). */
static int do_kmsg(const char *prefix, const char *needle)
{
	static char log[1 << 20];
	int n = klogctl(3, log, sizeof(log) - 1);
	char *line, *save;

	if (n < 0)
		return fail("kmsg", "klogctl");
	log[n] = 0;
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, needle))
			say("%s %s", prefix, line);
	return 0;
}

static int do_sleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return 0;
}

/* Split @line into at most @max words; the last takes the rest. */
static int split(char *line, char **w, int max)
{
	int n = 0;

	while (*line && n < max) {
		w[n++] = line;
		if (n == max)
			break;
		line = strchr(line, ' ');
		if (!line)
			break;
		*line++ = 0;
	}
	return n;
}

static int arg_int(const char *s)
{
	return s ? atoi(s) : 0;
}

static void run(char *line)
{
	char *w[MAX_WORDS] = { 0 };
	int n;

	n = split(line, w, 1);
	if (!n || line[0] == '#')
		return;
	/* each command splits its own operands: TEXT keeps its spaces */
	if (!strncmp(line, "console", 7)) {
		do_console();
	} else if (!strncmp(line, "mount ", 6)) {
		n = split(line + 6, w, 2);
		if (n == 2) {
			mkdirs(w[1]);
			if (mount(w[0], w[1], w[0], 0, NULL))
				fail("mount", w[1]);
		}
	} else if (!strncmp(line, "umount ", 7)) {
		if (umount(line + 7))
			fail("umount", line + 7);
	} else if (!strncmp(line, "write ", 6) || !strncmp(line, "append ", 7)) {
		int append = line[0] == 'a';

		n = split(line + (append ? 7 : 6), w, 2);
		do_write(w[0], n == 2 ? w[1] : "", append ? O_APPEND : O_TRUNC);
	} else if (!strncmp(line, "dump ", 5)) {
		n = split(line + 5, w, 3);
		if (n >= 2)
			do_dump(w[0], w[1], NULL, n == 3 ? arg_int(w[2]) : 0);
	} else if (!strncmp(line, "grep ", 5)) {
		n = split(line + 5, w, 3);
		if (n == 3)
			do_dump(w[0], w[1], w[2], 0);
	} else if (!strncmp(line, "read ", 5)) {
		n = split(line + 5, w, 2);
		do_read(w[0], n == 2 ? arg_int(w[1]) : 1);
	} else if (!strncmp(line, "exec ", 5)) {
		do_exec(arg_int(line + 5));
	} else if (!strncmp(line, "insmod ", 7)) {
		n = split(line + 7, w, 3);
		if (n >= 2)
			do_insmod(w[0], w[1], n == 3 ? w[2] : NULL);
	} else if (!strncmp(line, "rmmod ", 6)) {
		do_rmmod(line + 6);
	} else if (!strncmp(line, "kmsg ", 5)) {
		n = split(line + 5, w, 2);
		if (n == 2)
			do_kmsg(w[0], w[1]);
	} else if (!strncmp(line, "sleep ", 6)) {
		do_sleep(arg_int(line + 6));
	} else if (!strncmp(line, "echo ", 5)) {
		say("%s", line + 5);
	} else if (!strcmp(line, "reboot")) {
		sync();
		reboot(RB_AUTOBOOT);
	} else {
		say("LPK-ERR %d unknown command: %s", lineno, line);
	}
}

int main(int argc, char **argv)
{
	char line[MAX_LINE];
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return 0;	/* "exec N": nothing to do but be run */
	/* the kernel may start us without a console: make one */
	mkdirs("/dev");
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		say("LPK-ERR 0 mount /dev: %s", strerror(errno));
	do_console();
	f = fopen(SCRIPT, "r");
	if (!f) {
		say("LPK-ERR 0 %s: %s", SCRIPT, strerror(errno));
	} else {
		while (fgets(line, sizeof(line), f)) {
			lineno++;
			line[strcspn(line, "\n")] = 0;
			run(line);
		}
		fclose(f);
	}
	say("LPK done");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
