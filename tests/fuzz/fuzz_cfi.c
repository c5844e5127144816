/* fuzz_cfi.c: libFuzzer target for the checks of CFI records that the
   client wrote (ML_(jit_cfi_check_records),
   coregrind-patch/files/coregrind/m_debuginfo/checkcfi.c), which decide
   whether m_debuginfo's CFI reader may be given an .eh_frame or
   .debug_frame section.

   Built and run by `make -C tests fuzz` once checkcfi.c exists:
     clang -g -O1 -fsanitize=fuzzer,address,undefined
       -I coregrind-patch/files/coregrind/m_debuginfo
       tests/fuzz/fuzz_cfi.c coregrind-patch/.../checkcfi.c

   The input's first byte chooses .eh_frame (bit 0 set) or .debug_frame;
   the rest is the section, in a heap copy of exactly its size so that
   AddressSanitizer catches any read past it.  Checked: the answer is the
   same twice; a refusal is a non-empty text; an accepted section has
   what the checks promise the reader, found by walking it here: every
   record's length field and the record lie inside the section (a zero
   length ends it) and none uses 64-bit DWARF. */

#include "priv_jitformats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned int read_u32(const unsigned char* p)
{
   unsigned int v;
   memcpy(&v, p, 4);
   return v;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
   if (size < 1)
      return 0;
   const int is_eh = data[0] & 1;
   const size_t n = size - 1;
   unsigned char* sec = malloc(n ? n : 1);
   if (!sec)
      return 0;
   memcpy(sec, data + 1, n);

   const char* why = ML_(jit_cfi_check_records)(sec, n, is_eh);
   if (ML_(jit_cfi_check_records)(sec, n, is_eh) != why)
      abort();
   if (why != NULL) {
      if (why[0] == '\0')
         abort();
   } else {
      size_t off = 0;
      while (off < n) {
         if (n - off < 4)
            abort();              /* a length field running off */
         const unsigned int len = read_u32(sec + off);
         if (len == 0)
            break;                /* the terminator */
         if (len == 0xffffffffu)
            abort();              /* 64-bit DWARF */
         if (len > n - off - 4)
            abort();              /* a record running off */
         off += 4 + (size_t)len;
      }
   }
   free(sec);
   return 0;
}
