/* fuzz_perfmap.c: libFuzzer target for the perf map reader
   (coregrind-patch/files/coregrind/m_debuginfo/readperfmap.c).

   Each input is parsed as a complete file (ML_(perfmap_finish) once no
   more bytes will come) three ways: whole; split at a position derived
   from the input; and handing over only what `need` asks for (at least
   `need`, doubling the amount while a line stays incomplete).  A call
   whose window ends before the input does gets a heap copy of exactly
   `len` bytes, so that AddressSanitizer catches any read past `len`
   (otherwise the input itself ends there).  The entry/error lists must be
   identical and the
   invariants must hold: progress on every call, need > len within the
   documented bound, names inside the buffer and free of '\n', line
   numbers increasing. */

#include "priv_jitformats.h"
#include "fuzz_driver.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS FUZZ_MAX_EVENTS

typedef struct {
   int kind, error;
   unsigned long long line, offset, start, size, name_hash;
} Ev;


static int run(const uint8_t* data, size_t size, int mode, size_t split, Ev* out)
{
   PerfmapReader r;
   size_t avail = mode == 1 ? split : size;
   unsigned long cap = 0, steps = 0;
   unsigned long long last_line = 0;
   int n = 0;
   ML_(perfmap_init)(&r);
   while (n < MAX_EVENTS) {
      unsigned long long off = r.offset;
      unsigned long have = off < avail ? (unsigned long)(avail - off) : 0;
      unsigned long could = have;
      int at_end, kind;
      unsigned char* copy;
      const unsigned char* buf;
      PerfmapEvent ev;
      if (++steps > 4 * (unsigned long)size + 64) fail();
      if (mode == 2 && have > cap) have = cap;
      at_end = avail == size && have == could;
      /* A window shorter than the rest of the input gets an exact-size
         heap copy; otherwise the input itself already ends at len. */
      copy = NULL;
      if (off >= size || have < size - off) {
         copy = malloc(have ? have : 1);
         if (have) memcpy(copy, data + off, have);
      }
      buf = copy ? copy : data + off;
      kind = at_end ? ML_(perfmap_finish)(&r, have ? buf : NULL, have, &ev)
                    : ML_(perfmap_next)(&r, have ? buf : NULL, have, &ev);
      if (kind != ev.kind) fail();
      if (kind == PERFMAP_EV_NEED_MORE) {
         free(copy);  /* NULL-safe */
         if (r.offset != off || ev.advance != 0) fail();
         if (ev.need <= have || ev.need > PERFMAP_MIN_BUFFER) fail();
         if (mode == 2 && could > have) {
            /* Hand over at least `need`; grow geometrically so that long
               lines (need = len + 1 each time) stay linear. */
            cap = ev.need > 2 * cap ? ev.need : 2 * cap;
            continue;
         }
         if (avail < size) { avail = size; continue; }
         if (have != 0) fail();     /* finish() must consume a last line */
         return n;
      }
      cap = 0;
      if (ev.advance == 0 || ev.advance > have || r.offset != off + ev.advance) fail();
      if (ev.line < last_line || ev.line == 0) fail();
      last_line = ev.line;
      if (kind == PERFMAP_EV_ENTRY) {
         const PerfmapEntry* e = &ev.entry;
         const unsigned char* nm = (const unsigned char*)e->name;
         unsigned long i;
         if (e->name_len == 0 || nm < buf || nm + e->name_len > buf + have) fail();
         if (memchr(e->name, '\n', e->name_len) || memchr(e->name, 0, e->name_len)) fail();
         if (e->size == 0 || e->start + (e->size - 1) < e->start) fail();
         memset(&out[n], 0, sizeof(Ev));
         out[n].kind = kind;
         out[n].line = ev.line;
         out[n].offset = ev.offset;
         out[n].start = e->start;
         out[n].size = e->size;
         for (i = 0; i < e->name_len; i++)
            out[n].name_hash = out[n].name_hash * 131 + nm[i];
         n++;
      } else if (kind == PERFMAP_EV_BAD_LINE) {
         if (ev.error <= 0 || ev.error > PERFMAP_ERR_MAX) fail();
         memset(&out[n], 0, sizeof(Ev));
         out[n].kind = kind;
         out[n].error = ev.error;
         out[n].line = ev.line;
         out[n].offset = ev.offset;
         n++;
      } else if (kind != PERFMAP_EV_SKIPPED) {
         fail();
      }
      free(copy);
   }
   return n;
}

FUZZ_DEFINE_ENTRY_POINT(Ev, run)
