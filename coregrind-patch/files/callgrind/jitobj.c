/*--------------------------------------------------------------------*/
/*--- Callgrind                                                    ---*/
/*---                  The machine code of JIT objects.   jitobj.c ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Callgrind, a Valgrind tool for call tracing.

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

/* Code that a JIT compiler generated has no file: annotating tools
   (KCachegrind's Machine Code view, objdump) cannot disassemble it
   from the profile's object name.  With --dump-instr=yes and
   --dump-jit-code=yes, Callgrind keeps a copy of the bytes of every
   block of JIT code when the block is instrumented (by dump time the
   JIT may have freed the memory or put other code there), and at each
   dump writes them into an ELF file per JIT object next to the
   profile, at the addresses the profile gives, with a function symbol
   for each function's code that ran.  The profile names that file as
   the object (ob=, cob=).

   Versions.  A JIT object's code is kept as versions, each a set of
   byte ranges that never disagree.  A block of a function goes to the
   version the function's earlier blocks went to (the function known by
   its name and entry address), if the block's bytes agree with that
   version's; otherwise, and for the function's first block, to the
   first version whose bytes at the block's addresses are the block's
   bytes or unknown; a block whose bytes differ from every version's at
   some address starts a new version.  So code that replaced other code
   at its addresses, and all later blocks of its function, are kept
   apart from the code that was there before, while the functions that
   stayed keep their version.  Version 1 is the object Callgrind
   already knows; version N > 1 is an object node of its own (named
   "OBJECT#N" inside Callgrind), so its functions and costs are dumped
   apart from the code that was at the same addresses before, under an
   ELF file of its own.  All files are written with the profile's file
   name as prefix:

     <profile>.<object>.elf        version 1
     <profile>.<object>.v<N>.elf   version N > 1

   where <object> is the JIT object's name with every character other
   than letters, digits and ".+-_:=@," replaced by '_' (then followed
   by ".o<number of the object in Callgrind>" to keep it unique), and
   <profile> is the output file's name without a directory and without
   the number of a dump part (all parts of a run share the files, and
   each dump rewrites the files whose code grew; a forked child, whose
   profile has a name of its own, writes all of them again under names
   for its profile).  The object names in
   the profile are these file names without directory: KCachegrind
   finds such a file next to the profile.

   A JIT object is recognised by its DebugInfo, which the core makes for
   each object the JIT names: it has no text mapping (Callgrind's object
   node has start and size 0).  Code without any name (object "???")
   is not kept. */

#include "global.h"
#include "pub_tool_oset.h"

#include <elf.h>

#if VG_WORDSIZE == 8
#  define JIT_ELF_SUPPORTED 1
#  if defined(VGA_amd64)
#    define JIT_ELF_MACHINE EM_X86_64
#  elif defined(VGA_arm64)
#    define JIT_ELF_MACHINE EM_AARCH64
#  elif defined(VGA_ppc64be) || defined(VGA_ppc64le)
#    define JIT_ELF_MACHINE EM_PPC64
#  elif defined(VGA_s390x)
#    define JIT_ELF_MACHINE EM_S390
#  elif defined(VGA_mips64)
#    define JIT_ELF_MACHINE EM_MIPS
#  elif defined(VGA_riscv64)
#    define JIT_ELF_MACHINE EM_RISCV
#  else
#    undef  JIT_ELF_SUPPORTED
#    define JIT_ELF_SUPPORTED 0
#  endif
#else
#  define JIT_ELF_SUPPORTED 0
#endif

/* A chunk never spans more bytes than this, so that the chunks of a
   version overlapping an address start at most this far below it. */
#define CHUNK_MAX 4096

/* Most runs of consecutive instructions a block may have to be kept. */
#define MAX_RUNS 64

/* Bytes of one version, at profile addresses (run-time address minus
   the object's offset, as dump.c writes them). */
typedef struct {
   Addr         start;      /* OSet key */
   UInt         len;
   const HChar* fn;         /* interned name of the code's function, or 0 */
   UChar*       bytes;
} Chunk;

typedef struct _JitCode JitCode;

/* One version of a JIT object's code; node of by_obj, keyed by its
   Callgrind object node. */
typedef struct {
   obj_node* obj;           /* OSet key */
   JitCode*  code;
   UInt      version;       /* 1 .. */
   OSet*     chunks;        /* of Chunk by start; disjoint */
   HChar*    file;          /* its file name (no directory), once written */
   Bool      dirty;         /* code added since the file was written */
} JitVersion;

/* The version a function's code went to, by the function's entry. */
typedef struct {
   Addr         entry;      /* OSet key */
   const HChar* fn;         /* interned */
   UInt         version;
} FnVersion;

/* A JIT object: its versions, [0] being version 1. */
struct _JitCode {
   XArray* versions;        /* of JitVersion* */
   OSet*   fns;             /* of FnVersion, by entry */
};

static OSet* by_obj   = 0;  /* of JitVersion, by obj_node* */
static OSet* fn_names = 0;  /* interned function names */

static Word cmp_name(const void* key, const void* elem)
{
   return VG_(strcmp)((const HChar*)key, (const HChar*)elem);
}

static const HChar* intern_name(const HChar* name)
{
   HChar* node;
   if (fn_names == 0)
      fn_names = VG_(OSetGen_Create)(0, cmp_name, VG_(malloc),
                                     "cl.jitobj.names.1", VG_(free));
   node = VG_(OSetGen_Lookup)(fn_names, name);
   if (node) return node;
   node = VG_(OSetGen_AllocNode)(fn_names, VG_(strlen)(name) + 1);
   VG_(strcpy)(node, name);
   VG_(OSetGen_Insert)(fn_names, node);
   return node;
}

static Bool is_jit_obj(const obj_node* obj)
{
   return obj->start == 0 && obj->size == 0
      && VG_(strcmp)(obj->name, "???") != 0;
}

static JitVersion* version_of(const obj_node* obj)
{
   UWord key = (UWord)obj;
   if (by_obj == 0) return 0;
   return VG_(OSetGen_Lookup)(by_obj, &key);
}

static JitVersion* new_version(JitCode* code, obj_node* obj)
{
   JitVersion* v = VG_(OSetGen_AllocNode)(by_obj, sizeof(JitVersion));
   v->obj     = obj;
   v->code    = code;
   v->version = (UInt)VG_(sizeXA)(code->versions) + 1;
   v->chunks  = VG_(OSetGen_Create)(offsetof(Chunk, start), NULL,
                                    VG_(malloc), "cl.jitobj.chunks.1",
                                    VG_(free));
   v->file    = 0;
   v->dirty   = False;
   VG_(addToXA)(code->versions, &v);
   VG_(OSetGen_Insert)(by_obj, v);
   return v;
}

/* The first chunk of v that overlaps [a, a+len), or 0. */
/* A further object node named name, mapped as base: a version of a JIT
 * object's code.  It is not in the object table: BBs refer to it. */
static obj_node* new_obj_node_like(const obj_node* base, const HChar* name)
{
    obj_node* obj = CLG_(new_unlisted_obj_node)();
    Int i;

    obj->name   = VG_(strdup)("cl.jitobj.nonl.1", name);
    obj->start  = base->start;
    obj->size   = base->size;
    obj->offset = base->offset;
    obj->last_slash_pos = 0;
    for (i = 0; obj->name[i]; i++)
	if (obj->name[i] == '/') obj->last_slash_pos = i+1;
    return obj;
}

static Chunk* first_overlap(JitVersion* v, Addr a, UInt len)
{
   Chunk* c;
   UWord from = a > CHUNK_MAX ? a - CHUNK_MAX : 0;
   VG_(OSetGen_ResetIterAt)(v->chunks, &from);
   while ((c = VG_(OSetGen_Next)(v->chunks)) != 0) {
      if (c->start >= a + len) return 0;
      if (c->start + c->len > a) return c;
   }
   return 0;
}

/* Do the bytes v has in [a, a+len) equal bytes? */
static Bool agrees(JitVersion* v, Addr a, UInt len, const UChar* bytes)
{
   Chunk* c;
   UWord from = a > CHUNK_MAX ? a - CHUNK_MAX : 0;
   VG_(OSetGen_ResetIterAt)(v->chunks, &from);
   while ((c = VG_(OSetGen_Next)(v->chunks)) != 0) {
      Addr lo, hi;
      if (c->start >= a + len) break;
      if (c->start + c->len <= a) continue;
      lo = c->start > a ? c->start : a;
      hi = c->start + c->len < a + len ? c->start + c->len : a + len;
      if (VG_(memcmp)(bytes + (lo - a), c->bytes + (lo - c->start),
                      hi - lo) != 0)
         return False;
   }
   return True;
}

static void insert_chunks(JitVersion* v, Addr a, UInt len,
                          const UChar* bytes, const HChar* fn)
{
   while (len > 0) {
      UInt   n = len > CHUNK_MAX ? CHUNK_MAX : len;
      Chunk* c = VG_(OSetGen_AllocNode)(v->chunks, sizeof(Chunk));
      c->start = a;
      c->len   = n;
      c->fn    = fn;
      c->bytes = VG_(malloc)("cl.jitobj.bytes.1", n);
      VG_(memcpy)(c->bytes, bytes, n);
      VG_(OSetGen_Insert)(v->chunks, c);
      a += n; bytes += n; len -= n;
      v->dirty = True;
   }
}

/* Adds the bytes of [a, a+len) that v does not have yet (v agrees with
   the others). */
static void add_range(JitVersion* v, Addr a, UInt len,
                      const UChar* bytes, const HChar* fn)
{
   while (len > 0) {
      Chunk* c = first_overlap(v, a, len);
      Addr   end;
      if (c == 0) {
         insert_chunks(v, a, len, bytes, fn);
         return;
      }
      if (c->start > a) {
         insert_chunks(v, a, c->start - a, bytes, fn);
         bytes += c->start - a;
         len   -= c->start - a;
         a      = c->start;
      }
      end = c->start + c->len;
      if (end >= a + len) return;
      bytes += end - a;
      len   -= end - a;
      a      = end;
   }
}

/* The entry of the function fn that addr is in: VG_(get_fnname_w_offset)
   gives "fn+OFFSET" (just fn at the entry). */
static Addr function_entry(Addr addr, const HChar* fn)
{
   const HChar* with_off;
   SizeT        len = VG_(strlen)(fn);
   Long         off = 0;
   const HChar* p;

   if (!VG_(get_fnname_w_offset)(VG_(current_DiEpoch)(), addr, &with_off)
       || VG_(strncmp)(with_off, fn, len) != 0 || with_off[len] != '+')
      return addr;
   for (p = with_off + len + 1; *p >= '0' && *p <= '9'; p++)
      off = off * 10 + (*p - '0');
   return *p == 0 ? addr - (Addr)off : addr;
}

/* A block's instructions as runs of consecutive bytes. */
typedef struct {
   Int  n;
   Addr start[MAX_RUNS];
   UInt len[MAX_RUNS];
} Runs;

/* The runs of the instructions of bbIn into *r; False if there are more
   than MAX_RUNS (the block is not kept). */
static Bool block_runs(const IRSB* bbIn, Runs* r)
{
   Int i;
   r->n = 0;
   for (i = 0; i < bbIn->stmts_used; i++) {
      const IRStmt* st = bbIn->stmts[i];
      Addr ia;
      UInt il;
      if (st->tag != Ist_IMark) continue;
      ia = (Addr)st->Ist.IMark.addr;
      il = st->Ist.IMark.len;
      if (il == 0) continue;
      if (r->n > 0 && r->start[r->n-1] + r->len[r->n-1] == ia) {
         r->len[r->n-1] += il;
         continue;
      }
      if (r->n == MAX_RUNS) return False;
      r->start[r->n] = ia;
      r->len[r->n]   = il;
      r->n++;
   }
   return True;
}

/* Do the bytes v has agree with the bytes of every run of r (at
   run-time addresses, obj's offset below the profile's)? */
static Bool agrees_with_runs(JitVersion* v, const Runs* r,
                             const obj_node* obj)
{
   Int i;
   for (i = 0; i < r->n; i++)
      if (!agrees(v, r->start[i] - obj->offset, r->len[i],
                  (const UChar*)r->start[i]))
         return False;
   return True;
}

/* The code of the JIT object whose first version is obj's, made with
   its version 1 (obj) on first use. */
static JitCode* code_of(obj_node* obj)
{
   JitVersion* v;
   JitCode*    code;
   if (by_obj == 0)
      by_obj = VG_(OSetGen_Create)(offsetof(JitVersion, obj), NULL,
                                   VG_(malloc), "cl.jitobj.objs.1",
                                   VG_(free));
   v = version_of(obj);
   if (v != 0)
      return v->code;
   code = VG_(malloc)("cl.jitobj.code.1", sizeof(JitCode));
   code->versions = VG_(newXA)(VG_(malloc), "cl.jitobj.code.2",
                               VG_(free), sizeof(JitVersion*));
   code->fns = VG_(OSetGen_Create)(offsetof(FnVersion, entry), NULL,
                                   VG_(malloc), "cl.jitobj.code.3",
                                   VG_(free));
   return new_version(code, obj)->code;
}

/* The version of code a block's runs r go to: the version of the
   block's function (fv, found by its entry; 0 if none), if the bytes
   agree; else the first version they agree with; else a new one. */
static JitVersion* version_for(JitCode* code, const obj_node* obj,
                               const Runs* r, const FnVersion* fv,
                               const HChar* fn)
{
   Word n = VG_(sizeXA)(code->versions), k;
   JitVersion* first;
   HChar*      name;
   JitVersion* v;

   if (fv && fv->fn == fn) {
      JitVersion* cand =
         *(JitVersion**)VG_(indexXA)(code->versions, fv->version - 1);
      if (agrees_with_runs(cand, r, obj)) return cand;
   }
   for (k = 0; k < n; k++) {
      JitVersion* cand = *(JitVersion**)VG_(indexXA)(code->versions, k);
      if (agrees_with_runs(cand, r, obj)) return cand;
   }
   first = *(JitVersion**)VG_(indexXA)(code->versions, 0);
   name  = VG_(malloc)("cl.jitobj.vname.1",
                       VG_(strlen)(first->obj->name) + 16);
   VG_(sprintf)(name, "%s#%u", first->obj->name, (UInt)n + 1);
   v = new_version(code, new_obj_node_like(first->obj, name));
   VG_(free)(name);
   return v;
}

/* Says once, at the first block, that --dump-jit-code=yes does nothing
   on this platform. */
static void warn_unsupported_once(void)
{
#if !JIT_ELF_SUPPORTED
   static Bool said_unsupported = False;
   if (CLG_(clo).dump_jit_code && !said_unsupported) {
      said_unsupported = True;
      VG_(umsg)("Warning: --dump-jit-code=yes is not supported on this "
                "platform (the ELF files are written on 64-bit platforms "
                "only): no files will be written\n");
   }
#endif
}

obj_node* CLG_(jit_code_capture)(obj_node* obj, Addr addr, IRSB* bbIn)
{
   Runs         r;
   Int          i;
   JitVersion*  v;
   JitCode*     code;
   const HChar* fnname;
   const HChar* fn = 0;
   Addr         entry = addr;
   FnVersion*   fv = 0;

   warn_unsupported_once();
   if (!JIT_ELF_SUPPORTED || !CLG_(clo).dump_jit_code
       || !CLG_(clo).dump_instr || !is_jit_obj(obj))
      return obj;
   if (!block_runs(bbIn, &r) || r.n == 0)
      return obj;

   if (VG_(get_fnname)(VG_(current_DiEpoch)(), addr, &fnname)) {
      fn = intern_name(fnname);
      entry = function_entry(addr, fn);
   }
   code = code_of(obj);
   if (fn) {
      UWord key = entry - obj->offset;
      fv = VG_(OSetGen_Lookup)(code->fns, &key);
   }
   v = version_for(code, obj, &r, fv, fn);

   for (i = 0; i < r.n; i++)
      add_range(v, r.start[i] - obj->offset, r.len[i],
                (const UChar*)r.start[i], fn);
   /* The function's code went to v: its next blocks look there first. */
   if (fn) {
      if (fv == 0) {
         fv = VG_(OSetGen_AllocNode)(code->fns, sizeof(FnVersion));
         fv->entry = entry - obj->offset;
         VG_(OSetGen_Insert)(code->fns, fv);
      }
      fv->fn      = fn;
      fv->version = v->version;
   }
   return v->obj;
}

UInt CLG_(jit_code_version)(const obj_node* obj)
{
   JitVersion* v = version_of(obj);
   return v ? v->version : 0;
}

obj_node* CLG_(jit_code_version_obj)(const obj_node* obj, UInt version)
{
   JitVersion* v = version_of(obj);
   if (v == 0 || version < 1
       || version > (UInt)VG_(sizeXA)(v->code->versions))
      return 0;
   return (*(JitVersion**)VG_(indexXA)(v->code->versions, version - 1))->obj;
}

const HChar* CLG_(jit_code_obj_name)(const obj_node* obj)
{
   JitVersion* v = version_of(obj);
   return v && v->file ? v->file : obj->name;
}


/*------------------------------------------------------------*/
/*--- ELF files                                            ---*/
/*------------------------------------------------------------*/

#if JIT_ELF_SUPPORTED

static Bool   warned_write = False;
static HChar* named_for   = 0;  /* the profile name the files are named for */

static HChar* file_name_of(const JitVersion* v, const HChar* out_file)
{
   const JitVersion* first =
      *(JitVersion**)VG_(indexXA)(v->code->versions, 0);
   const HChar* objname = first->obj->name;
   const HChar* base = VG_(strrchr)(out_file, '/');
   SizeT  olen = VG_(strlen)(objname);
   HChar* name;
   Bool   changed = False;
   SizeT  i, p;

   base = base ? base + 1 : out_file;
   if (olen > 100) { olen = 100; changed = True; }
   name = VG_(malloc)("cl.jitobj.fname.1", VG_(strlen)(base) + olen + 48);
   p = VG_(sprintf)(name, "%s.", base);
   for (i = 0; i < olen; i++) {
      HChar ch = objname[i];
      Bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
             || (ch >= '0' && ch <= '9') || VG_(strchr)(".+-_:=@,", ch);
      if (!ok) changed = True;
      name[p++] = ok ? ch : '_';
   }
   name[p] = 0;
   if (changed)
      p += VG_(sprintf)(name + p, ".o%u", first->obj->number);
   if (v->version > 1)
      p += VG_(sprintf)(name + p, ".v%u", v->version);
   VG_(sprintf)(name + p, ".elf");
   return name;
}

/* A growing byte buffer. */
typedef struct { UChar* b; SizeT used, size; } Buf;

static void put(Buf* buf, const void* data, SizeT n)
{
   if (buf->used + n > buf->size) {
      SizeT size = buf->size ? buf->size : 4096;
      while (buf->used + n > size) size *= 2;
      buf->b = VG_(realloc)("cl.jitobj.buf.1", buf->b, size);
      buf->size = size;
   }
   if (data) VG_(memcpy)(buf->b + buf->used, data, n);
   else      VG_(memset)(buf->b + buf->used, 0, n);
   buf->used += n;
}

static void align(Buf* buf, SizeT a)
{
   while (buf->used % a) put(buf, 0, 1);
}

/* An ELF image being made: the file's bytes, and the section headers,
   symbols and symbol names that go after them. */
typedef struct {
   Buf  out, shdrs, syms, strs;
   UInt nsec;               /* code sections so far */
} Image;

static const HChar shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";

/* Appends v's code to img: one executable section per run of
   contiguous bytes (at the run's address), a function symbol for each
   stretch of contiguous code of one function. */
static void put_code(JitVersion* v, Image* img)
{
   Elf64_Shdr sh;
   Elf64_Sym  sym;
   Chunk *c, *prev = 0;
   Elf64_Off sym_start = 0;
   Bool   sym_open = False;

   VG_(OSetGen_ResetIter)(v->chunks);
   for (;;) {
      Bool contiguous;
      c = VG_(OSetGen_Next)(v->chunks);
      contiguous = c && prev && prev->start + prev->len == c->start;

      /* Close the open function symbol unless c continues it. */
      if (sym_open && !(contiguous && c->fn == prev->fn)) {
         Elf64_Sym* s = (Elf64_Sym*)(img->syms.b + img->syms.used
                                     - sizeof sym);
         s->st_size = prev->start + prev->len - sym_start;
         sym_open = False;
      }
      /* Close the open section unless c continues it. */
      if (img->nsec > 0 && !contiguous) {
         Elf64_Shdr* s = (Elf64_Shdr*)(img->shdrs.b
                                       + img->nsec * sizeof sh);
         s->sh_size = img->out.used - s->sh_offset;
      }
      if (c == 0) break;
      if (!contiguous) {
         VG_(memset)(&sh, 0, sizeof sh);
         sh.sh_name      = 1;                 /* .text */
         sh.sh_type      = SHT_PROGBITS;
         sh.sh_flags     = SHF_ALLOC | SHF_EXECINSTR;
         sh.sh_addr      = c->start;
         sh.sh_offset    = img->out.used;
         sh.sh_addralign = 1;
         put(&img->shdrs, &sh, sizeof sh);
         img->nsec++;
      }
      if (!sym_open && c->fn) {
         VG_(memset)(&sym, 0, sizeof sym);
         sym.st_name  = img->strs.used;
         sym.st_info  = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
         sym.st_shndx = img->nsec;
         sym.st_value = c->start;
         put(&img->strs, c->fn, VG_(strlen)(c->fn) + 1);
         put(&img->syms, &sym, sizeof sym);
         sym_start = c->start;
         sym_open  = True;
      }
      put(&img->out, c->bytes, c->len);
      prev = c;
   }
}

/* Appends to img, after its code, the symbol table, its string table
   and the section names, with their section headers. */
static void put_tables(Image* img)
{
   Elf64_Shdr sh;
   SizeT      symtab_off, strtab_off, shstr_off;

   align(&img->out, 8);
   symtab_off = img->out.used;
   put(&img->out, img->syms.b, img->syms.used);
   strtab_off = img->out.used;
   put(&img->out, img->strs.b, img->strs.used);
   shstr_off = img->out.used;
   put(&img->out, shstr, sizeof shstr);
   align(&img->out, 8);

   VG_(memset)(&sh, 0, sizeof sh);
   sh.sh_name      = 7;                        /* .symtab */
   sh.sh_type      = SHT_SYMTAB;
   sh.sh_offset    = symtab_off;
   sh.sh_size      = img->syms.used;
   sh.sh_link      = img->nsec + 2;            /* .strtab */
   sh.sh_info      = 1;                        /* first global symbol */
   sh.sh_addralign = 8;
   sh.sh_entsize   = sizeof(Elf64_Sym);
   put(&img->shdrs, &sh, sizeof sh);
   VG_(memset)(&sh, 0, sizeof sh);
   sh.sh_name      = 15;                       /* .strtab */
   sh.sh_type      = SHT_STRTAB;
   sh.sh_offset    = strtab_off;
   sh.sh_size      = img->strs.used;
   sh.sh_addralign = 1;
   put(&img->shdrs, &sh, sizeof sh);
   VG_(memset)(&sh, 0, sizeof sh);
   sh.sh_name      = 23;                       /* .shstrtab */
   sh.sh_type      = SHT_STRTAB;
   sh.sh_offset    = shstr_off;
   sh.sh_size      = sizeof shstr;
   sh.sh_addralign = 1;
   put(&img->shdrs, &sh, sizeof sh);
}

/* Appends img's section headers and writes its ELF header, at the
   start of the file. */
static void put_header(Image* img)
{
   Elf64_Ehdr eh;
   VG_(memset)(&eh, 0, sizeof eh);
   eh.e_ident[EI_MAG0]    = ELFMAG0;
   eh.e_ident[EI_MAG1]    = ELFMAG1;
   eh.e_ident[EI_MAG2]    = ELFMAG2;
   eh.e_ident[EI_MAG3]    = ELFMAG3;
   eh.e_ident[EI_CLASS]   = ELFCLASS64;
#  if defined(VG_BIGENDIAN)
   eh.e_ident[EI_DATA]    = ELFDATA2MSB;
#  else
   eh.e_ident[EI_DATA]    = ELFDATA2LSB;
#  endif
   eh.e_ident[EI_VERSION] = EV_CURRENT;
   eh.e_type      = ET_EXEC;
   eh.e_machine   = JIT_ELF_MACHINE;
   eh.e_version   = EV_CURRENT;
   eh.e_ehsize    = sizeof(Elf64_Ehdr);
   eh.e_shentsize = sizeof(Elf64_Shdr);
   eh.e_shoff     = img->out.used;
   eh.e_shnum     = img->nsec + 4;
   eh.e_shstrndx  = img->nsec + 3;
   put(&img->out, img->shdrs.b, img->shdrs.used);
   VG_(memcpy)(img->out.b, &eh, sizeof eh);
}

/* The ELF image of v: its code (put_code), then its symbols and section
   names (put_tables), then the section headers (put_header). */
static Buf elf_image(JitVersion* v)
{
   Image      img;
   Elf64_Shdr sh;
   Elf64_Sym  sym;

   VG_(memset)(&img, 0, sizeof img);
   put(&img.out, 0, sizeof(Elf64_Ehdr));
   VG_(memset)(&sh, 0, sizeof sh);
   put(&img.shdrs, &sh, sizeof sh);           /* section 0 */
   put(&img.strs, "", 1);
   VG_(memset)(&sym, 0, sizeof sym);
   put(&img.syms, &sym, sizeof sym);          /* symbol 0 */

   put_code(v, &img);
   put_tables(&img);
   put_header(&img);

   VG_(free)(img.syms.b);
   VG_(free)(img.strs.b);
   VG_(free)(img.shdrs.b);
   return img.out;
}

static void write_version(JitVersion* v, const HChar* dir, SizeT dirlen)
{
   HChar* path = VG_(malloc)("cl.jitobj.path.1",
                             dirlen + VG_(strlen)(v->file) + 2);
   SysRes res;
   Buf    img;

   VG_(memcpy)(path, dir, dirlen);
   path[dirlen] = '/';
   VG_(strcpy)(path + dirlen + 1, v->file);
   res = VG_(open)(path, VKI_O_CREAT|VKI_O_WRONLY|VKI_O_TRUNC,
                   VKI_S_IRUSR|VKI_S_IWUSR|VKI_S_IRGRP|VKI_S_IROTH);
   if (sr_isError(res)) {
      if (!warned_write)
         VG_(message)(Vg_UserMsg, "warning: cannot write the JIT code "
                      "file %s: the profile names it anyway\n", path);
      warned_write = True;
      VG_(free)(path);
      return;
   }
   img = elf_image(v);
   if (VG_(write)(sr_Res(res), img.b, (Int)img.used) != (Int)img.used
       && !warned_write) {
      VG_(message)(Vg_UserMsg, "warning: short write to %s\n", path);
      warned_write = True;
   }
   VG_(close)(sr_Res(res));
   VG_(free)(img.b);
   VG_(free)(path);
   v->dirty = False;
}

#endif /* JIT_ELF_SUPPORTED */

void CLG_(jit_code_write)(const HChar* out_file)
{
#if JIT_ELF_SUPPORTED
   const HChar* slash;
   JitVersion*  v;

   if (by_obj == 0) return;
   /* A new profile name (a forked child's): new files, all written. */
   if (named_for == 0 || VG_(strcmp)(named_for, out_file) != 0) {
      VG_(OSetGen_ResetIter)(by_obj);
      while ((v = VG_(OSetGen_Next)(by_obj)) != 0) {
         if (v->file) VG_(free)(v->file);
         v->file  = 0;
         v->dirty = True;
      }
      if (named_for) VG_(free)(named_for);
      named_for = VG_(strdup)("cl.jitobj.named.1", out_file);
   }
   slash = VG_(strrchr)(out_file, '/');
   VG_(OSetGen_ResetIter)(by_obj);
   while ((v = VG_(OSetGen_Next)(by_obj)) != 0) {
      if (VG_(OSetGen_Size)(v->chunks) == 0) continue;
      if (v->file == 0)
         v->file = file_name_of(v, out_file);
      if (v->dirty) {
         if (slash) write_version(v, out_file, slash - out_file);
         else       write_version(v, ".", 1);
      }
   }
#endif
}

/*--------------------------------------------------------------------*/
/*--- end                                                 jitobj.c ---*/
/*--------------------------------------------------------------------*/
