/* SPDX-License-Identifier: MIT */
/*
 * The sandbox of record-sandbox.h. The test process only makes the work directory, forks the
 * sandbox and reads back the files the sandbox wrote there (out, err, status, seen, leftovers,
 * list, daemon, setup-error); the sandbox process does all the namespace, daemon and process
 * work, so that none of it touches the test process. Like tests/common/lttng-harness.c, whose
 * isolation it follows, it kills with itself whatever it starts (PR_SET_PDEATHSIG), and it
 * kills the LTTng processes it finds left behind once it has reported them.
 */
#define _GNU_SOURCE
#include "record-sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Short: unix socket paths under LTTNG_HOME are limited to 108 bytes. */
#define FSCT_WORK_TEMPLATE "/tmp/fsct-XXXXXX"
#define FSCT_ROOT_RUNDIR   "/var/run/lttng"
#define FSCT_SHM_DIR       "/dev/shm"
#define FSCT_POLL_MS       20
#define FSCT_STOP_S        10
#define FSCT_DONE_AFTER_S  10
/* What the test process waits beyond the timeout for the sandbox's own clean-up. */
#define FSCT_GRACE_S     60
#define FSCT_MAX_DAEMONS 16
#define FSCT_TEXT_MAX    4096

struct sandbox {
	const struct fsct_sandbox_options *options;
	const char *work_dir;
	char mount_ns[64];
	/* The sandbox's own lttng-sessiond and lttng-relayd, or -1. */
	pid_t own_daemons[2];
	struct {
		pid_t pid;
		char name[32];
	} seen[FSCT_MAX_DAEMONS];
	size_t seen_count;
	/* options->second_args running, or -1; whether it was started (it runs once). */
	pid_t second;
	bool has_started_second;
};

typedef void (*process_visitor)(struct sandbox *sb, pid_t pid, const char *name, void *data);

static double
now_s(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double) now.tv_sec + (double) now.tv_nsec / 1e9;
}

static void
sleep_ms(int ms)
{
	struct timespec pause = {.tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L};

	nanosleep(&pause, NULL);
}

static void
work_path(const struct sandbox *sb, const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", sb->work_dir, name);
}

static int
write_text(const char *path, const char *text)
{
	int status = -1;
	FILE *file = fopen(path, "w");

	if (!file)
		goto end;
	if (fputs(text, file) >= 0)
		status = 0;
	if (fclose(file))
		status = -1;
end:
	return status;
}

static void
write_work_file(const struct sandbox *sb, const char *name, const char *format, ...)
{
	char path[PATH_MAX];
	char text[FSCT_TEXT_MAX];
	va_list args;

	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	work_path(sb, name, path, sizeof(path));
	write_text(path, text);
}

/* Returns the malloc'd content of path, or an empty string if it cannot be read. */
static char *
read_text(const char *path)
{
	char *text = NULL;
	size_t length = 0;
	FILE *file = fopen(path, "r");
	FILE *memory = open_memstream(&text, &length);
	char buffer[4096];
	size_t got;

	while (file && memory && (got = fread(buffer, 1, sizeof(buffer), file)) > 0)
		fwrite(buffer, 1, got, memory);
	if (memory)
		fclose(memory);
	if (file)
		fclose(file);
	return text ? text : strdup("");
}

static int
read_link(const char *path, char *target, size_t size)
{
	ssize_t length = readlink(path, target, size - 1);

	if (length < 0)
		return -1;
	target[length] = '\0';
	return 0;
}

/* Running and not a zombie. */
static bool
is_running(pid_t pid)
{
	char path[64];
	char stat[512];
	const char *state;
	FILE *file;
	size_t got = 0;

	if (pid <= 0 || kill(pid, 0))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long) pid);
	file = fopen(path, "r");
	if (file) {
		got = fread(stat, 1, sizeof(stat) - 1, file);
		fclose(file);
	}
	stat[got] = '\0';
	state = strrchr(stat, ')');
	return !state || state[1] != ' ' || state[2] != 'Z';
}

/* Calls visit for every LTTng process (command name lttng-*) in the sandbox's mount namespace. */
static void
visit_lttng_processes(struct sandbox *sb, process_visitor visit, void *data)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;

	while (proc && (entry = readdir(proc))) {
		char path[PATH_MAX];
		char name[64] = "";
		char ns[64];
		pid_t pid = (pid_t) strtol(entry->d_name, NULL, 10);
		FILE *file;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/mnt", (long) pid);
		if (read_link(path, ns, sizeof(ns)) || strcmp(ns, sb->mount_ns))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", (long) pid);
		file = fopen(path, "r");
		if (!file)
			continue;
		if (!fgets(name, sizeof(name), file))
			name[0] = '\0';
		fclose(file);
		name[strcspn(name, "\n")] = '\0';
		if (!strncmp(name, "lttng-", 6) && is_running(pid))
			visit(sb, pid, name, data);
	}
	if (proc)
		closedir(proc);
}

static void
remember_daemon(struct sandbox *sb, pid_t pid, const char *name, void *data)
{
	(void) data;
	if (pid == sb->own_daemons[0] || pid == sb->own_daemons[1] ||
	    (strcmp(name, "lttng-sessiond") && strcmp(name, "lttng-relayd")))
		return;
	for (size_t i = 0; i < sb->seen_count; i++)
		if (sb->seen[i].pid == pid)
			return;
	if (sb->seen_count == FSCT_MAX_DAEMONS)
		return;
	sb->seen[sb->seen_count].pid = pid;
	snprintf(sb->seen[sb->seen_count].name, sizeof(sb->seen[0].name), "%s", name);
	sb->seen_count++;
}

static void
append_process(struct sandbox *sb, pid_t pid, const char *name, void *data)
{
	char *text = data;
	size_t length = strlen(text);

	(void) sb;
	snprintf(text + length, FSCT_TEXT_MAX - length, "%ld %s\n", (long) pid, name);
}

static void
keep_pid(struct sandbox *sb, pid_t pid, const char *name, void *data)
{
	(void) sb;
	if (!strcmp(name, "lttng-relayd"))
		*(pid_t *) data = pid;
}

static void
kill_process(struct sandbox *sb, pid_t pid, const char *name, void *data)
{
	(void) sb;
	(void) name;
	(void) data;
	kill(pid, SIGKILL);
}

static int
enter_user_namespace(void)
{
	int status = -1;
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET))
		goto end;
	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long) uid, (unsigned long) uid);
	if (write_text("/proc/self/uid_map", map))
		goto end;
	if (write_text("/proc/self/setgroups", "deny") && errno != ENOENT)
		goto end;
	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long) gid, (unsigned long) gid);
	if (write_text("/proc/self/gid_map", map))
		goto end;
	status = 0;
end:
	return status;
}

static int
bring_loopback_up(void)
{
	int status = -1;
	struct ifreq request;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(&request, 0, sizeof(request));
	snprintf(request.ifr_name, sizeof(request.ifr_name), "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &request))
		goto end;
	request.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &request))
		goto end;
	status = 0;
end:
	if (fd >= 0)
		close(fd);
	return status;
}

/*
 * Root: a mount and a network namespace hide the system-wide daemon's sockets, shared memory
 * and ports. Not root: the same inside a user namespace; where user namespaces are not allowed
 * the sandbox carries on without them, as `record` keeps a user's daemon private anyway.
 */
static int
sandbox_isolate(const struct sandbox *sb)
{
	int status = -1;
	bool is_root = geteuid() == 0;

	if (is_root ? unshare(CLONE_NEWNS | CLONE_NEWNET) : enter_user_namespace()) {
		if (is_root)
			write_work_file(sb, "setup-error", "unshare: %s", strerror(errno));
		status = is_root ? -1 : 0;
		goto end;
	}
	if (is_root && mkdir(FSCT_ROOT_RUNDIR, 0755) && errno != EEXIST) {
		write_work_file(sb, "setup-error", "mkdir " FSCT_ROOT_RUNDIR ": %s",
				strerror(errno));
		goto end;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (!access(FSCT_ROOT_RUNDIR, F_OK) &&
	     mount("tmpfs", FSCT_ROOT_RUNDIR, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")) ||
	    mount("tmpfs", FSCT_SHM_DIR, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") ||
	    bring_loopback_up()) {
		write_work_file(sb, "setup-error", "private mounts or loopback: %s",
				strerror(errno));
		goto end;
	}
	status = 0;
end:
	return status;
}

/* Forks and executes argv (PATH lookup) with stdout and stderr to the given work files. */
static pid_t
sandbox_spawn(const struct sandbox *sb, const char *path, const char *const *argv,
	      const char *out_name, const char *err_name)
{
	char out_path[PATH_MAX];
	char err_path[PATH_MAX];
	pid_t parent = getpid();
	pid_t pid;
	sigset_t none;

	work_path(sb, out_name, out_path, sizeof(out_path));
	work_path(sb, err_name, err_path, sizeof(err_path));
	pid = fork();
	if (pid != 0)
		return pid;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent || chdir(sb->work_dir))
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (!freopen("/dev/null", "r", stdin) || !freopen(out_path, "a", stdout) ||
	    !freopen(err_path, "a", stderr))
		_exit(127);
	execvp(path, (char *const *) argv);
	_exit(127);
}

static int
wait_status_to_exit(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	return WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : -1;
}

static int
run_to_end(const struct sandbox *sb, const char *const *argv, const char *out_name)
{
	pid_t pid = sandbox_spawn(sb, argv[0], argv, out_name, out_name);
	int wait_status = 0;

	if (pid < 0 || waitpid(pid, &wait_status, 0) != pid)
		return -1;
	return wait_status_to_exit(wait_status);
}

static pid_t
read_pid_file(const char *path)
{
	char *text = read_text(path);
	pid_t pid = (pid_t) strtol(text, NULL, 10);

	free(text);
	return pid;
}

static int
start_own_sessiond(struct sandbox *sb)
{
	int status = -1;
	const char *const argv[] = {"lttng-sessiond", "--daemonize", "--no-kernel", NULL};
	char pid_path[PATH_MAX];

	if (run_to_end(sb, argv, "own-sessiond.log")) {
		write_work_file(sb, "setup-error", "the sandbox's lttng-sessiond did not start");
		goto end;
	}
	if (geteuid() == 0)
		snprintf(pid_path, sizeof(pid_path), FSCT_ROOT_RUNDIR "/lttng-sessiond.pid");
	else
		snprintf(pid_path, sizeof(pid_path), "%s/home/.lttng/lttng-sessiond.pid",
			 sb->work_dir);
	sb->own_daemons[0] = read_pid_file(pid_path);
	if (sb->own_daemons[0] > 0)
		status = 0;
end:
	return status;
}

/* lttng-relayd writes no pid file: it is the one relay daemon of the sandbox. */
static int
start_own_relayd(struct sandbox *sb)
{
	int status = -1;
	char output_arg[PATH_MAX + 16];
	const char *argv[16] = {"lttng-relayd", "--daemonize", output_arg};
	size_t argc = 3;

	for (size_t i = 0; sb->options->relayd_args && sb->options->relayd_args[i] &&
			   argc + 1 < sizeof(argv) / sizeof(argv[0]);
	     i++)
		argv[argc++] = sb->options->relayd_args[i];
	argv[argc] = NULL;
	snprintf(output_arg, sizeof(output_arg), "--output=%s/relay", sb->work_dir);
	if (run_to_end(sb, argv, "own-relayd.log")) {
		write_work_file(sb, "setup-error", "the sandbox's lttng-relayd did not start");
		goto end;
	}
	visit_lttng_processes(sb, keep_pid, &sb->own_daemons[1]);
	if (sb->own_daemons[1] > 0)
		status = 0;
end:
	return status;
}

static void
stop_pid(pid_t pid)
{
	double deadline = now_s() + FSCT_STOP_S;

	kill(pid, SIGTERM);
	while (is_running(pid) && now_s() < deadline)
		sleep_ms(FSCT_POLL_MS);
	kill(pid, SIGKILL);
}

/* Starts options->second_args; its output goes to the second-* files. */
static void
start_second(struct sandbox *sb)
{
	const char *argv[64] = {"fencescope"};
	size_t argc = 1;

	for (; sb->options->second_args[argc - 1] && argc + 1 < sizeof(argv) / sizeof(argv[0]);
	     argc++)
		argv[argc] = sb->options->second_args[argc - 1];
	argv[argc] = NULL;
	sb->second = sandbox_spawn(sb, FS_FENCESCOPE, argv, "second-out", "second-err");
}

/* Whether the second run has ended (waiting up to timeout_s with is_waiting); its exit status
 * goes to the second-status file. */
static bool
has_second_ended(struct sandbox *sb, bool is_waiting)
{
	double deadline = now_s() + (is_waiting ? sb->options->timeout_s : 0);
	int wait_status = 0;

	if (sb->second <= 0)
		return true;
	for (;;) {
		visit_lttng_processes(sb, remember_daemon, NULL);
		if (waitpid(sb->second, &wait_status, WNOHANG) == sb->second) {
			write_work_file(sb, "second-status", "%d",
					wait_status_to_exit(wait_status));
			sb->second = -1;
			return true;
		}
		if (now_s() >= deadline)
			break;
		sleep_ms(FSCT_POLL_MS);
	}
	if (is_waiting) {
		kill(sb->second, SIGKILL);
		waitpid(sb->second, NULL, 0);
		write_work_file(sb, "second-status", "-1");
		sb->second = -1;
	}
	return false;
}

static void
count_others(struct sandbox *sb, pid_t pid, const char *name, void *data)
{
	(void) name;
	if (pid != sb->own_daemons[0] && pid != sb->own_daemons[1])
		(*(int *) data)++;
}

/* Waits up to options->settle_s for the LTTng processes other than the sandbox's to end. */
static void
settle(struct sandbox *sb)
{
	double deadline = now_s() + sb->options->settle_s;

	while (now_s() < deadline) {
		int count = 0;

		visit_lttng_processes(sb, count_others, &count);
		if (!count)
			break;
		sleep_ms(FSCT_POLL_MS);
	}
}

/* Runs `record` to its end (or the timeout), watching daemons and sending the signal. */
static int
watch_record(struct sandbox *sb, pid_t record)
{
	const struct fsct_sandbox_options *options = sb->options;
	double deadline = now_s() + options->timeout_s;
	double signalled_at = 0;
	char ready_path[PATH_MAX];
	char second_ready_path[PATH_MAX];
	char out_path[PATH_MAX];
	struct stat info;
	int wait_status = 0;

	work_path(sb, FSCT_READY_FILE, ready_path, sizeof(ready_path));
	work_path(sb, FSCT_SECOND_READY_FILE, second_ready_path, sizeof(second_ready_path));
	work_path(sb, "out", out_path, sizeof(out_path));
	while (waitpid(record, &wait_status, WNOHANG) != record) {
		visit_lttng_processes(sb, remember_daemon, NULL);
		if (options->signal_on_ready && !signalled_at && !access(ready_path, F_OK)) {
			kill(record, options->signal_on_ready);
			signalled_at = now_s();
		}
		/* The first `record` ends once the second one's program runs (or it ended). */
		if (options->second_args && !sb->has_started_second && !access(ready_path, F_OK)) {
			sb->has_started_second = true;
			start_second(sb);
		}
		if (options->second_args && !access(ready_path, F_OK) &&
		    (!access(second_ready_path, F_OK) || has_second_ended(sb, false)))
			write_work_file(sb, FSCT_DONE_FILE, "");
		if (signalled_at && ((!stat(out_path, &info) && info.st_size > 0) ||
				     now_s() > signalled_at + FSCT_DONE_AFTER_S))
			write_work_file(sb, FSCT_DONE_FILE, "");
		if (now_s() > deadline) {
			kill(record, SIGKILL);
			waitpid(record, NULL, 0);
			return -1;
		}
		sleep_ms(FSCT_POLL_MS);
	}
	return wait_status_to_exit(wait_status);
}

/* Waits up to options->timeout_s for options->stop_after_file in the work directory. */
static void
wait_for_stop_file(const struct sandbox *sb)
{
	double deadline = now_s() + sb->options->timeout_s;
	char path[PATH_MAX];

	if (!sb->options->stop_after_file)
		return;
	work_path(sb, sb->options->stop_after_file, path, sizeof(path));
	while (access(path, F_OK) && now_s() < deadline)
		sleep_ms(FSCT_POLL_MS);
}

static void
report_after_record(struct sandbox *sb)
{
	const char *const list_argv[] = {"lttng", "list", NULL};
	char text[FSCT_TEXT_MAX] = "";
	size_t length = 0;

	for (size_t i = 0; i < sb->seen_count; i++)
		length += (size_t) snprintf(text + length, sizeof(text) - length, "%ld %s\n",
					    (long) sb->seen[i].pid, sb->seen[i].name);
	write_work_file(sb, "seen", "%s", text);
	run_to_end(sb, list_argv, "list");
	write_work_file(sb, "daemons", "%s",
			(sb->own_daemons[0] <= 0 || is_running(sb->own_daemons[0])) &&
				(sb->own_daemons[1] <= 0 || is_running(sb->own_daemons[1]))
			    ? "alive"
			    : "gone");
	for (size_t i = 0; i < 2; i++)
		if (sb->own_daemons[i] > 0)
			stop_pid(sb->own_daemons[i]);
	text[0] = '\0';
	visit_lttng_processes(sb, append_process, text);
	write_work_file(sb, "leftovers", "%s", text);
	visit_lttng_processes(sb, kill_process, NULL);
}

static _Noreturn void
sandbox_main(const struct fsct_sandbox_options *options, const char *work_dir)
{
	struct sandbox sb = {
	    .options = options, .work_dir = work_dir, .own_daemons = {-1, -1}, .second = -1};
	const char *argv[64] = {"fencescope"};
	char home[PATH_MAX];
	size_t argc = 1;
	pid_t record;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || sandbox_isolate(&sb) ||
	    read_link("/proc/self/ns/mnt", sb.mount_ns, sizeof(sb.mount_ns)))
		_exit(1);
	snprintf(home, sizeof(home), "%s/home", work_dir);
	setenv("LTTNG_HOME", home, 1);
	if (options->small_tmpfs_size) {
		char small[PATH_MAX], mount_options[64];

		snprintf(small, sizeof(small), "%s/small", work_dir);
		snprintf(mount_options, sizeof(mount_options), "size=%s",
			 options->small_tmpfs_size);
		if ((mkdir(small, 0755) && errno != EEXIST) ||
		    mount("tmpfs", small, "tmpfs", 0, mount_options)) {
			write_work_file(&sb, "setup-error", "tmpfs on %s: %s", small,
					strerror(errno));
			_exit(1);
		}
	}
	if ((options->has_sessiond && start_own_sessiond(&sb)) ||
	    (options->has_relayd && start_own_relayd(&sb)))
		_exit(1);
	for (; options->args[argc - 1] && argc + 1 < sizeof(argv) / sizeof(argv[0]); argc++)
		argv[argc] = options->args[argc - 1];
	argv[argc] = NULL;
	record = sandbox_spawn(&sb, FS_FENCESCOPE, argv, "out", "err");
	write_work_file(&sb, "status", "%d", record < 0 ? -1 : watch_record(&sb, record));
	has_second_ended(&sb, true);
	wait_for_stop_file(&sb);
	settle(&sb);
	report_after_record(&sb);
	_exit(0);
}

static int
remove_entry(const char *path, const struct stat *info, int type, struct FTW *walk)
{
	(void) info;
	(void) type;
	(void) walk;
	remove(path);
	return 0;
}

static char *
read_work_file(const char *work_dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", work_dir, name);
	return read_text(path);
}

static void
outcome_read(struct fsct_outcome *outcome)
{
	char *status = read_work_file(outcome->work_dir, "status");
	char *daemons = read_work_file(outcome->work_dir, "daemons");

	char *second_status = read_work_file(outcome->work_dir, "second-status");

	outcome->exit_status = status[0] ? (int) strtol(status, NULL, 10) : -1;
	outcome->second_exit_status = second_status[0] ? (int) strtol(second_status, NULL, 10) : -1;
	free(second_status);
	outcome->second_out = read_work_file(outcome->work_dir, "second-out");
	outcome->second_err = read_work_file(outcome->work_dir, "second-err");
	outcome->out = read_work_file(outcome->work_dir, "out");
	outcome->err = read_work_file(outcome->work_dir, "err");
	outcome->seen_daemons = read_work_file(outcome->work_dir, "seen");
	outcome->leftovers = read_work_file(outcome->work_dir, "leftovers");
	outcome->session_list = read_work_file(outcome->work_dir, "list");
	outcome->have_daemons_survived = !strcmp(daemons, "alive");
	free(status);
	free(daemons);
}

/* Waits for the sandbox; kills it if it outlives the timeout and its own clean-up. */
static void
wait_for_sandbox(pid_t pid, int timeout_s)
{
	double deadline = now_s() + timeout_s + FSCT_GRACE_S;

	while (waitpid(pid, NULL, WNOHANG) != pid) {
		if (now_s() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return;
		}
		sleep_ms(FSCT_POLL_MS);
	}
}

int
fsct_record_in_sandbox(const struct fsct_sandbox_options *options, struct fsct_outcome *outcome)
{
	char work_dir[] = FSCT_WORK_TEMPLATE;
	char home[sizeof(work_dir) + 8];
	pid_t pid;

	memset(outcome, 0, sizeof(*outcome));
	outcome->exit_status = -1;
	if (!mkdtemp(work_dir))
		return -1;
	/* Readable by a user the test may run `record` as, like the trace readers. */
	chmod(work_dir, 0755);
	snprintf(home, sizeof(home), "%s/home", work_dir);
	mkdir(home, 0700);
	outcome->work_dir = strdup(work_dir);
	pid = fork();
	if (pid == 0)
		sandbox_main(options, work_dir);
	if (pid > 0)
		wait_for_sandbox(pid, options->timeout_s);
	outcome_read(outcome);
	outcome->setup_error = read_work_file(work_dir, "setup-error");
	if (pid < 0 && !outcome->setup_error[0]) {
		free(outcome->setup_error);
		outcome->setup_error = strdup("fork failed");
	}
	return outcome->setup_error[0] ? -1 : 0;
}

void
fsct_outcome_clear(struct fsct_outcome *outcome)
{
	if (outcome->work_dir)
		nftw(outcome->work_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(outcome->work_dir);
	free(outcome->out);
	free(outcome->err);
	free(outcome->seen_daemons);
	free(outcome->leftovers);
	free(outcome->session_list);
	free(outcome->setup_error);
	free(outcome->second_out);
	free(outcome->second_err);
	memset(outcome, 0, sizeof(*outcome));
}

char *
fsct_dup_last_line(const char *text)
{
	size_t end = strlen(text);
	size_t begin;

	while (end > 0 && text[end - 1] == '\n')
		end--;
	begin = end;
	while (begin > 0 && text[begin - 1] != '\n')
		begin--;
	return strndup(text + begin, end - begin);
}
