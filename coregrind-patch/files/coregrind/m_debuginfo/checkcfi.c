/*--------------------------------------------------------------------*/
/*--- Checks of CFI records (.eh_frame, .debug_frame) that the     ---*/
/*--- client wrote.                                    checkcfi.c ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Valgrind, a dynamic binary instrumentation
   framework.

   Copyright (C) 2026 the valgrind-jit authors.

   This program is free software; you can redistribute it and/or
   modify it under the terms of the GNU General Public License as
   published by the Free Software Foundation; either version 3 of the
   License, or (at your option) any later version.

   This program is distributed in the hope that it will be useful, but
   WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program; if not, see <http://www.gnu.org/licenses/>.

   The GNU General Public License is contained in the file COPYING.
*/

/* What m_debuginfo's CFI reader (readdwarf.c,
   ML_(read_callframe_info_dwarf3)) needs of a section of CIEs and FDEs
   before it can be given bytes that the client wrote: every record lies
   inside the section, no record uses the 64-bit DWARF format (the reader
   does not take it from .eh_frame), and every CIE's augmentation data
   (the 'R', 'P' and 'L' pointer encodings) lies inside its record and
   uses only encodings the reader decodes; it asserts on the others.  The
   format: DWARF 4 section 6.4 (.debug_frame) and the Linux Standard
   Base's .eh_frame.

   Portable C99 without libc and without Valgrind headers: this file is
   compiled into Valgrind's core and into user-space programs alike
   (vg-jit, the fuzz target tests/fuzz/fuzz_cfi.c).  See priv_checkcfi.h
   for the API. */

#include "priv_jitbytes.h"
#include "priv_checkcfi.h"

/* Steps over an unsigned LEB128 at *p (below end); 0 if it runs off. */
static int skip_leb128(const unsigned char** p, const unsigned char* end)
{
   while (*p < end) {
      if (((*(*p)++) & 0x80) == 0)
         return 1;
   }
   return 0;
}

/* Can the reader decode pointers of encoding enc (of a CIE's 'R'
   augmentation when for_fde_address, else of 'P' or 'L')? */
static int pointer_encoding_ok(unsigned char enc, int for_fde_address)
{
   unsigned char format = enc & 0x0f, app = enc & 0x70;
   if (enc == 0xff)
      return !for_fde_address;   /* omitted */
   if (format != 0x00 && format != 0x02 && format != 0x03
       && format != 0x04 && format != 0x0a && format != 0x0b
       && format != 0x0c)
      return 0;   /* the reader sizes only these */
   if (!for_fde_address)
      return 1;   /* only skipped */
   if (enc & 0x80)
      return 0;   /* indirect */
   return app == 0x00 || app == 0x10 || app == 0x30 || app == 0x40
          || app == 0x50;
}

const char* ML_(jit_cfi_check_records)(const unsigned char* p,
                                       unsigned long long size,
                                       int is_eh)
{
   unsigned long long off = 0;
   while (off + 4 <= size) {
      unsigned int         len, id;
      const unsigned char* rec;
      const unsigned char* end;
      const unsigned char* aug;
      len = jitformats_host32(p + off);
      if (len == 0)
         break;   /* terminator */
      if (len == 0xffffffffu)
         return "64-bit DWARF CFI records are not read";
      if (len < 4 || len > size - off - 4)
         return "a CFI record lies outside its section";
      rec = p + off + 4;
      end = rec + len;
      id  = jitformats_host32(rec);
      if (id == (is_eh ? 0u : 0xffffffffu)) {
         const unsigned char* q = rec + 5;   /* past the id and version */
         int                  has_z;
         if (q > end)
            return "a CIE runs off its record";
         aug = q;
         while (q < end && *q != 0) q++;
         if (q >= end)
            return "a CIE's augmentation runs off its record";
         q++;
         has_z = aug[0] == 'z';
         /* code and data alignment factors, return address column */
         if (!skip_leb128(&q, end) || !skip_leb128(&q, end))
            return "a CIE runs off its record";
         if (rec[4] == 1) q++; else if (!skip_leb128(&q, end))
            return "a CIE runs off its record";
         if (has_z) {
            /* the augmentation data's length */
            if (q > end || !skip_leb128(&q, end))
               return "a CIE runs off its record";
            aug++;
         }
         /* The reader decodes the operands of 'R', 'P' and 'L' with or
            without 'z', and stops at the first letter it does not know. */
         for (; *aug != 0; aug++) {
            unsigned char enc;
            if (*aug == 'S')
               continue;
            if (*aug != 'R' && *aug != 'P' && *aug != 'L')
               break;
            if (q >= end)
               return "a CIE runs off its record";
            enc = *q++;
            if (!pointer_encoding_ok(enc, *aug == 'R'))
               return "a CIE uses a pointer encoding that is not read";
            if (*aug == 'P') {
               unsigned long sz = (enc & 0x07) == 0x02 ? 2
                                : (enc & 0x07) == 0x03 ? 4
                                : (enc & 0x07) == 0x04 ? 8
                                : sizeof(void*);
               if (sz > (unsigned long)(end - q))
                  return "a CIE runs off its record";
               q += sz;
            }
         }
      }
      off += 4 + (unsigned long long)len;
   }
   /* One to three bytes after the last record: the reader would take
      them for the start of a length field.  Zero padding is harmless. */
   if (off < size && size - off < 4) {
      for (; off < size; off++)
         if (p[off] != 0)
            return "a CFI record lies outside its section";
   }
   return 0;
}

/*--------------------------------------------------------------------*/
/*--- end                                               checkcfi.c ---*/
/*--------------------------------------------------------------------*/
