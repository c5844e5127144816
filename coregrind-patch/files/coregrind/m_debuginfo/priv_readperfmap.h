/*--------------------------------------------------------------------*/
/*--- perf maps: an incremental reader.         priv_readperfmap.h ---*/
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

/* The perf maps of Linux perf (tools/perf/Documentation/
   jit-interface.txt): a text file `/tmp/perf-<pid>.map` with one
   "START SIZE name" line per function, and an incremental,
   allocation-free reader, PerfmapReader (readperfmap.c).  It follows
   the pull model, copying and lifetime rules stated in
   priv_readjitdump.h: a line is consumed only once its '\n' is in the
   caller's buffer, `advance` never exceeds `len`, and no error stops
   the reader.  Portable C99 without libc and without Valgrind headers
   (priv_jitbytes.h says why). */

#ifndef __PRIV_READPERFMAP_H
#define __PRIV_READPERFMAP_H

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

/* Longest line (bytes, without its '\n') the reader parses.  Longer
   lines are reported once (PERFMAP_ERR_LINE_TOO_LONG) and skipped. */
#define PERFMAP_LINE_MAX  65536u
/* A NEED_MORE event never asks for more than this many bytes. */
#define PERFMAP_MIN_BUFFER (PERFMAP_LINE_MAX + 1u)

/* Event kinds returned by ML_(perfmap_next)/ML_(perfmap_finish). */
#define PERFMAP_EV_NEED_MORE  0 /* no complete line in buf; ev->need     */
#define PERFMAP_EV_ENTRY      1 /* ev->entry decoded                     */
#define PERFMAP_EV_BAD_LINE   2 /* ev->error for line ev->line; skipped  */
#define PERFMAP_EV_SKIPPED    3 /* blank line or part of an over-long
                                   line consumed; nothing to report      */

/* Per-line error codes (text: ML_(perfmap_strerror)). */
#define PERFMAP_OK                 0
#define PERFMAP_ERR_BAD_START      1 /* START is not a hex number        */
#define PERFMAP_ERR_BAD_SIZE       2 /* SIZE missing or not hex          */
#define PERFMAP_ERR_NUMBER_TOO_BIG 3 /* more than 64 bits                */
#define PERFMAP_ERR_MISSING_NAME   4 /* nothing after SIZE               */
#define PERFMAP_ERR_ZERO_SIZE      5 /* SIZE is 0                        */
#define PERFMAP_ERR_RANGE_WRAPS    6 /* START + SIZE - 1 overflows       */
#define PERFMAP_ERR_LINE_TOO_LONG  7 /* > PERFMAP_LINE_MAX, skipped      */
#define PERFMAP_ERR_NUL_BYTE       8 /* line contains a NUL byte         */
#define PERFMAP_ERR_MAX            8

/* One perf map line, decoded: code at [start, start+size) is `name`.
   `name` points into the caller's buffer and is NOT NUL-terminated:
   use name_len (trailing '\r' already removed; inner spaces kept). */
typedef struct {
   unsigned long long start;
   unsigned long long size;
   const char*        name;
   unsigned long      name_len;
} PerfmapEntry;

/* Result of one call.
   line:    1-based number of the line the event is about.
   offset:  file offset of that line's first byte (for NEED_MORE: the
            reader's current offset).
   advance: bytes consumed from buf (always <= len; 0 for NEED_MORE).
   need:    NEED_MORE: supply at least this many bytes (> len).
   error:   BAD_LINE: PERFMAP_ERR_*. */
typedef struct {
   int                kind;
   unsigned long long line;
   unsigned long long offset;
   unsigned long      advance;
   unsigned long      need;
   int                error;
   PerfmapEntry       entry;
} PerfmapEvent;

/* Reader state; opaque except for the read-only fields. */
typedef struct {
   unsigned long long offset;     /* RO: next unconsumed file offset     */
   unsigned long long line;       /* RO: lines fully consumed so far     */
   int                skipping;   /* internal: inside an over-long line  */
} PerfmapReader;

/* Reset `r` to the start of a file. */
extern void ML_(perfmap_init)(PerfmapReader* r);

/* Decode the next line.  `buf` holds `len` bytes of the file starting at
   r->offset.  A line is only consumed once its '\n' is in buf (the
   writer may be in the middle of it).  Returns ev->kind. */
extern int ML_(perfmap_next)(PerfmapReader* r,
                             const unsigned char* buf, unsigned long len,
                             PerfmapEvent* ev);

/* Like ML_(perfmap_next), but for a file known to be complete: if buf
   holds no '\n', the `len` bytes (> 0) are treated as a final line
   without its newline.  Returns NEED_MORE only when len == 0. */
extern int ML_(perfmap_finish)(PerfmapReader* r,
                               const unsigned char* buf, unsigned long len,
                               PerfmapEvent* ev);

/* Static English text for a perf map error code. */
extern const char* ML_(perfmap_strerror)(int code);

#ifdef __cplusplus
}
#endif

#endif /* __PRIV_READPERFMAP_H */

/*--------------------------------------------------------------------*/
/*--- end                                       priv_readperfmap.h ---*/
/*--------------------------------------------------------------------*/
