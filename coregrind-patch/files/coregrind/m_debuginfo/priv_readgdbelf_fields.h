/*--------------------------------------------------------------------*/
/*--- The ELF fields the rules for GDB JIT objects read:           ---*/
/*--- offsets and readers.                priv_readgdbelf_fields.h ---*/
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

/* What readgdbelf.c, readgdbelf-dwarf.c and readgdbelf-text.c share:
   the offsets of the ELF fields they read, per class, and the helpers
   that read them from an object's image in its byte order.  Private to
   those files (the rules' interface is priv_readgdbelf.h); like them,
   portable C99 without libc and without Valgrind headers.  The helpers
   are static inline, as priv_jitbytes.h's are: each file that includes
   this header has its own copy, so the files stay as independent as
   the rest of the shared readers. */

#ifndef __PRIV_READGDBELF_FIELDS_H
#define __PRIV_READGDBELF_FIELDS_H

#include "priv_jitbytes.h"
#include "priv_readgdbelf.h"

/* Offsets of the fields read, per class (ELF specification). */
#define EI_CLASS_AT  4
#define EI_DATA_AT   5
#define EI_NIDENT    16

#define EHDR_SIZE(c)      ((c) == 64 ? 64u : 52u)
#define EHDR_TYPE          16u
#define EHDR_MACHINE       18u
#define EHDR_SHOFF(c)     ((c) == 64 ? 40u : 32u)
#define EHDR_SHENTSIZE(c) ((c) == 64 ? 58u : 46u)
#define EHDR_SHNUM(c)     ((c) == 64 ? 60u : 48u)
#define EHDR_SHSTRNDX(c)  ((c) == 64 ? 62u : 50u)

#define SHDR_SIZE(c)      ((c) == 64 ? 64u : 40u)
#define SHDR_TYPE          4u
#define SHDR_ADDR(c)      ((c) == 64 ? 16u : 12u)
#define SHDR_OFFSET(c)    ((c) == 64 ? 24u : 16u)
#define SHDR_LINK(c)      ((c) == 64 ? 40u : 24u)
#define SHDR_ENTSIZE(c)   ((c) == 64 ? 56u : 36u)

#define SYM_SIZE(c)       ((c) == 64 ? 24u : 16u)

/* Does [off, off + len) lie within n bytes?  No overflow. */
static inline int in_range(unsigned long long off, unsigned long long len,
                           unsigned long long n)
{
   return off <= n && len <= n - off;
}

/* A field of `width` bytes (1, 2, 4 or 8) at img+at in the object's
   byte order.  The caller has checked that it lies in the image. */
static inline unsigned long long rd(const GdbElfObject* o,
                                    unsigned long long at,
                                    unsigned int width)
{
   return jitformats_ld(o->img + at, width, o->big_endian);
}

/* A word of the object's class (4 or 8 bytes). */
static inline unsigned long long rd_word(const GdbElfObject* o,
                                         unsigned long long at)
{
   return rd(o, at, o->elf_class == 64 ? 8 : 4);
}

/* A new problem with code `code` at file offset `at`. */
static inline GdbElfError mk(int code, unsigned long long at)
{
   GdbElfError e;
   jitformats_zero(&e, sizeof(e));
   e.code = code;
   e.at   = at;
   return e;
}

/* File offset of section header i (the table lies in the image). */
static inline unsigned long long sh_at(const GdbElfObject* o, unsigned int i)
{
   return o->shoff + (unsigned long long)i * SHDR_SIZE(o->elf_class);
}

/* A symbol, decoded. */
typedef struct {
   unsigned int       name, type, shndx;
   unsigned long long value, size;
} Sym;

static inline void read_sym(const GdbElfObject* o, unsigned long long at,
                            Sym* s)
{
   if (o->elf_class == 64) {
      s->name  = (unsigned int)rd(o, at, 4);
      s->type  = o->img[at + 4] & 0xf;
      s->shndx = (unsigned int)rd(o, at + 6, 2);
      s->value = rd(o, at + 8, 8);
      s->size  = rd(o, at + 16, 8);
   } else {
      s->name  = (unsigned int)rd(o, at, 4);
      s->value = rd(o, at + 4, 4);
      s->size  = rd(o, at + 8, 4);
      s->type  = o->img[at + 12] & 0xf;
      s->shndx = (unsigned int)rd(o, at + 14, 2);
   }
}


#endif   /* __PRIV_READGDBELF_FIELDS_H */

/*--------------------------------------------------------------------*/
/*--- end                                 priv_readgdbelf_fields.h ---*/
/*--------------------------------------------------------------------*/
