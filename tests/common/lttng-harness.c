// SPDX-License-Identifier: MIT
/*
 * Records one program run with a private LTTng session daemon, for end-to-end tests. The
 * caller's process only validates the options, makes the private LTTNG_HOME and forks a
 * helper; the helper does all the LTTng work (namespaces, environment, daemon, lttng
 * commands, the program) so that none of it leaks into the test process, and reports a
 * one-line error back through a pipe. Every process the helper starts dies with it
 * (PR_SET_PDEATHSIG), so even the caller's last-resort SIGKILL leaves nothing running. This
 * file does not parse or check the trace: that is the analyzer's and the tests' business.
 */

#define _GNU_SOURCE

#include "lttng-harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

/* Short on purpose: unix socket paths under LTTNG_HOME are limited to 108 bytes. */
#define FST_HOME_TEMPLATE          "/tmp/fstl-XXXXXX"
#define FST_LOG_NAME               "harness.log"
#define FST_EMPTY_LOAD_DIR_NAME    "no-sessions"
#define FST_ROOT_RUNDIR            "/var/run/lttng"
#define FST_SHM_DIR                "/dev/shm"
#define FST_DAEMON_READY_TIMEOUT_S 20
#define FST_CLEANUP_TIMEOUT_S      20
#define FST_DAEMON_TERM_TIMEOUT_S  10
#define FST_DAEMON_KILL_TIMEOUT_S  5
#define FST_MAX_TIMEOUT_S          (24 * 3600)
/* What the caller waits beyond timeout_s for the helper's own cleanup before killing it. */
#define FST_PARENT_GRACE_S                                                                         \
	(FST_CLEANUP_TIMEOUT_S + FST_DAEMON_TERM_TIMEOUT_S + FST_DAEMON_KILL_TIMEOUT_S + 5)
/*
 * A tracing group that does not exist: a non-root `lttng` whose user is in the tracing group
 * would otherwise talk to the system-wide root daemon instead of ours.
 */
#define FST_NO_TRACING_GROUP_ARG "--group=fencescope-no-tracing-group"
#define FST_MESSAGE_MAX          1024
#define FST_LOG_LINE_MAX         400

/* State of the helper process; it lives in the forked child only. */
struct recorder {
	const struct fst_record_options *options;
	const char *home_dir;
	char log_path[PATH_MAX];
	char load_dir[PATH_MAX];
	int log_fd;
	char *lttng_path;
	char *sessiond_path;
	char session_name[64];
	pid_t daemon_pid;
	bool has_session;
	struct timespec deadline;
	/* The first error only: later ones are mostly consequences of it. */
	char error[FST_MESSAGE_MAX];
};

static atomic_uint record_counter;

static char *dup_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void recorder_fail(struct recorder *r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void recorder_fail_step(struct recorder *r, off_t log_since, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static char *
dup_printf(const char *format, ...)
{
	va_list args;
	char *text = NULL;

	va_start(args, format);
	if (vasprintf(&text, format, args) < 0)
		text = NULL;
	va_end(args);
	return text;
}

static struct timespec
timespec_after(int seconds)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	now.tv_sec += seconds;
	return now;
}

static struct timespec
timespec_earliest(struct timespec a, struct timespec b)
{
	if (a.tv_sec != b.tv_sec)
		return a.tv_sec < b.tv_sec ? a : b;
	return a.tv_nsec < b.tv_nsec ? a : b;
}

/* Sets *remaining to the time left until deadline; returns false when it has passed. */
static bool
timespec_get_remaining(const struct timespec *deadline, struct timespec *remaining)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	remaining->tv_sec = deadline->tv_sec - now.tv_sec;
	remaining->tv_nsec = deadline->tv_nsec - now.tv_nsec;
	if (remaining->tv_nsec < 0) {
		remaining->tv_nsec += 1000000000L;
		remaining->tv_sec--;
	}
	return remaining->tv_sec > 0 || (remaining->tv_sec == 0 && remaining->tv_nsec > 0);
}

static void
describe_wait_status(int wait_status, char *text, size_t size)
{
	if (WIFEXITED(wait_status))
		snprintf(text, size, "exited with status %d", WEXITSTATUS(wait_status));
	else if (WIFSIGNALED(wait_status))
		snprintf(text, size, "killed by signal %d", WTERMSIG(wait_status));
	else
		snprintf(text, size, "ended with wait status 0x%x", (unsigned int) wait_status);
}

/* Joins argv with spaces, truncating the text if it does not fit. */
static void
describe_argv(const char *const *argv, char *text, size_t size)
{
	size_t length = 0;

	text[0] = '\0';
	for (; *argv && length + 1 < size; argv++) {
		int written =
		    snprintf(text + length, size - length, "%s%s", length ? " " : "", *argv);

		if (written < 0)
			break;
		length += (size_t) written;
	}
}

static int
remove_tree_entry(const char *path, const struct stat *info, int type, struct FTW *walk)
{
	(void) info;
	(void) type;
	(void) walk;
	remove(path);
	return 0;
}

int
fst_remove_tree(const char *path)
{
	return nftw(path, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

/* Returns the malloc'd path of the first executable name in PATH, or NULL. */
static char *
find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	const char *begin;
	char *candidate = NULL;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (begin = path;; begin++) {
		const char *end = strchr(begin, ':');
		int length = end ? (int) (end - begin) : (int) strlen(begin);
		struct stat info;

		free(candidate);
		candidate = dup_printf("%.*s/%s", length ? length : 1, length ? begin : ".", name);
		if (candidate && !stat(candidate, &info) && S_ISREG(info.st_mode) &&
		    !access(candidate, X_OK))
			return candidate;
		if (!end)
			break;
		begin = end;
	}
	free(candidate);
	return NULL;
}

static void
recorder_fail(struct recorder *r, const char *format, ...)
{
	va_list args;

	if (r->error[0])
		return;
	va_start(args, format);
	vsnprintf(r->error, sizeof(r->error), format, args);
	va_end(args);
}

static off_t
recorder_get_log_size(const struct recorder *r)
{
	struct stat info;

	if (r->log_fd < 0 || fstat(r->log_fd, &info))
		return 0;
	return info.st_size;
}

/*
 * Copies the last non-empty line the log got since offset since into line, with control
 * characters blanked so that error messages stay on one line. Returns false if there is none.
 */
static bool
recorder_read_last_log_line(const struct recorder *r, off_t since, char *line, size_t size)
{
	char buffer[2048];
	off_t start = recorder_get_log_size(r) - (off_t) (sizeof(buffer) - 1);
	ssize_t length;
	char *begin;
	size_t i;

	if (start < since)
		start = since;
	if (start < 0)
		start = 0;
	length = r->log_fd < 0 ? -1 : pread(r->log_fd, buffer, sizeof(buffer) - 1, start);
	if (length <= 0)
		return false;
	buffer[length] = '\0';
	while (length > 0 && (unsigned char) buffer[length - 1] <= ' ')
		buffer[--length] = '\0';
	begin = strrchr(buffer, '\n');
	begin = begin ? begin + 1 : buffer;
	while (*begin && (unsigned char) *begin <= ' ')
		begin++;
	if (!*begin)
		return false;
	for (i = 0; begin[i] && i + 1 < size; i++)
		line[i] = (unsigned char) begin[i] < ' ' ? ' ' : begin[i];
	line[i] = '\0';
	return true;
}

/* Like recorder_fail(), and quotes the last line the failed step wrote to the log. */
static void
recorder_fail_step(struct recorder *r, off_t log_since, const char *format, ...)
{
	va_list args;
	char message[FST_MESSAGE_MAX - FST_LOG_LINE_MAX - 8];
	char line[FST_LOG_LINE_MAX];

	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	if (recorder_read_last_log_line(r, log_since, line, sizeof(line)))
		recorder_fail(r, "%s: %s", message, line);
	else
		recorder_fail(r, "%s", message);
}

/*
 * Runs in a freshly forked process: redirects the standard streams and executes path. If
 * exec fails, sends errno through exec_fd, which exec would otherwise have closed.
 */
static _Noreturn void
recorder_exec(const struct recorder *r, pid_t parent, const char *path, const char *const *argv,
	      int exec_fd)
{
	sigset_t no_signals;
	int null_fd;
	int error_number;
	ssize_t written;

	/* Whatever kills the helper also kills what it started: nothing outlives the test. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(r->log_fd, STDOUT_FILENO) < 0 ||
	    dup2(r->log_fd, STDERR_FILENO) < 0)
		goto fail;
	if (null_fd > STDERR_FILENO)
		close(null_fd);
	/* The helper blocks SIGCHLD and SIGUSR1 to wait for them; children start clean. */
	sigemptyset(&no_signals);
	sigprocmask(SIG_SETMASK, &no_signals, NULL);
	execv(path, (char *const *) argv);
fail:
	error_number = errno;
	written = write(exec_fd, &error_number, sizeof(error_number));
	(void) written;
	_exit(127);
}

/* Starts path with argv; on success *pid is a child of the helper that the caller must reap. */
static int
recorder_spawn(struct recorder *r, const char *path, const char *const *argv, pid_t *pid)
{
	int status = -1;
	int exec_fds[2] = {-1, -1};
	pid_t parent = getpid();
	pid_t child;
	int exec_errno = 0;
	ssize_t length;

	if (pipe2(exec_fds, O_CLOEXEC)) {
		recorder_fail(r, "cannot start %s: pipe: %s", path, strerror(errno));
		goto end;
	}
	child = fork();
	if (child < 0) {
		recorder_fail(r, "cannot start %s: fork: %s", path, strerror(errno));
		goto end;
	}
	if (child == 0) {
		close(exec_fds[0]);
		recorder_exec(r, parent, path, argv, exec_fds[1]);
	}
	close(exec_fds[1]);
	exec_fds[1] = -1;
	do
		length = read(exec_fds[0], &exec_errno, sizeof(exec_errno));
	while (length < 0 && errno == EINTR);
	if (length > 0) {
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
		recorder_fail(r, "cannot execute %s: %s", path, strerror(exec_errno));
		goto end;
	}
	*pid = child;
	status = 0;
end:
	if (exec_fds[0] >= 0)
		close(exec_fds[0]);
	if (exec_fds[1] >= 0)
		close(exec_fds[1]);
	return status;
}

/*
 * Waits for pid until deadline. SIGCHLD is blocked in the helper, so a child that exits
 * between waitpid() and sigtimedwait() leaves it pending and no wake-up is lost. Returns 0
 * with *wait_status set, 1 on timeout, -1 on error.
 */
static int
wait_until(pid_t pid, const struct timespec *deadline, int *wait_status)
{
	sigset_t chld;
	struct timespec remaining;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		pid_t ret = waitpid(pid, wait_status, WNOHANG);

		if (ret == pid)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -1;
		if (!timespec_get_remaining(deadline, &remaining))
			return 1;
		sigtimedwait(&chld, NULL, &remaining);
	}
}

static void
kill_and_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * Runs one step to completion, its output going to the log. Returns 0 with *wait_status set
 * when the step ran, whatever its exit status; records an error and returns -1 when it could
 * not start or outlived deadline (it is then killed).
 */
static int
recorder_run_step(struct recorder *r, const char *what, const char *path, const char *const *argv,
		  const struct timespec *deadline, int *wait_status)
{
	int status = -1;
	off_t log_since = recorder_get_log_size(r);
	pid_t pid = -1;

	if (recorder_spawn(r, path, argv, &pid))
		goto end;
	switch (wait_until(pid, deadline, wait_status)) {
	case 0:
		break;
	case 1:
		kill_and_reap(pid);
		recorder_fail_step(r, log_since, "timeout: %s did not finish within %d s", what,
				   r->options->timeout_s);
		goto end;
	default:
		recorder_fail(r, "waiting for %s: %s", what, strerror(errno));
		kill_and_reap(pid);
		goto end;
	}
	status = 0;
end:
	return status;
}

/* Runs `lttng ARGS...` (args NULL-terminated); any failure, non-zero exit included, is an error. */
static int
recorder_run_lttng(struct recorder *r, const struct timespec *deadline, const char *const *args)
{
	int status = -1;
	/* --no-sessiond: never let the client spawn a daemon that we would not own. */
	const char *argv[12] = {"lttng", "--no-sessiond", FST_NO_TRACING_GROUP_ARG};
	size_t count = 3;
	off_t log_since = recorder_get_log_size(r);
	char what[512];
	char outcome[64];
	int wait_status = 0;

	for (; *args && count + 1 < sizeof(argv) / sizeof(argv[0]); args++)
		argv[count++] = *args;
	argv[count] = NULL;
	snprintf(what, sizeof(what), "lttng ");
	describe_argv(argv + 3, what + strlen(what), sizeof(what) - strlen(what));
	if (recorder_run_step(r, what, r->lttng_path, argv, deadline, &wait_status))
		goto end;
	if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
		describe_wait_status(wait_status, outcome, sizeof(outcome));
		recorder_fail_step(r, log_since, "`%s` %s", what, outcome);
		goto end;
	}
	status = 0;
end:
	return status;
}

static int
write_text_file(const char *path, const char *text)
{
	int status = -1;
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t length = strlen(text);

	if (fd < 0)
		goto end;
	if (write(fd, text, length) != (ssize_t) length)
		goto end;
	status = 0;
end:
	if (fd >= 0)
		close(fd);
	return status;
}

/*
 * Enters a user namespace that maps only the caller's own uid and gid onto themselves, so
 * that the unprivileged helper may mount. As a side effect, supplementary groups such as
 * "tracing" show up as the overflow group inside it.
 */
static int
recorder_enter_user_namespace(struct recorder *r, uid_t uid, gid_t gid)
{
	int status = -1;
	char map[64];

	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long) uid, (unsigned long) uid);
	if (write_text_file("/proc/self/uid_map", map)) {
		recorder_fail(r, "cannot write /proc/self/uid_map: %s", strerror(errno));
		goto end;
	}
	if (write_text_file("/proc/self/setgroups", "deny") && errno != ENOENT) {
		recorder_fail(r, "cannot write /proc/self/setgroups: %s", strerror(errno));
		goto end;
	}
	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long) gid, (unsigned long) gid);
	if (write_text_file("/proc/self/gid_map", map)) {
		recorder_fail(r, "cannot write /proc/self/gid_map: %s", strerror(errno));
		goto end;
	}
	status = 0;
end:
	return status;
}

/*
 * Hides any other daemon's sockets (/var/run/lttng) and shared memory (/dev/shm) behind
 * private tmpfs mounts in a mount namespace of the helper's own.
 *
 * Root needs this: LTTNG_HOME does not move a root daemon's sockets, so without it ours
 * would collide with a system-wide daemon. A user needs it less, since LTTNG_HOME moves the
 * sockets, but a member of the tracing group would otherwise find the system-wide daemon
 * first (lttng-sessiond then refuses to start, "already running"), and concurrent runs of one
 * user would share the wait shm. Where namespaces are not allowed, the helper carries on
 * with LTTNG_HOME alone.
 */
static int
recorder_isolate(struct recorder *r)
{
	int status = -1;
	bool is_root = geteuid() == 0;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	struct stat info;

	if (is_root) {
		if (mkdir(FST_ROOT_RUNDIR, 0755) && errno != EEXIST) {
			recorder_fail(r, "cannot create " FST_ROOT_RUNDIR ": %s", strerror(errno));
			goto end;
		}
		if (unshare(CLONE_NEWNS)) {
			if (errno == EPERM) {
				status = 0;
				goto end;
			}
			recorder_fail(r, "unshare(CLONE_NEWNS): %s", strerror(errno));
			goto end;
		}
	} else {
		/* EPERM, EINVAL, ENOSPC, EUSERS: user namespaces are off or exhausted. */
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
			status = 0;
			goto end;
		}
		if (recorder_enter_user_namespace(r, uid, gid))
			goto end;
	}
	/*
	 * An unprivileged helper may still be refused mounts (by a security module, say); it
	 * then carries on with LTTNG_HOME, as without namespaces.
	 */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		if (!is_root) {
			status = 0;
			goto end;
		}
		recorder_fail(r, "cannot make / a private mount: %s", strerror(errno));
		goto end;
	}
	/* A user cannot create it; if it does not exist, no daemon listens there. */
	if ((is_root || !stat(FST_ROOT_RUNDIR, &info)) &&
	    mount("tmpfs", FST_ROOT_RUNDIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0755")) {
		if (!is_root) {
			status = 0;
			goto end;
		}
		recorder_fail(r, "cannot mount a tmpfs on " FST_ROOT_RUNDIR ": %s",
			      strerror(errno));
		goto end;
	}
	if (mount("tmpfs", FST_SHM_DIR, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")) {
		if (!is_root) {
			status = 0;
			goto end;
		}
		recorder_fail(r, "cannot mount a tmpfs on " FST_SHM_DIR ": %s", strerror(errno));
		goto end;
	}
	status = 0;
end:
	return status;
}

/* Starts lttng-sessiond in the foreground and waits for the SIGUSR1 it sends when ready. */
static int
recorder_start_daemon(struct recorder *r)
{
	int status = -1;
	char load_arg[PATH_MAX + 16];
	/* --load of an empty directory: do not load /etc/lttng/sessions/auto. */
	const char *argv[] = {"lttng-sessiond", "--no-kernel", "--sig-parent", load_arg, NULL};
	struct timespec deadline =
	    timespec_earliest(timespec_after(FST_DAEMON_READY_TIMEOUT_S), r->deadline);
	off_t log_since = recorder_get_log_size(r);
	struct timespec remaining;
	char outcome[64];
	sigset_t signals;
	siginfo_t info;
	int wait_status;

	snprintf(load_arg, sizeof(load_arg), "--load=%s", r->load_dir);
	sigemptyset(&signals);
	sigaddset(&signals, SIGUSR1);
	sigaddset(&signals, SIGCHLD);
	if (recorder_spawn(r, r->sessiond_path, argv, &r->daemon_pid))
		goto end;
	for (;;) {
		int signal_number;

		if (!timespec_get_remaining(&deadline, &remaining)) {
			recorder_fail_step(r, log_since,
					   "timeout: lttng-sessiond was not ready within %d s",
					   FST_DAEMON_READY_TIMEOUT_S);
			goto end;
		}
		signal_number = sigtimedwait(&signals, &info, &remaining);
		if (signal_number == SIGUSR1 && info.si_pid == r->daemon_pid)
			break;
		if (waitpid(r->daemon_pid, &wait_status, WNOHANG) == r->daemon_pid) {
			r->daemon_pid = -1;
			describe_wait_status(wait_status, outcome, sizeof(outcome));
			recorder_fail_step(r, log_since, "lttng-sessiond %s before it was ready",
					   outcome);
			goto end;
		}
	}
	status = 0;
end:
	return status;
}

/* Stops the daemon this helper started, and only it: SIGTERM, then SIGKILL. */
static void
recorder_stop_daemon(struct recorder *r)
{
	struct timespec deadline;
	int wait_status;

	if (r->daemon_pid <= 0)
		return;
	/* The pid cannot have been reused: the daemon is our child and not reaped yet. */
	kill(r->daemon_pid, SIGTERM);
	deadline = timespec_after(FST_DAEMON_TERM_TIMEOUT_S);
	if (wait_until(r->daemon_pid, &deadline, &wait_status) != 0) {
		kill(r->daemon_pid, SIGKILL);
		deadline = timespec_after(FST_DAEMON_KILL_TIMEOUT_S);
		if (wait_until(r->daemon_pid, &deadline, &wait_status) != 0)
			recorder_fail(r, "lttng-sessiond (pid %ld) did not die after SIGKILL",
				      (long) r->daemon_pid);
	}
	r->daemon_pid = -1;
}

/* Runs the program; its failure is recorded but does not stop the recording steps. */
static void
recorder_run_program(struct recorder *r)
{
	const char *const *argv = r->options->argv;
	off_t log_since = recorder_get_log_size(r);
	int wait_status = 0;

	if (recorder_run_step(r, "program", argv[0], argv, &r->deadline, &wait_status))
		return;
	if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0)
		recorder_fail_step(r, log_since, "program exited with status %d",
				   WEXITSTATUS(wait_status));
	else if (WIFSIGNALED(wait_status))
		recorder_fail_step(r, log_since, "program killed by signal %d",
				   WTERMSIG(wait_status));
}

static int
recorder_prepare(struct recorder *r)
{
	int status = -1;
	struct sigaction default_action;
	sigset_t waited;

	/* The helper must die with the test process so that its daemon dies too. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL)) {
		recorder_fail(r, "prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
		goto end;
	}
	/* An ignored SIGCHLD would make the kernel reap children before waitpid() sees them. */
	memset(&default_action, 0, sizeof(default_action));
	default_action.sa_handler = SIG_DFL;
	sigemptyset(&default_action.sa_mask);
	sigaction(SIGCHLD, &default_action, NULL);
	sigemptyset(&waited);
	sigaddset(&waited, SIGCHLD);
	sigaddset(&waited, SIGUSR1);
	sigprocmask(SIG_BLOCK, &waited, NULL);
	if (recorder_isolate(r))
		goto end;
	/*
	 * The default registration timeout makes short programs wait for the daemon's
	 * session setup before main(); a smaller inherited one loses their first events.
	 */
	if (setenv("LTTNG_HOME", r->home_dir, 1) || setenv("HOME", r->home_dir, 1) ||
	    unsetenv("LTTNG_UST_REGISTER_TIMEOUT")) {
		recorder_fail(r, "cannot set the environment: %s", strerror(errno));
		goto end;
	}
	snprintf(r->log_path, sizeof(r->log_path), "%s/" FST_LOG_NAME, r->home_dir);
	r->log_fd = open(r->log_path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (r->log_fd < 0) {
		recorder_fail(r, "cannot open %s: %s", r->log_path, strerror(errno));
		goto end;
	}
	snprintf(r->load_dir, sizeof(r->load_dir), "%s/" FST_EMPTY_LOAD_DIR_NAME, r->home_dir);
	if (mkdir(r->load_dir, 0700)) {
		recorder_fail(r, "cannot create %s: %s", r->load_dir, strerror(errno));
		goto end;
	}
	r->lttng_path = find_in_path("lttng");
	r->sessiond_path = find_in_path("lttng-sessiond");
	if (!r->lttng_path || !r->sessiond_path) {
		recorder_fail(r, "%s not found in PATH",
			      r->lttng_path ? "lttng-sessiond" : "lttng");
		goto end;
	}
	status = 0;
end:
	return status;
}

/* The helper's whole job; returns 0 on success, -1 with r->error set. */
static int
recorder_record(struct recorder *r)
{
	const char *name = r->session_name;
	char output_arg[PATH_MAX + 16];
	struct timespec cleanup_deadline;

	snprintf(output_arg, sizeof(output_arg), "--output=%s", r->options->output_dir);
	if (recorder_prepare(r) || recorder_start_daemon(r))
		goto end;
	/* Set first: a create that times out may still have made the session. */
	r->has_session = true;
	if (recorder_run_lttng(r, &r->deadline,
			       (const char *const[]){"create", name, output_arg, NULL}))
		goto end;
	if (r->options->subbuf_size) {
		char size_arg[64];

		snprintf(size_arg, sizeof(size_arg), "--subbuf-size=%s", r->options->subbuf_size);
		if (recorder_run_lttng(r, &r->deadline,
				       (const char *const[]){"enable-channel", "-u", "-s", name,
							     size_arg, "--num-subbuf=8", "fst",
							     NULL}) ||
		    recorder_run_lttng(r, &r->deadline,
				       (const char *const[]){"enable-event", "-u", "-s", name, "-c",
							     "fst", r->options->event_pattern,
							     NULL}))
			goto end;
	} else if (recorder_run_lttng(r, &r->deadline,
				      (const char *const[]){"enable-event", "-u", "-s", name,
							    r->options->event_pattern, NULL})) {
		goto end;
	}
	if (recorder_run_lttng(r, &r->deadline, (const char *const[]){"start", name, NULL}))
		goto end;
	recorder_run_program(r);
	/* `lttng stop` waits until the data is flushed, whatever the program did. */
	if (recorder_run_lttng(r, &r->deadline, (const char *const[]){"stop", name, NULL}) ||
	    recorder_run_lttng(r, &r->deadline, (const char *const[]){"destroy", name, NULL}))
		goto end;
	r->has_session = false;
end:
	if (r->has_session) {
		cleanup_deadline = timespec_after(FST_CLEANUP_TIMEOUT_S);
		recorder_run_lttng(r, &cleanup_deadline,
				   (const char *const[]){"destroy", name, NULL});
	}
	recorder_stop_daemon(r);
	return r->error[0] ? -1 : 0;
}

/* Entry point of the forked helper; reports through report_fd and never returns. */
static _Noreturn void
recorder_main(const struct fst_record_options *options, const char *home_dir, unsigned int number,
	      int report_fd)
{
	struct recorder r;
	ssize_t written;
	size_t length;
	int status;

	memset(&r, 0, sizeof(r));
	r.options = options;
	r.home_dir = home_dir;
	r.log_fd = -1;
	r.daemon_pid = -1;
	r.deadline = timespec_after(options->timeout_s);
	snprintf(r.session_name, sizeof(r.session_name), "fstc-%ld-%u", (long) getpid(), number);
	status = recorder_record(&r);
	length = strlen(r.error);
	written = length ? write(report_fd, r.error, length) : 0;
	(void) written;
	_exit(status ? 1 : 0);
}

static int
validate_options(const struct fst_record_options *options, char **message)
{
	int status = -1;
	DIR *dir = NULL;
	struct dirent *entry;
	struct stat info;

	if (!options || !options->output_dir || !*options->output_dir || !options->argv ||
	    !options->argv[0] || !*options->argv[0] || !options->event_pattern ||
	    !*options->event_pattern) {
		*message = dup_printf("invalid options: output_dir, argv[0] and event_pattern "
				      "must be non-empty");
		goto end;
	}
	if (options->timeout_s <= 0 || options->timeout_s > FST_MAX_TIMEOUT_S) {
		*message = dup_printf("invalid options: timeout_s %d is not in [1, %d]",
				      options->timeout_s, FST_MAX_TIMEOUT_S);
		goto end;
	}
	if (stat(options->argv[0], &info) || access(options->argv[0], X_OK)) {
		*message =
		    dup_printf("cannot execute program %s: %s", options->argv[0], strerror(errno));
		goto end;
	}
	if (!S_ISREG(info.st_mode)) {
		*message =
		    dup_printf("cannot execute program %s: not a regular file", options->argv[0]);
		goto end;
	}
	/* The helper's private tmpfs mounts would swallow a trace written below them. */
	if (!strncmp(options->output_dir, FST_SHM_DIR "/", strlen(FST_SHM_DIR "/")) ||
	    !strncmp(options->output_dir, FST_ROOT_RUNDIR, strlen(FST_ROOT_RUNDIR)) ||
	    !strncmp(options->output_dir, "/run/lttng", strlen("/run/lttng"))) {
		*message = dup_printf("output directory %s is hidden by the private mounts",
				      options->output_dir);
		goto end;
	}
	dir = opendir(options->output_dir);
	if (!dir && errno != ENOENT) {
		*message = dup_printf("cannot use output directory %s: %s", options->output_dir,
				      strerror(errno));
		goto end;
	}
	while (dir && (entry = readdir(dir))) {
		if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) {
			*message =
			    dup_printf("output directory %s is not empty", options->output_dir);
			goto end;
		}
	}
	status = 0;
end:
	if (dir)
		closedir(dir);
	return status;
}

/*
 * Waits for the helper's report and exit. The helper enforces timeout_s itself and then
 * cleans up; this limit, with a grace for that cleanup, only catches a helper that hangs.
 */
static int
wait_for_helper(pid_t pid, int report_fd, int limit_s, char **message)
{
	int status = -1;
	struct timespec deadline = timespec_after(limit_s);
	struct timespec remaining;
	char report[FST_MESSAGE_MAX];
	size_t length = 0;
	bool is_timed_out = false;
	int wait_status = 0;
	char outcome[64];

	for (;;) {
		struct pollfd poll_fd = {.fd = report_fd, .events = POLLIN};
		char discard[256];
		ssize_t got;
		int ready;

		if (!timespec_get_remaining(&deadline, &remaining)) {
			is_timed_out = true;
			break;
		}
		ready = poll(&poll_fd, 1,
			     (int) (remaining.tv_sec * 1000 + remaining.tv_nsec / 1000000 + 1));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			continue;
		if (length + 1 < sizeof(report))
			got = read(report_fd, report + length, sizeof(report) - 1 - length);
		else
			got = read(report_fd, discard, sizeof(discard));
		if (got < 0 && errno == EINTR)
			continue;
		/* End of file: the helper has exited (the pipe is close-on-exec everywhere). */
		if (got <= 0)
			break;
		if (length + 1 < sizeof(report))
			length += (size_t) got;
	}
	report[length] = '\0';
	if (is_timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR)
		;
	if (is_timed_out) {
		*message = dup_printf("timeout: the recording helper did not finish within %d s; "
				      "killed it and everything it started",
				      limit_s);
		goto end;
	}
	if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
		status = 0;
		goto end;
	}
	describe_wait_status(wait_status, outcome, sizeof(outcome));
	*message = length ? strdup(report) : dup_printf("the recording helper %s", outcome);
end:
	return status;
}

int
fst_lttng_record(const struct fst_record_options *options, char **error)
{
	int status = -1;
	char home_dir[] = FST_HOME_TEMPLATE;
	bool has_home_dir = false;
	int report_fds[2] = {-1, -1};
	unsigned int number = atomic_fetch_add(&record_counter, 1) + 1;
	char *message = NULL;
	pid_t pid;

	if (error)
		*error = NULL;
	if (validate_options(options, &message))
		goto end;
	/* Made here, not in the helper, so that it is removed even if the helper is killed. */
	if (!mkdtemp(home_dir)) {
		message = dup_printf("cannot create a private LTTNG_HOME from %s: %s",
				     FST_HOME_TEMPLATE, strerror(errno));
		goto end;
	}
	has_home_dir = true;
	if (pipe2(report_fds, O_CLOEXEC)) {
		message = dup_printf("pipe: %s", strerror(errno));
		goto end;
	}
	pid = fork();
	if (pid < 0) {
		message = dup_printf("fork: %s", strerror(errno));
		goto end;
	}
	if (pid == 0) {
		close(report_fds[0]);
		recorder_main(options, home_dir, number, report_fds[1]);
	}
	close(report_fds[1]);
	report_fds[1] = -1;
	status =
	    wait_for_helper(pid, report_fds[0], options->timeout_s + FST_PARENT_GRACE_S, &message);
end:
	if (report_fds[0] >= 0)
		close(report_fds[0]);
	if (report_fds[1] >= 0)
		close(report_fds[1]);
	if (has_home_dir)
		fst_remove_tree(home_dir);
	if (status && !message)
		message = strdup("fst_lttng_record failed (out of memory)");
	if (!status) {
		free(message);
		message = NULL;
	}
	if (error)
		*error = message;
	else
		free(message);
	return status;
}
