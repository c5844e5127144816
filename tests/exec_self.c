/* exec_self.c - runs itself again in a child through its /proc "exe"
   link, as Chromium, runc and many daemons do (integration_exec.cpp):

     exec_self WAY     forks; the child execs this program again by WAY
                       (self: /proc/self/exe, pid: /proc/<pid>/exe,
                       thread-self: /proc/thread-self/exe, dirfd:
                       execveat of "exe" relative to /proc/self, fexecve:
                       fexecve of /proc/self/exe opened), the parent
                       waits and prints "parent: child PID exit STATUS".
     exec_self child   prints "child: pid PID valgrind N" (N is
                       RUNNING_ON_VALGRIND). */

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <valgrind.h>

extern char** environ;

static void exec_again(const char* way, char** argv) {
    char path[64];
    if (strcmp(way, "self") == 0) {
        execv("/proc/self/exe", argv);
    } else if (strcmp(way, "pid") == 0) {
        snprintf(path, sizeof path, "/proc/%d/exe", (int)getpid());
        execv(path, argv);
    } else if (strcmp(way, "thread-self") == 0) {
        execv("/proc/thread-self/exe", argv);
    } else if (strcmp(way, "dirfd") == 0) {
        syscall(SYS_execveat, open("/proc/self", O_PATH | O_DIRECTORY), "exe", argv, environ, 0);
    } else if (strcmp(way, "fexecve") == 0) {
        fexecve(open("/proc/self/exe", O_RDONLY), argv, environ);
    } else {
        fprintf(stderr, "exec_self: unknown way %s\n", way);
        _exit(2);
    }
    perror(way);
    _exit(1);
}

int main(int argc, char** argv) {
    if (argc == 2 && strcmp(argv[1], "child") == 0) {
        printf("child: pid %d valgrind %u\n", (int)getpid(), (unsigned)RUNNING_ON_VALGRIND);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: exec_self self|pid|thread-self|dirfd|fexecve\n");
        return 2;
    }
    char* child_argv[] = {argv[0], "child", NULL};
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) exec_again(argv[1], child_argv);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        perror("exec_self: fork/waitpid");
        return 1;
    }
    printf("parent: child %d exit %d\n", (int)pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
