/* Regression test of the valgrind/jit.h client requests under a tool
   that reports nothing about the code (Nulgrind): what each request
   returns and its status (on stdout), the -v warning each refused
   request gets and the -v summary of the JIT code registry (on stderr,
   filtered by filter_jit_requests).

   Registered: a function, the same range again (it replaces the first),
   a second function, moved (unregistered, then registered at its new
   address), then everything dropped by one range.  Refused: a name
   longer than VG_JIT_MAX_STRING, ranges of size 0 and above
   VG_JIT_MAX_CODE_SIZE, an unreadable line table and one that is too
   long, a descriptor of a bad size, an unreadable object name and code
   over the program's own text; a name for memory that is not executable
   waits for it (and never sees it: -v lists it at exit).  A
   line table with an entry of line 0 registers the code without it. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../../include/valgrind.h"
#include "../../include/jit.h"

#define CODE_BYTES 4096

static void report ( const char* what, unsigned long r )
{
   printf("%s: %lu, status %d\n", what, r, (int)VALGRIND_JIT_LAST_ERROR());
}

/* Register, re-register over it, a second function, move it, then
   drop everything by one range. */
static void register_and_move ( unsigned char* code )
{
   report("register first", VALGRIND_JIT_REGISTER(code, 16, "first"));
   report("register first again",
          VALGRIND_JIT_REGISTER(code, 16, "first_again"));
   report("register second", VALGRIND_JIT_REGISTER(code + 64, 16, "second"));
   memcpy(code + 128, code + 64, 16);
   report("move second: unregister", VALGRIND_JIT_UNREGISTER(code + 64));
   report("move second: register",
          VALGRIND_JIT_REGISTER(code + 128, 16, "second"));
   report("unregister range", VALGRIND_JIT_UNREGISTER_RANGE(code, CODE_BYTES));
   report("unregister again", VALGRIND_JIT_UNREGISTER(code));
}

/* A name one byte too long (VG_JIT_ERR_BAD_NAME), then the longest. */
static void long_names ( unsigned char* code )
{
   char* long_name = malloc(VG_JIT_MAX_STRING + 2);
   memset(long_name, 'n', VG_JIT_MAX_STRING + 1);
   long_name[VG_JIT_MAX_STRING + 1] = 0;
   report("register long name", VALGRIND_JIT_REGISTER(code, 16, long_name));
   long_name[VG_JIT_MAX_STRING] = 0;
   report("register longest name", VALGRIND_JIT_REGISTER(code, 16, long_name));
   report("unregister longest name", VALGRIND_JIT_UNREGISTER(code));
   free(long_name);
}

/* Bad line tables (VG_JIT_ERR_BAD_LINE_TABLE): desc's lines in data,
   unmapped here, then too many; then lines with an entry of line 0,
   registered without it (VG_JIT_WARN_LINES_DROPPED). */
static void line_tables ( VgJitCode* desc, unsigned char* code,
                          unsigned char* data, const VgJitLine* lines )
{
   desc->start   = code;
   desc->size    = 16;
   desc->name    = "with_lines";
   desc->file    = "jit_requests.src";
   desc->lines   = (const VgJitLine*)data;
   desc->n_lines = 1;
   munmap(data, CODE_BYTES);
   report("register unreadable lines", VALGRIND_JIT_REGISTER_CODE(desc));
   desc->lines   = lines;
   desc->n_lines = VG_JIT_MAX_LINES + 1;
   report("register too many lines", VALGRIND_JIT_REGISTER_CODE(desc));

   desc->n_lines = 2;
   report("register line 0", VALGRIND_JIT_REGISTER_CODE(desc));
   report("unregister line 0", VALGRIND_JIT_UNREGISTER(code));
}

/* A descriptor of a bad size (VG_JIT_ERR_BAD_DESCRIPTOR), an unreadable
   object name, in data (unmapped: VG_JIT_ERR_BAD_STRING). */
static void bad_descriptors ( VgJitCode* desc, unsigned char* data )
{
   desc->struct_size = 8;
   report("register bad descriptor", VALGRIND_JIT_REGISTER_CODE(desc));
   desc->struct_size = sizeof *desc;
   desc->object      = (const char*)data;
   report("register unreadable object", VALGRIND_JIT_REGISTER_CODE(desc));
}

int main(void)
{
   unsigned char* code;
   unsigned char* data;
   VgJitLine      lines[2] = { { 0, 3, NULL }, { 4, 0, NULL } };
   VgJitCode      desc = VG_JIT_CODE_INITIALIZER;

   code = mmap(NULL, CODE_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   data = mmap(NULL, CODE_BYTES, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (code == MAP_FAILED || data == MAP_FAILED) {
      perror("mmap");
      return 1;
   }
   memset(code, 0xc3, CODE_BYTES);   /* ret */

   printf("query: %s\n", VALGRIND_JIT_QUERY() >= 1 ? "api version >= 1" : "0");

   register_and_move(code);
   long_names(code);

   /* Bad ranges (VG_JIT_ERR_BAD_RANGE). */
   report("register size 0", VALGRIND_JIT_REGISTER(code, 0, "empty"));
   report("register huge",
          VALGRIND_JIT_REGISTER(code, VG_JIT_MAX_CODE_SIZE + 1UL, "huge"));

   line_tables(&desc, code, data, lines);
   bad_descriptors(&desc, data);

   /* Not executable: waits (VG_JIT_WARN_PENDING); the program's own
      text (VG_JIT_ERR_OVERLAPS_OBJECT). */
   report("register data", VALGRIND_JIT_REGISTER(&desc, 16, "data"));
   report("register main",
          VALGRIND_JIT_REGISTER((const void*)(unsigned long)main, 16, "main"));

   munmap(code, CODE_BYTES);
   return 0;
}
