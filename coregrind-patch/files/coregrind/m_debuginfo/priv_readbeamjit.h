/*--------------------------------------------------------------------*/
/*--- Erlang/OTP's entries of the GDB JIT interface: a reader.     ---*/
/*---                                           priv_readbeamjit.h ---*/
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

/* Erlang/OTP's JIT (OTP 25 and later, 64-bit hosts) hands the GDB JIT
   interface one entry per loaded module in a format of its own, not an
   ELF object (OTP's erts/emulator/beam/jit/beam_jit_metadata.cpp writes
   it; OTP's GDB-side reader reads it).  All fields are in the host's
   byte order; "sizeof" sizes are those of the C structs on an LP64 host:

     debug entry (32 bytes + name):
        0  u32  header: 0 the emulator's entry (no code), 1 a module
        4       (padding)
        8  u64  base address of the module's code
       16  u32  number of ranges
       20  u32  size of the module's code, bytes
       24  u16  name length, including its NUL
       26       module name, NUL-terminated
       then, at 32 + name length, the ranges, one after the other:
     range (16 bytes + name):
        0  u32  start, bytes from the base
        4  u32  end (exclusive), bytes from the base
        8  u32  number of line entries
       12  u16  name length, including its NUL
       14       name ("module:function/arity", "module::codeHeader",
                "module:function/arity-CodeInfoPrologue"), NUL-terminated
       then, at 16 + name length, its line entries:
     line entry (12 bytes + file name):
        0  u32  start, bytes from the base (may precede the range: the
                line in effect where the range starts)
        4  u32  line number
        8  u16  file name length, including its NUL
       10       file name, NUL-terminated

   The emulator's entry is exactly 32 bytes.  A module's entry ends
   exactly after its last range: a reader that finds anything else
   (an entry shorter or longer than its contents, a range outside the
   module's code, ranges out of order, a name without its NUL or with a
   NUL inside) refuses the entry whole.  The reader works on a complete
   copy of the entry and allocates nothing.

   Portable C99 without libc and without Valgrind headers
   (priv_jitbytes.h says why). */

#ifndef __PRIV_READBEAMJIT_H
#define __PRIV_READBEAMJIT_H

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

/* What ML_(beamjit_open) found. */
#define BEAMJIT_NOT_BEAM   0  /* not this format: neither header value  */
#define BEAMJIT_EMULATOR   1  /* the emulator's entry: no code          */
#define BEAMJIT_MODULE     2  /* a module: read its ranges              */
#define BEAMJIT_MALFORMED  3  /* claims to be a module but is not well
                                 formed (r->error says why)             */

/* Error codes (text: ML_(beamjit_strerror)). */
#define BEAMJIT_OK                 0
#define BEAMJIT_ERR_SHORT          1 /* shorter than its header          */
#define BEAMJIT_ERR_BAD_NAME       2 /* a name without its NUL, or empty */
#define BEAMJIT_ERR_NO_CODE        3 /* base address or code size is 0,
                                        or the code wraps around        */
#define BEAMJIT_ERR_RANGE_OUTSIDE  4 /* a range outside the entry        */
#define BEAMJIT_ERR_BAD_RANGE      5 /* start > end, outside the code,
                                        or before the previous range    */
#define BEAMJIT_ERR_LINE_OUTSIDE   6 /* a line entry outside the entry   */
#define BEAMJIT_ERR_TRAILING       7 /* bytes after the last range       */
#define BEAMJIT_ERR_MAX            7

/* Smallest entry of each kind. */
#define BEAMJIT_HEADER_SIZE  32u
#define BEAMJIT_RANGE_SIZE   16u
#define BEAMJIT_LINE_SIZE    12u

/* One code range of a module: [start, end) as absolute addresses.
   `name` points into the entry (NUL-terminated, name_len bytes
   without the NUL). */
typedef struct {
   unsigned long long start;
   unsigned long long end;
   unsigned int       n_lines;
   const char*        name;
   unsigned long      name_len;
} BeamJitRange;

/* One line entry: from absolute address `addr` on, line `line` of
   `file` (NUL-terminated in the entry, file_len bytes without it). */
typedef struct {
   unsigned long long addr;
   unsigned int       line;
   const char*        file;
   unsigned long      file_len;
} BeamJitLine;

/* Reader state over one complete entry; read-only fields after
   ML_(beamjit_open). */
typedef struct {
   const unsigned char* img;
   unsigned long        n;
   unsigned long        pos;          /* internal: next byte to read      */
   unsigned long long   base;         /* RO: the module's code            */
   unsigned int         code_size;    /* RO                               */
   unsigned int         n_ranges;     /* RO                               */
   const char*          module;       /* RO: NUL-terminated in img        */
   unsigned long        module_len;   /* RO: without the NUL              */
   unsigned int         ranges_left;  /* internal                         */
   unsigned int         lines_left;   /* internal: of the current range   */
   unsigned long long   prev_end;     /* internal                         */
   int                  error;        /* RO: BEAMJIT_ERR_* once malformed */
} BeamJitReader;

/* Starts reading the entry img[0..n) (a complete copy; img needs no
   alignment).  Returns BEAMJIT_NOT_BEAM, BEAMJIT_EMULATOR,
   BEAMJIT_MODULE (then read the ranges) or BEAMJIT_MALFORMED (r->error
   says why). */
extern int ML_(beamjit_open)(BeamJitReader* r, const unsigned char* img,
                             unsigned long n);

/* The module's next range, after the line entries of the previous one
   (those not read are skipped).  Returns 1 (*out filled), 0 when the
   ranges are done and the entry ended exactly after them, or -1 when the
   entry is malformed (r->error; sticky). */
extern int ML_(beamjit_next_range)(BeamJitReader* r, BeamJitRange* out);

/* The current range's next line entry.  Returns 1 (*out filled), 0 when
   the range has no more, -1 when malformed (r->error; sticky). */
extern int ML_(beamjit_next_line)(BeamJitReader* r, BeamJitLine* out);

/* Reads the whole entry once (every range and line entry): 0 if it is
   a well-formed module, else its BEAMJIT_ERR_* code.  r must be fresh
   from ML_(beamjit_open) returning BEAMJIT_MODULE; afterwards open it
   again to read it. */
extern int ML_(beamjit_check)(BeamJitReader* r);

/* Static English text for a BEAMJIT_ERR_* code. */
extern const char* ML_(beamjit_strerror)(int code);

#ifdef __cplusplus
}
#endif

#endif /* __PRIV_READBEAMJIT_H */

/*--------------------------------------------------------------------*/
/*--- end                                       priv_readbeamjit.h ---*/
/*--------------------------------------------------------------------*/
