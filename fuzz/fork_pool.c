/* See fork_pool.h. */
/* MAP_ANONYMOUS is not POSIX */
#define _DEFAULT_SOURCE
#include "fuzz/fork_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ir/util.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAKED() (__lsan_do_recoverable_leak_check() != 0)
#else
#define LEAKED() false
#endif

volatile sig_atomic_t fork_pool_stop;

static void on_stop(int sig) {
  (void)sig;
  fork_pool_stop = 1;
}

double fork_pool_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool fork_pool_open(ForkPool *p, int jobs, size_t slot_size, const char *stderr_prefix) {
  memset(p, 0, sizeof *p);
  p->jobs = jobs < 1 ? 1 : jobs > FORK_POOL_MAX_JOBS ? FORK_POOL_MAX_JOBS : jobs;
  p->slot_size = slot_size;
  p->slots = mmap(NULL, slot_size * (size_t)p->jobs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p->slots == MAP_FAILED) {
    perror("mmap");
    p->slots = NULL;
    return false;
  }
  for (int j = 0; j < p->jobs; j++) snprintf(p->stderr_path[j], sizeof p->stderr_path[j], "%s.%d", stderr_prefix, j);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop; /* no SA_RESTART: wait() returns EINTR */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  return true;
}

void fork_pool_close(ForkPool *p) {
  for (int j = 0; j < p->jobs; j++) unlink(p->stderr_path[j]);
  if (p->slots) munmap(p->slots, p->slot_size * (size_t)p->jobs);
  p->slots = NULL;
}

void *fork_pool_slot(const ForkPool *p, int job) { return p->slots + p->slot_size * (size_t)job; }

bool fork_pool_start(ForkPool *p, int job, int timeout, int (*run)(void *ctx, void *slot), void *ctx) {
  fflush(stdout); /* or the child prints the parent's buffer again */
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return false;
  }
  if (!pid) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    setpgid(0, 0); /* a timeout kills the case's compilers too */
    int fd = open(p->stderr_path[job], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) dup2(fd, 2), close(fd);
    /* CPU seconds, not wall: a loaded machine stretches a case, never its
     * CPU time, so only a real hang is "timed out" (SIGXCPU; the hard limit
     * a second later kills one that ignores it) */
    struct rlimit cpu = {(rlim_t)timeout, (rlim_t)timeout + 1};
    setrlimit(RLIMIT_CPU, &cpu);
    int rc = run(ctx, fork_pool_slot(p, job));
    _exit(LEAKED() ? FORK_POOL_LEAK_EXIT : rc);
  }
  p->pid[job] = pid;
  p->start[job] = fork_pool_now();
  return true;
}

bool fork_pool_busy(const ForkPool *p) {
  for (int j = 0; j < p->jobs; j++)
    if (p->pid[j]) return true;
  return false;
}

int fork_pool_reap(ForkPool *p, int *status) {
  for (;;) {
    pid_t pid = wait(status);
    if (pid < 0) return errno == EINTR ? -1 : (perror("wait"), -2);
    for (int j = 0; j < p->jobs; j++)
      if (p->pid[j] == pid) {
        kill(-pid, SIGKILL); /* leftovers of a case that timed out */
        p->pid[j] = 0;
        return j;
      }
  }
}

void fork_pool_kill_all(ForkPool *p) {
  for (int j = 0; j < p->jobs; j++)
    if (p->pid[j]) {
      kill(-p->pid[j], SIGKILL);
      kill(p->pid[j], SIGKILL); /* before it made its group */
      waitpid(p->pid[j], NULL, 0);
      p->pid[j] = 0;
    }
}

void fork_pool_how(int status, char *how, size_t n) {
  if (WIFSIGNALED(status))
    snprintf(how, n, "%s", WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL ? "timed out (CPU time)" : strsignal(WTERMSIG(status)));
  else if (WEXITSTATUS(status) == FORK_POOL_LEAK_EXIT)
    snprintf(how, n, "memory leaked");
  else
    snprintf(how, n, "exit status %d", WEXITSTATUS(status));
}

char *fork_pool_stderr(const ForkPool *p, int job) {
  size_t n;
  char *t = read_file(p->stderr_path[job], &n);
  return t ? t : strdup("");
}
