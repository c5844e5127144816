/*--------------------------------------------------------------------*/
/*--- Checks of CFI records before m_debuginfo reads them.         ---*/
/*---                                              priv_checkcfi.h ---*/
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

/* The checks of CFI records (checkcfi.c) that run before m_debuginfo's
   CFI reader is given .eh_frame or .debug_frame bytes a client wrote
   (jitcfi.c, jitgdbdwarf.c).  Portable C99 without libc and without
   Valgrind headers (priv_jitbytes.h says why): vg-jit and the fuzz
   target tests/fuzz/fuzz_cfi.c run the same checks. */

#ifndef __PRIV_CHECKCFI_H
#define __PRIV_CHECKCFI_H

/* ML_ as pub_tool_basics.h defines it (token for token, so that either
   include order is fine); see priv_jitbytes.h for the names user space
   gets. */
#ifndef VGAPPEND
#define VGAPPEND(str1,str2) str1##str2
#endif
#ifndef ML_
#define ML_(str)    VGAPPEND(vgModuleLocal_,    str)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the records of an .eh_frame (is_eh non-zero) or .debug_frame
   section, the size bytes at p (host byte order, as Valgrind's CFI
   reader takes them), for what that reader asserts on or reads past:
   every record (its length field, a CIE's augmentation and its
   operands) must lie in the section, no record may use 64-bit DWARF,
   and CIEs may use only the pointer encodings the reader decodes
   (absptr, udata2/4/8, sdata2/4/8, applied as absolute, pc-relative,
   text-relative, data-relative or function-relative, not indirect, for
   FDE addresses).  A zero length field ends the section.  Returns 0 if
   the section may be handed to the reader, else why not: a static
   English text ("a CFI record lies outside its section", ...).  Reads
   nothing outside p[0..size). */
const char* ML_(jit_cfi_check_records)(const unsigned char* p,
                                       unsigned long long size,
                                       int is_eh);

#ifdef __cplusplus
}
#endif

#endif /* __PRIV_CHECKCFI_H */

/*--------------------------------------------------------------------*/
/*--- end                                          priv_checkcfi.h ---*/
/*--------------------------------------------------------------------*/
