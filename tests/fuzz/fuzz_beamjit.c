/* fuzz_beamjit.c: libFuzzer target for the reader of Erlang/OTP's JIT
   entries (coregrind-patch/files/coregrind/m_debuginfo/readbeamjit.c).

   Each input is one entry, read from an exact-size heap copy (so that
   AddressSanitizer catches any read past its end): opened, checked whole
   with ML_(beamjit_check), then opened again and read range by range.
   Invariants: the two readings agree; every name and file lies inside
   the entry, is NUL-terminated at its length and holds no NUL; ranges
   lie in the module's code in order; the number of steps is bounded by
   the entry's size. */

#include "priv_jitformats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fail(void) { __builtin_trap(); }

static void check_text(const unsigned char* img, size_t size, const char* s,
                       unsigned long len)
{
   const unsigned char* p = (const unsigned char*)s;
   if (p < img || p + len + 1 > img + size) fail();
   if (p[len] != 0 || memchr(p, 0, len) != NULL) fail();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
   unsigned char* img = malloc(size ? size : 1);
   BeamJitReader  r;
   BeamJitRange   rg;
   BeamJitLine    ln;
   unsigned long  steps = 0;
   unsigned long long prev_end = 0;
   int kind, checked, k;
   if (size) memcpy(img, data, size);
   kind = ML_(beamjit_open)(&r, size ? img : NULL, size);
   if (kind == BEAMJIT_MALFORMED && (r.error <= 0 || r.error > BEAMJIT_ERR_MAX)) fail();
   if (kind != BEAMJIT_MODULE) {
      free(img);
      return 0;
   }
   checked = ML_(beamjit_check)(&r);
   if (ML_(beamjit_open)(&r, img, size) != BEAMJIT_MODULE) fail();
   check_text(img, size, r.module, r.module_len);
   while ((k = ML_(beamjit_next_range)(&r, &rg)) == 1) {
      if (++steps > size) fail();
      check_text(img, size, rg.name, rg.name_len);
      if (rg.start > rg.end || rg.start < r.base + prev_end
          || rg.end > r.base + r.code_size) fail();
      prev_end = rg.end - r.base;
      while ((k = ML_(beamjit_next_line)(&r, &ln)) == 1) {
         if (++steps > size) fail();
         check_text(img, size, ln.file, ln.file_len);
      }
      if (k < 0) break;
   }
   if ((k == 0) != (checked == BEAMJIT_OK)) fail();
   if (k < 0 && r.error != checked) fail();
   free(img);
   return 0;
}
