/* spawn_shim: the last step before an untrusted program starts (built by the agent).
 *
 * Why it exists: os.fork() of the Python agent costs ~10 ms on these VMs (page-table copy
 * and copy-on-write faults), ten times a vfork-based posix_spawn. The agent therefore
 * posix_spawn()s this tiny static program, which does what must happen between fork and
 * exec and then execs the target:
 *
 *   spawn_shim CWD UID GID SECCOMP_HEX CGROUP_PROCS NRLIMITS [RES SOFT HARD]... -- PROG ARGS...
 *
 * fd 0/1/2 are the run's stdin/stdout/stderr, fd 3 is the report pipe. UID/GID -1 keep
 * ours; SECCOMP_HEX "-" means no filter (a classic BPF sock_filter array built by
 * sandboxes/runner/seccomp.py). CGROUP_PROCS: ':'-separated files (v1 tasks, v2
 * cgroup.procs) of the run's control group (sandboxes/runner/cgroup.py), "-" for none; the grandchild moves
 * itself there first, while it still has the rights to, so the program's every
 * instruction and every page it touches are accounted to the run.
 *
 * The shim starts a new session, closes other fds, chdirs, then forks once more. Why: a
 * process's peak-RSS accounting (ru_maxrss) keeps the largest address space it ever had,
 * and a child of the big Python agent starts out with the agent's; a grandchild of this
 * tiny static program starts near zero, so the reported peak is the program's own.
 * The grandchild joins the run's cgroup, clears inheritable caps, drops groups/gid/uid, sets no_new_privs and a
 * parent-death signal, installs seccomp, sets rlimits and execs the program. The shim
 * (still the agent's uid, so the run can neither signal nor ptrace it) waits for it and
 * reports on fd 3, one line each:
 *   P <pid>                                      the program's pid (for CPU polling)
 *   E <message>                                  setup failed (a sandbox error, exit 127)
 *   R <wait status> <utime us> <stime us> <maxrss KiB>   after the program ended
 *
 * Server mode (``spawn_shim --serve SECCOMP_HEX``, fd 3 a SOCK_SEQPACKET socket): the same
 * steps without an exec of the shim per run. Why: an exec costs about 0.4 ms on these VMs,
 * and a run through the one-shot shim pays two (shim, program). The server is started once
 * per agent, sets no_new_privs and installs the seccomp filter on itself once (children
 * inherit both), and then, for each request (one datagram: the NUL-separated fields of the
 * one-shot argv from CWD on, with SECCOMP "-", then the environment; SCM_RIGHTS: stdin,
 * stdout, stderr, report pipe), forks a child that starts a new session, takes the fds,
 * chdirs and continues exactly like the one-shot grandchild. The server itself (a small
 * static process, so the child's peak RSS starts near zero too) writes P and R lines on
 * that run's report pipe and closes it: R then means the program's main process has ended.
 * It serves one run at a time (the agent is single-threaded) and exits at EOF; its
 * parent-death signal ends it with the agent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void fail(const char *what) {
    char msg[512];
    int n = snprintf(msg, sizeof msg, "E spawn_shim: %s: %s\n", what, strerror(errno));
    if (n > 0) {
        ssize_t w = write(3, msg, (size_t)n);
        (void)w;
    }
    _exit(127);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static void install_seccomp(const char *hex) {
    size_t len = strlen(hex);
    if (len == 0 || len % 16 != 0) { errno = EINVAL; fail("seccomp filter length"); }
    size_t nbytes = len / 2;
    unsigned char *buf = malloc(nbytes);
    if (!buf) fail("malloc");
    for (size_t i = 0; i < nbytes; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) { errno = EINVAL; fail("seccomp filter hex"); }
        buf[i] = (unsigned char)(hi * 16 + lo);
    }
    struct sock_fprog prog = { .len = (unsigned short)(nbytes / sizeof(struct sock_filter)),
                               .filter = (struct sock_filter *)buf };
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) fail("seccomp");
}

static void join_cgroups(char *list) {
    if (strcmp(list, "-") == 0) return;
    /* "0": this very thread (we are single-threaded, just forked); see cgroup.py. */
    const char pid[] = "0";
    int n = 1;
    for (char *save = NULL, *path = strtok_r(list, ":", &save); path; path = strtok_r(NULL, ":", &save)) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) fail("open cgroup.procs");
        if (write(fd, pid, (size_t)n) != n) fail("join cgroup");
        close(fd);
    }
}

static void close_other_fds(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4U, ~0U, 0U) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 1 << 20) max = 1 << 16;
    for (long fd = 4; fd < max; fd++) close((int)fd);
}

/* The last steps in the process that becomes the program (fd 3: the report pipe, CLOEXEC):
 * join the run's cgroup, clear inheritable caps, drop groups/gid/uid, no_new_privs,
 * parent-death signal, default signals, seccomp (NULL: none here), rlimits, exec. */
static void become_run(long uid, long gid, char *cgroup_procs, const char *filter, int nrl,
                       char **lims, char **prog, char **envp) {
    if (fcntl(3, F_SETFD, FD_CLOEXEC) != 0) fail("report pipe");
    join_cgroups(cgroup_procs);
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct caps[2];
    if (syscall(SYS_capget, &hdr, caps) == 0 && (caps[0].inheritable || caps[1].inheritable)) {
        caps[0].inheritable = caps[1].inheritable = 0;
        if (syscall(SYS_capset, &hdr, caps) != 0) fail("capset");
    }
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0) fail("setgroups");
        if (setgid((gid_t)(gid >= 0 ? gid : uid)) != 0) fail("setgid");
        if (setuid((uid_t)uid) != 0) fail("setuid");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("pdeathsig");
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) fail("dumpable");
    /* Ignored signals stay ignored across exec (Python ignores SIGPIPE and SIGXFSZ):
     * give the program default dispositions and an empty mask. The server reset every
     * signal once at its start and ignores only SIGPIPE since (NULL filter: server child). */
    if (filter) {
        for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
    } else {
        signal(SIGPIPE, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (filter && strcmp(filter, "-") != 0) install_seccomp(filter);
    for (int k = 0; k < nrl; k++) {
        int res = atoi(lims[3 * k]);
        struct rlimit rl = { (rlim_t)strtoull(lims[3 * k + 1], NULL, 10),
                             (rlim_t)strtoull(lims[3 * k + 2], NULL, 10) };
        if (setrlimit(res, &rl) != 0) fail("setrlimit");
    }
    execve(prog[0], prog, envp);
    fail("execve");
}

#define MAX_REQUEST (1 << 18)
#define MAX_FIELDS 4096

static void report(int fd, const char *line, int n) {
    if (n > 0 && write(fd, line, (size_t)n) < 0) { /* the agent gave up on this run */ }
}

/* One request: fork the program's process, report its pid, wait for it, report its end. */
static void serve_one(char *buf, size_t len, int fds[4]) {
    static char *fields[MAX_FIELDS + 1], *envp[MAX_FIELDS + 1];
    int nf = 0;
    for (size_t at = 0; at < len && nf < MAX_FIELDS; at += strlen(buf + at) + 1) fields[nf++] = buf + at;
    char line[160];
    /* fields: NHEAD CWD UID GID SECCOMP CGROUP_PROCS NRLIMITS [RES SOFT HARD]... -- PROG ARGS...,
     * then the environment; NHEAD counts the fields before the environment (itself included). */
    int nhead = nf > 0 ? atoi(fields[0]) : 0;
    int nrl = nf > 6 ? atoi(fields[6]) : -1;
    if (nhead > nf || nrl < 0 || 7 + 3 * nrl + 1 >= nhead || strcmp(fields[7 + 3 * nrl], "--") != 0) {
        report(fds[3], line, snprintf(line, sizeof line, "E spawn server: malformed request\n"));
        return;
    }
    int ne = 0;
    for (int k = nhead; k < nf; k++) envp[ne++] = fields[k];
    envp[ne] = NULL;
    fields[nhead] = NULL;  /* ends the program's argv */
    char **prog = fields + 7 + 3 * nrl + 1;
    pid_t child = fork();
    if (child < 0) {
        report(fds[3], line, snprintf(line, sizeof line, "E spawn server: fork: %s\n", strerror(errno)));
        return;
    }
    if (child == 0) {
        /* fds >= 4 (received with CLOEXEC): move them to 0-3, which also drops the control socket. */
        if (dup2(fds[0], 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[2], 2) < 0 || dup2(fds[3], 3) < 0) _exit(127);
        close_other_fds();
        if (setsid() < 0) fail("setsid");
        if (chdir(fields[1]) != 0) fail("chdir");
        become_run(strtol(fields[2], NULL, 10), strtol(fields[3], NULL, 10), fields[5], NULL, nrl,
                   fields + 7, prog, envp);
        _exit(127);
    }
    report(fds[3], line, snprintf(line, sizeof line, "P %d\n", (int)child));
    int status;
    struct rusage ru;
    pid_t w;
    do {
        w = wait4(child, &status, 0, &ru);
    } while (w < 0 && errno == EINTR);
    if (w < 0) {
        report(fds[3], line, snprintf(line, sizeof line, "E spawn server: wait4: %s\n", strerror(errno)));
        return;
    }
    report(fds[3], line, snprintf(line, sizeof line, "R %d %lld %lld %ld\n", status,
                                  (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
                                  (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec, ru.ru_maxrss));
}

static int serve(const char *filter) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("pdeathsig");
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) fail("dumpable");
    for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);  /* once, for every child */
    signal(SIGPIPE, SIG_IGN);  /* a report pipe the agent closed must not end the server */
    /* Once for every run: children inherit no_new_privs and the filter (setuid in a child
     * still works: neither limits it). */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
    if (strcmp(filter, "-") != 0) install_seccomp(filter);
    static char buf[MAX_REQUEST + 1];
    for (;;) {
        char cbuf[CMSG_SPACE(4 * sizeof(int))];
        struct iovec iov = { buf, MAX_REQUEST };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                              .msg_controllen = sizeof cbuf };
        ssize_t n = recvmsg(3, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;  /* the agent closed its end: done */
        int fds[4] = { -1, -1, -1, -1 }, nfds = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int got = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                for (int k = 0; k < got; k++) {
                    int fd;
                    memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
                    if (nfds < 4) fds[nfds++] = fd; else close(fd);
                }
            }
        }
        if (nfds == 4) {
            buf[n] = 0;
            if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
                char line[80];
                report(fds[3], line, snprintf(line, sizeof line, "E spawn server: request too large\n"));
            } else {
                serve_one(buf, (size_t)n, fds);
            }
        }
        for (int k = 0; k < nfds; k++) close(fds[k]);
    }
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--serve") == 0) return serve(argc > 2 ? argv[2] : "-");
    if (argc < 8) { errno = EINVAL; fail("usage: CWD UID GID SECCOMP CGROUP_PROCS NRLIMITS [RES SOFT HARD]... -- PROG ARGS"); }
    const char *cwd = argv[1];
    long uid = strtol(argv[2], NULL, 10), gid = strtol(argv[3], NULL, 10);
    const char *filter = argv[4];
    char *cgroup_procs = argv[5];
    int nrl = atoi(argv[6]);
    int i = 7;
    if (nrl < 0 || argc < i + 3 * nrl + 2) { errno = EINVAL; fail("rlimit arguments"); }
    int lim_at = i;
    i += 3 * nrl;
    if (strcmp(argv[i], "--") != 0) { errno = EINVAL; fail("missing --"); }
    char **prog = argv + i + 1;

    if (setsid() < 0) fail("setsid");
    close_other_fds();
    if (chdir(cwd) != 0) fail("chdir");
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("pdeathsig");
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) fail("dumpable");

    pid_t child = fork();
    if (child < 0) fail("fork");
    if (child > 0) {
        char line[128];
        int n = snprintf(line, sizeof line, "P %d\n", (int)child);
        if (write(3, line, (size_t)n) < 0) { /* the agent went away: nothing to report to */ }
        close(0);
        close(1);
        close(2);
        int status;
        struct rusage ru;
        pid_t w;
        do {
            w = wait4(child, &status, 0, &ru);
        } while (w < 0 && errno == EINTR);
        if (w < 0) fail("wait4");
        n = snprintf(line, sizeof line, "R %d %lld %lld %ld\n", status,
                     (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
                     (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec, ru.ru_maxrss);
        if (write(3, line, (size_t)n) < 0) { /* as above */ }
        _exit(0);
    }

    become_run(uid, gid, cgroup_procs, filter, nrl, argv + lim_at, prog, environ);
    return 127;
}
