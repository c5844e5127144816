/* A program that runs itself again through its /proc "exe" link, as
   Chromium, runc and many daemons do, in every way Linux offers: the
   links /proc/self/exe, /proc/<pid>/exe and /proc/thread-self/exe, the
   link opened relative to /proc/self, execveat with AT_EMPTY_PATH and
   fexecve on a descriptor opened on it, and /proc/self/fd/N.  The copy
   started says whether it runs under Valgrind: with --trace-children=yes
   it must, without it it must not. */

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "valgrind.h"

extern char **environ;

static int do_execveat(int dirfd, const char *path, char **argv, int flags)
{
#if defined(__NR_execveat)
   return syscall(__NR_execveat, dirfd, path, argv, environ, flags);
#else
   return -1;
#endif
}

static void run_again(const char *how, char **argv)
{
   char path[64];
   int fd;

   if (strcmp(how, "/proc/self/exe") == 0
       || strcmp(how, "/proc/thread-self/exe") == 0) {
      execv(how, argv);
   } else if (strcmp(how, "/proc/<pid>/exe") == 0) {
      snprintf(path, sizeof path, "/proc/%d/exe", (int)getpid());
      execv(path, argv);
   } else if (strcmp(how, "execveat(/proc/self, exe)") == 0) {
      fd = open("/proc/self", O_PATH | O_DIRECTORY);
      do_execveat(fd, "exe", argv, 0);
   } else if (strcmp(how, "execveat(fd, AT_EMPTY_PATH)") == 0) {
      fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
      do_execveat(fd, "", argv, AT_EMPTY_PATH);
   } else if (strcmp(how, "fexecve") == 0) {
      fd = open("/proc/self/exe", O_RDONLY);
      fexecve(fd, argv, environ);
   } else if (strcmp(how, "/proc/self/fd/N") == 0) {
      fd = open("/proc/self/exe", O_RDONLY);
      snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
      execv(path, argv);
   }
   perror(how);
   _exit(1);
}

int main(int argc, char **argv)
{
   static const char *const hows[] = {
      "/proc/self/exe",
      "/proc/<pid>/exe",
      "/proc/thread-self/exe",
      "execveat(/proc/self, exe)",
      "execveat(fd, AT_EMPTY_PATH)",
      "fexecve",
      "/proc/self/fd/N",
   };
   unsigned i;

   if (argc == 3 && strcmp(argv[1], "child") == 0) {
      printf("child started by %s %s Valgrind\n", argv[2],
             RUNNING_ON_VALGRIND ? "runs under" : "does not run under");
      return 0;
   }

   for (i = 0; i < sizeof hows / sizeof hows[0]; i++) {
      char *child_argv[] = { argv[0], "child", (char *)hows[i], NULL };
      int status;
      pid_t pid;

      fflush(stdout);
      pid = fork();
      if (pid == 0)
         run_again(hows[i], child_argv);
      if (pid < 0 || waitpid(pid, &status, 0) != pid) {
         perror("fork/waitpid");
         return 1;
      }
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
         printf("child started by %s failed (status 0x%x)\n", hows[i],
                status);
   }
   return 0;
}
