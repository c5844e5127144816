/*--------------------------------------------------------------------*/
/*--- Byte readers and text output for the readers of JIT          ---*/
/*--- producer files and GDB JIT objects.          priv_jitbytes.h ---*/
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

/* What the readers of JIT producer files and of GDB JIT objects share:
   unaligned byte readers in either byte order and their writing
   counterpart, and text written into a caller's buffer from one
   template per error code.

   CONVENTIONS of those readers (priv_readjitdump.h, priv_readperfmap.h,
   priv_readbeamjit.h, priv_readgdbelf.h, priv_checkcfi.h).  Each is
   written in portable C99 without any libc call and without Valgrind
   headers, so that the very same source files are compiled into
   Valgrind's core (which has no libc) and into user-space programs (the
   vg-jit tool, unit tests, fuzz targets).  Only plain C types are used:
   "u32" fields are `unsigned int`, "u64" fields are
   `unsigned long long`, buffer lengths are `unsigned long`.

   NAMES.  The readers' functions get module-local names through ML_(),
   like the rest of m_debuginfo; user space gets the same names
   (vgModuleLocal_...) unless it defines ML_ itself before including a
   reader's header.  The helpers below are static inline, named
   jitformats_*, and part of no reader's API. */

#ifndef __PRIV_JITBYTES_H
#define __PRIV_JITBYTES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Zero `n` bytes at `p` (no memset: the readers run without libc). */
static inline void jitformats_zero(void* p, unsigned long n)
{
   unsigned char* q = (unsigned char*)p;
   unsigned long i;
   for (i = 0; i < n; i++)
      q[i] = 0;
}

/* Non-zero if this program is big-endian. */
static inline int jitformats_host_big_endian(void)
{
   const unsigned int one = 1;
   return *(const unsigned char*)&one == 0;
}

/* The unsigned field of `width` bytes (1 to 8) at p, big-endian if
   `big`, else little-endian.  p needs no alignment; the caller has
   checked that the bytes are there. */
static inline unsigned long long jitformats_ld(const unsigned char* p,
                                               unsigned int width, int big)
{
   unsigned long long v = 0;
   unsigned int       i;
   for (i = 0; i < width; i++)
      v = (v << 8) | p[big ? i : width - 1 - i];
   return v;
}

/* The 2-, 4- and 8-byte fields of jitformats_ld, written out byte by
   byte for each order: a compiler turns each form into one load (and a
   byte swap), where the loop of jitformats_ld costs a few instructions
   per byte.  Every field of every jitdump record is read through
   these. */
static inline unsigned int jitformats_ld16(const unsigned char* p, int big)
{
   if (big)
      return (unsigned int)p[0] << 8 | (unsigned int)p[1];
   return (unsigned int)p[1] << 8 | (unsigned int)p[0];
}
static inline unsigned int jitformats_ld32(const unsigned char* p, int big)
{
   if (big)
      return (unsigned int)p[0] << 24 | (unsigned int)p[1] << 16
             | (unsigned int)p[2] << 8 | (unsigned int)p[3];
   return (unsigned int)p[3] << 24 | (unsigned int)p[2] << 16
          | (unsigned int)p[1] << 8 | (unsigned int)p[0];
}
static inline unsigned long long jitformats_ld64(const unsigned char* p,
                                                 int big)
{
#if defined(__GNUC__)
   /* One 8-byte load (compilers do not join two 4-byte ones). */
   unsigned long long v;
   __builtin_memcpy(&v, p, sizeof(v));
   return (big != 0) == jitformats_host_big_endian() ? v
                                                     : __builtin_bswap64(v);
#else
   unsigned long long hi, lo;
   if (big) {
      hi = jitformats_ld32(p, 1);
      lo = jitformats_ld32(p + 4, 1);
   } else {
      hi = jitformats_ld32(p + 4, 0);
      lo = jitformats_ld32(p, 0);
   }
   return hi << 32 | lo;
#endif
}

/* The 2-, 4- and 8-byte fields at p in this program's byte order (the
   formats written by the process that reads them: BEAM's entries,
   .eh_frame records). */
static inline unsigned int jitformats_host16(const unsigned char* p)
{
   return jitformats_ld16(p, jitformats_host_big_endian());
}
static inline unsigned int jitformats_host32(const unsigned char* p)
{
   return jitformats_ld32(p, jitformats_host_big_endian());
}
static inline unsigned long long jitformats_host64(const unsigned char* p)
{
   return jitformats_ld64(p, jitformats_host_big_endian());
}

/* Stores the low `width` bytes (1 to 8) of v at p, big-endian if `big`,
   else little-endian: the writers' side of jitformats_ld. */
static inline void jitformats_st(unsigned char* p, unsigned int width,
                                 unsigned long long v, int big)
{
   unsigned int i;
   for (i = 0; i < width; i++)
      p[big ? width - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* jitformats_st of 8 bytes as one store (a compiler keeps the loop of
   jitformats_st a loop): the counterpart of jitformats_ld64, for
   copying 8 bytes at a time (jitnames.c's names). */
static inline void jitformats_st64(unsigned char* p, unsigned long long v,
                                   int big)
{
#if defined(__GNUC__)
   if ((big != 0) != jitformats_host_big_endian())
      v = __builtin_bswap64(v);
   __builtin_memcpy(p, &v, sizeof(v));
#else
   jitformats_st(p, 8, v, big);
#endif
}

/* Non-zero if the code range [addr, addr+size) does not fit below 2^64:
   its last byte addr+size-1 overflows.  A range ending exactly at 2^64
   is fine; an empty range never wraps. */
static inline int jitformats_range_wraps(unsigned long long addr,
                                         unsigned long long size)
{
   return size > 0 && addr + (size - 1) < addr;
}

/* Text written into a caller's buffer buf[0..size), NUL-terminated and
   cut to fit (nothing is written when size is 0).  The readers' texts
   with numbers (ML_(gdbelf_describe), ML_(jitdump_describe)) are built
   from one template per error code with jitformats_fill. */
typedef struct {
   char*         buf;
   unsigned long size, len;
} JitformatsText;

/* The text of one error code of a reader: what is wrong (its strerror)
   and a template of its numbers for jitformats_fill (its describe).
   Each reader keeps one table of them, indexed by code. */
typedef struct {
   const char* what;
   const char* numbers;
} JitformatsMessage;

/* Starts text output into buf[0..size). */
static inline void jitformats_text_init(JitformatsText* t, char* buf,
                                        unsigned long size)
{
   t->buf  = buf;
   t->size = size;
   t->len  = 0;
   if (size > 0)
      buf[0] = 0;
}

/* Appends the NUL-terminated string s (0 appends nothing). */
static inline void jitformats_put(JitformatsText* t, const char* s)
{
   for (; s != 0 && *s != 0; s++)
      if (t->len + 1 < t->size)
         t->buf[t->len++] = *s;
   if (t->size > 0)
      t->buf[t->len] = 0;
}

/* Appends v in decimal (base 10) or in hex with "0x" (base 16). */
static inline void jitformats_put_num(JitformatsText* t,
                                      unsigned long long v,
                                      unsigned int base)
{
   char         tmp[24];
   unsigned int i = sizeof(tmp) - 1;
   tmp[i] = 0;
   do {
      tmp[--i] = "0123456789abcdef"[v % base];
      v /= base;
   } while (v != 0);
   if (base == 16)
      jitformats_put(t, "0x");
   jitformats_put(t, tmp + i);
}

/* Appends a size of v bytes: "64 KiB", "1 MiB", "1 GiB" when v is a
   whole number of them, else "N bytes". */
static inline void jitformats_put_size(JitformatsText* t,
                                       unsigned long long v)
{
   static const char* const unit[] = { " KiB", " MiB", " GiB" };
   int u = -1;
   while (u < 2 && v >= 1024 && v % 1024 == 0) {
      v /= 1024;
      u++;
   }
   jitformats_put_num(t, v, 10);
   jitformats_put(t, u < 0 ? " bytes" : unit[u]);
}

/* Appends template `tmpl` with its fields filled: "{N}" is num[N] in
   decimal, "{xN}" num[N] in hex, "{zN}" num[N] as a size
   (jitformats_put_size), "{sN}" the string str[N] (N one digit; the
   caller's arrays must hold index N).  Other characters are copied. */
static inline void jitformats_fill(JitformatsText* t, const char* tmpl,
                                   const unsigned long long* num,
                                   const char* const* str)
{
   const char* p = tmpl;
   char        one[2];
   one[1] = 0;
   while (p != 0 && *p != 0) {
      /* Each byte looked at is read only when the one before it is not
         the NUL: a template may end anywhere. */
      char kind = p[0] == '{' ? p[1] : 0;
      int  skip = kind == 'x' || kind == 'z' || kind == 's' ? 1 : 0;
      char d    = kind == 0 ? 0 : p[1 + skip];
      if (d >= '0' && d <= '9' && p[2 + skip] == '}') {
         int i = d - '0';
         if (skip == 0)
            jitformats_put_num(t, num[i], 10);
         else if (kind == 'x')
            jitformats_put_num(t, num[i], 16);
         else if (kind == 'z')
            jitformats_put_size(t, num[i]);
         else
            jitformats_put(t, str[i]);
         p += 3 + skip;
         continue;
      }
      one[0] = *p++;
      jitformats_put(t, one);
   }
}

#ifdef __cplusplus
}
#endif

#endif /* __PRIV_JITBYTES_H */

/*--------------------------------------------------------------------*/
/*--- end                                          priv_jitbytes.h ---*/
/*--------------------------------------------------------------------*/
