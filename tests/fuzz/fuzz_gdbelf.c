/* fuzz_gdbelf.c: libFuzzer target for the rules by which the core and
   vg-jit accept an ELF object of the GDB JIT interface
   (coregrind-patch/files/coregrind/m_debuginfo/readgdbelf*.c).

   Each input is one object, read from an exact-size heap copy (so that
   AddressSanitizer catches any read outside it) twice: as the core reads
   it (no problem callback: stop at the first problem) and going on past
   every problem, as vg-jit does.  Invariants: every problem has a known
   code and lies inside the object; the first problem is the same both
   ways and is what both readings return; the core's functions are the
   first of those going on finds, all of them for an object the core
   accepts; every function
   is non-empty, does not wrap, and has its NUL-terminated name inside the
   object; the number of problems and functions is bounded by the object's
   size; every description is NUL-terminated inside its buffer. */

#include "priv_jitformats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fail(void) { __builtin_trap(); }

#define MAX_FNS 4096

typedef struct {
   const unsigned char* img;
   size_t               size;
   unsigned long long   n_problems, n_fns;
   GdbElfError          first;
   unsigned long long   starts[MAX_FNS];   /* the first MAX_FNS functions */
} Seen;

static void check_error(const Seen* s, const GdbElfError* e)
{
   char buf[64];
   if (e->code <= 0 || e->code > GDBELF_ERR_MAX) fail();
   if (s->size > 0 && e->at >= s->size) fail();
   memset(buf, 'z', sizeof(buf));
   ML_(gdbelf_describe)(e, buf, 40);
   if (memchr(buf, 0, 40) == NULL || buf[40] != 'z') fail();
}

static int on_problem(void* ctx, const GdbElfError* e)
{
   Seen* s = ctx;
   check_error(s, e);
   if (s->n_problems == 0) s->first = *e;
   if (++s->n_problems > s->size + 1) fail();
   return 1;
}

static void on_function(void* ctx, const GdbElfFunction* f)
{
   Seen* s = ctx;
   const unsigned char* p = (const unsigned char*)f->name;
   if (f->size == 0 || f->start + f->size < f->start) fail();
   if (p < s->img || p + f->name_len >= s->img + s->size) fail();
   if (p[f->name_len] != 0 || memchr(p, 0, f->name_len) != NULL) fail();
   if (f->at >= s->size) fail();
   if (s->n_fns < MAX_FNS) s->starts[s->n_fns] = f->start;
   if (++s->n_fns > s->size) fail();
}

static int same_error(const GdbElfError* x, const GdbElfError* y)
{
   int k;
   for (k = 0; k < 4; k++)
      if (x->num[k] != y->num[k]) return 0;
   return x->code == y->code && x->at == y->at && x->section == y->section
          && x->symtab == y->symtab && x->symbol == y->symbol
          && x->name == y->name;
}

static Seen core, tool;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
   unsigned char* img = malloc(size ? size : 1);
   GdbElfObject   a, b;
   int            ra, rb;
   unsigned long long i;
   if (size) memcpy(img, data, size);

   memset(&core, 0, sizeof(core));
   memset(&tool, 0, sizeof(tool));
   core.img = tool.img = img;
   core.size = tool.size = size;

   /* As the core reads. */
   ra = ML_(gdbelf_open)(&a, img, size, NULL, NULL);
   if (ra == GDBELF_OK) ra = ML_(gdbelf_functions)(&a, on_function, &core);
   if (ra != a.error.code) fail();
   if (ra != GDBELF_OK) {
      char text[300];
      check_error(&core, &a.error);
      if (a.n_problems != 1) fail();
      /* As the core words it: sections named from the object's bytes
         (names may hold any printable byte, '{' too). */
      ML_(gdbelf_describe_in)(&a, &a.error, text, sizeof(text));
      if (memchr(text, 0, sizeof(text)) == NULL) fail();
      if (strncmp(text, ML_(gdbelf_strerror)(a.error.code),
                  strlen(ML_(gdbelf_strerror)(a.error.code))) != 0) fail();
   }

   /* Going on past every problem. */
   rb = ML_(gdbelf_open)(&b, img, size, on_problem, &tool);
   rb = ML_(gdbelf_functions)(&b, on_function, &tool);
   if (rb != b.error.code || b.n_problems != tool.n_problems) fail();
   if (rb != ra) fail();
   if (ra != GDBELF_OK && !same_error(&a.error, &tool.first)) fail();
   /* The core's functions are those found before its first problem: the
      start of what going on finds. */
   if (core.n_fns > tool.n_fns) fail();
   for (i = 0; i < core.n_fns && i < MAX_FNS; i++)
      if (core.starts[i] != tool.starts[i]) fail();
   if (ra == GDBELF_OK) {
      if (core.n_fns != tool.n_fns || tool.n_problems != 0) fail();
      if (a.file != b.file || a.file_len != b.file_len) fail();
   }
   if (b.opened) {
      GdbElfSection s;
      if (ML_(gdbelf_section)(&b, b.shnum - 1, &s) != 1) fail();
      if (ML_(gdbelf_section)(&b, b.shnum, &s) != 0) fail();
   }
   free(img);
   return 0;
}
