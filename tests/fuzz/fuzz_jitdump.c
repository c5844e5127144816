/* fuzz_jitdump.c: libFuzzer target for the jitdump reader
   (coregrind-patch/files/coregrind/m_debuginfo/readjitdump.c).

   Built and run by `make -C tests fuzz` (FUZZ_SECONDS per target), i.e.
     clang -g -O1 -fsanitize=fuzzer,address,undefined
       -I coregrind-patch/files/coregrind/m_debuginfo
       tests/fuzz/fuzz_jitdump.c coregrind-patch/.../readjitdump.c

   Each input is parsed as a complete file three ways: whole; split at a
   position derived from the input (the rest "appears" on the first
   NEED_MORE); and handing over exactly `need` bytes each time.  A call
   whose window ends before the input does gets a heap copy of exactly
   `len` bytes, so that AddressSanitizer catches any read past `len`
   (otherwise the input itself ends there).  The three event lists
   must be identical, and the API's invariants must hold: every call
   consumes bytes, asks for more than it got (within the documented
   bound) or reports the sticky hard error; offsets only grow; pointers
   handed out lie inside the buffer; the line-table iterator terminates. */

#include "priv_jitformats.h"
#include "fuzz_driver.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS FUZZ_MAX_EVENTS

typedef struct {
   int kind, error;
   unsigned int id;
   unsigned long long offset, advance;
   unsigned long long a, b;   /* kind-specific summary */
} Ev;


static int within(const void* p, unsigned long n, const unsigned char* buf,
                  unsigned long len)
{
   const unsigned char* q = (const unsigned char*)p;
   return q >= buf && q + n <= buf + len;
}

/* Validates one decoded event against its buffer; returns a summary. */
static Ev summarize(const JitdumpReader* r, const JitdumpEvent* ev,
                    const unsigned char* buf, unsigned long len)
{
   Ev s;
   memset(&s, 0, sizeof s);
   s.kind = ev->kind;
   s.error = ev->error;
   s.offset = ev->offset;
   s.advance = ev->advance;
   if (ev->kind == JITDUMP_EV_HEADER) {
      s.a = ev->header.pid;
      s.b = ev->header.header_size;
      if (ev->header.header_size < JITDUMP_HEADER_SIZE) fail();
   }
   if (ev->kind == JITDUMP_EV_ERROR || ev->kind == JITDUMP_EV_BAD_RECORD) {
      /* The text of every error the input reaches, cut to a small
         buffer: NUL-terminated within it, every field filled. */
      char text[48];
      unsigned long n;
      ML_(jitdump_describe)(r, ev, text, sizeof text);
      for (n = 0; n < sizeof text && text[n] != 0; n++)
         if (text[n] == '{') fail();
      if (n == sizeof text) fail();
   }
   if (ev->kind != JITDUMP_EV_RECORD && ev->kind != JITDUMP_EV_UNKNOWN
       && ev->kind != JITDUMP_EV_BAD_RECORD)
      return s;
   s.id = ev->rec.id;
   if (ev->advance != ev->rec.total_size || ev->advance < JITDUMP_PREFIX_SIZE)
      fail();
   if (ev->kind != JITDUMP_EV_RECORD)
      return s;
   switch (ev->rec.id) {
   case JITDUMP_CODE_LOAD: {
      const JitdumpCodeLoad* l = &ev->rec.u.load;
      if (!within(l->name, l->name_len + 1, buf, len)) fail();
      if (l->name[l->name_len] != 0) fail();
      if (memchr(l->name, 0, l->name_len) != NULL) fail();
      if (l->code && !within(l->code, l->code_bytes, buf, len)) fail();
      if (l->code_size && l->code_addr + (l->code_size - 1) < l->code_addr) fail();
      s.a = l->code_addr;
      s.b = l->name_len * 1000003ull + l->code_bytes;
      break;
   }
   case JITDUMP_CODE_MOVE:
      s.a = ev->rec.u.move.old_code_addr;
      s.b = ev->rec.u.move.new_code_addr;
      break;
   case JITDUMP_CODE_DEBUG_INFO: {
      const JitdumpDebugInfo* d = &ev->rec.u.debug;
      JitdumpDebugIter it;
      JitdumpDebugEntry e;
      unsigned long long n = 0;
      int k;
      if (!within(d->entries, d->entries_len, buf, len)) fail();
      ML_(jitdump_debug_iter_init)(&it, r, d);
      while ((k = ML_(jitdump_debug_entry_next)(&it, &e)) == 1) {
         if (e.filename_len && !within(e.filename, e.filename_len + 1, buf, len))
            fail();
         if (e.filename[e.filename_len] != 0) fail();
         s.b = s.b * 31 + e.line + e.code_addr;
         if (++n > d->nr_entry) fail();
      }
      if (k != 0 || n != d->nr_entry) fail();
      s.a = d->code_addr;
      break;
   }
   case JITDUMP_CODE_UNWINDING_INFO: {
      const JitdumpUnwindingInfo* u = &ev->rec.u.unwind;
      if (u->data && !within(u->data, u->data_len, buf, len)) fail();
      if (u->eh_frame_hdr_size > u->unwinding_size
          || u->unwinding_size > u->data_len) fail();
      s.a = u->unwinding_size;
      s.b = u->data_len;
      break;
   }
   case JITDUMP_CODE_CLOSE:
      break;
   default:
      fail();
   }
   return s;
}

/* mode 0: whole; 1: split at `split`; 2: exactly `need` bytes. */
static int run(const uint8_t* data, size_t size, int mode, size_t split,
               Ev* out)
{
   JitdumpReader r;
   size_t avail = mode == 1 ? split : size;
   unsigned long cap = 0;
   int n = 0;
   unsigned long steps = 0;
   ML_(jitdump_init)(&r, JITDUMP_MIN_BUFFER);
   while (n < MAX_EVENTS) {
      unsigned long long off = r.offset;
      unsigned long have = off < avail ? (unsigned long)(avail - off) : 0;
      unsigned long could = have;
      unsigned char* copy;
      const unsigned char* buf;
      JitdumpEvent ev;
      int kind;
      if (++steps > 4 * (unsigned long)size + 64) fail();   /* no spinning */
      if (mode == 2 && have > cap) have = cap;
      /* A window shorter than the rest of the input gets an exact-size
         heap copy; otherwise the input itself already ends at len. */
      copy = NULL;
      if (off >= size || have < size - off) {
         copy = malloc(have ? have : 1);
         if (have) memcpy(copy, data + off, have);
      }
      buf = copy ? copy : data + off;
      kind = ML_(jitdump_next)(&r, have ? buf : NULL, have, &ev);
      if (kind != ev.kind || r.offset < off) fail();
      if (kind == JITDUMP_EV_NEED_MORE) {
         free(copy);  /* NULL-safe */
         if (r.offset != off || ev.advance != 0) fail();
         if (ev.need <= have || ev.need > JITDUMP_MIN_BUFFER) fail();
         if (mode == 2 && could > have) { cap = ev.need; continue; }
         if (avail < size) { avail = size; continue; }
         out[n].kind = -1;
         out[n].offset = off;
         out[n].advance = ev.need;
         return n + 1;
      }
      cap = 0;
      if (kind == JITDUMP_EV_ERROR) {
         JitdumpEvent again;
         if (r.offset != off) fail();
         if (ML_(jitdump_next)(&r, buf, have, &again) != JITDUMP_EV_ERROR
             || again.error != ev.error || r.offset != off)
            fail();
         if (!ML_(jitdump_error_is_hard)(ev.error)) fail();
         out[n++] = summarize(&r, &ev, buf, have);
         free(copy);
         return n;
      }
      if (kind == JITDUMP_EV_BAD_RECORD && ML_(jitdump_error_is_hard)(ev.error))
         fail();
      if (r.offset == off || r.offset - off != ev.advance) fail();
      if (ML_(jitdump_strerror)(ev.error) == NULL) fail();
      out[n++] = summarize(&r, &ev, buf, have);
      free(copy);
   }
   return n;
}

FUZZ_DEFINE_ENTRY_POINT(Ev, run)
