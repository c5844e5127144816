/* fuzz_cfi.c: libFuzzer target for the checks of CFI records that run
   before Valgrind's CFI reader sees bytes a client wrote
   (coregrind-patch/files/coregrind/m_debuginfo/checkcfi.c).

   The input's first byte chooses .eh_frame (odd) or .debug_frame (even);
   the rest is the section, handed over as an exact-size heap copy so that
   AddressSanitizer catches any read outside it.  Invariants: the answer
   is 0 or a non-empty text, the same on a second call, and an accepted
   section's records (followed by their length fields) end inside the
   section, with at most zero padding after the last one. */

#include "priv_jitformats.h"
#include "fuzz_driver.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
   unsigned char*     copy;
   const char*        why;
   size_t             n = size ? size - 1 : 0;
   int                is_eh = size ? (data[0] & 1) : 1;
   unsigned long long off = 0;

   copy = malloc(n ? n : 1);
   if (n) memcpy(copy, data + 1, n);
   why = ML_(jit_cfi_check_records)(copy, n, is_eh);
   if (why != NULL && why[0] == 0) fail();
   if (ML_(jit_cfi_check_records)(copy, n, is_eh) != why) fail();
   if (why == NULL) {
      while (off + 4 <= n) {
         unsigned int len;
         memcpy(&len, copy + off, 4);
         if (len == 0) break;
         if (len < 4 || len > n - off - 4) fail();
         off += 4 + (unsigned long long)len;
      }
      /* Bytes after the last record that do not make a length field are
         zero padding. */
      if (off < n && n - off < 4)
         for (; off < n; off++)
            if (copy[off] != 0) fail();
   }
   free(copy);
   return 0;
}
