/* Regression test of the GDB JIT interface (GDB manual, "JIT Compilation
   Interface"): the program copies two functions into fresh memory, builds
   an ELF object describing them in memory (symbols, a DWARF line table
   and .eh_frame call frame information), registers it through
   __jit_debug_descriptor and __jit_debug_register_code, and calls them
   with an uninitialised value.

   - jit_gdb_leaf is a leaf that keeps no frame: Memcheck's error names
     it and its line (jit_gdb.src:4).
   - jit_gdb_frameless moves the stack pointer, stores 0 where a return
     address would be and sets %rbp to 0, so only its CFI leads back to
     main: the error's stack trace reaches main only if the unwinder
     uses the object's .eh_frame.

   Then the object is unregistered and jit_gdb_leaf called again: its
   code stays mapped and unchanged, so its name, line and CFI stay until
   the code is unmapped (jitkeep.c).  Results go to stdout. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__linux__)
#include <elf.h>
#include <stdint.h>
#include <sys/mman.h>

/* The DWARF and .eh_frame encodings used (DWARF 2, section 7; the
   Linux Standard Base's .eh_frame). */
enum {
   DW_TAG_compile_unit = 0x11, DW_CHILDREN_no = 0,
   DW_AT_name = 0x03, DW_AT_stmt_list = 0x10,
   DW_FORM_string = 0x08, DW_FORM_data4 = 0x06,
   DW_LNS_copy = 1, DW_LNS_advance_pc = 2, DW_LNS_advance_line = 3,
   DW_LNE_end_sequence = 1, DW_LNE_set_address = 2,
   DW_CFA_advance_loc = 0x40, DW_CFA_offset = 0x80, DW_CFA_restore = 0xc0,
   DW_CFA_def_cfa = 0x0c, DW_CFA_def_cfa_offset = 0x0e,
   DW_EH_PE_absptr = 0x00
};

/* The interface, as the JIT defines it. */
typedef enum { JIT_NOACTION = 0, JIT_REGISTER_FN, JIT_UNREGISTER_FN }
   jit_actions_t;

struct jit_code_entry {
   struct jit_code_entry* next_entry;
   struct jit_code_entry* prev_entry;
   const char*            symfile_addr;
   uint64_t               symfile_size;
};

struct jit_descriptor {
   uint32_t               version;
   uint32_t               action_flag;
   struct jit_code_entry* relevant_entry;
   struct jit_code_entry* first_entry;
};

struct jit_descriptor __jit_debug_descriptor = { 1, 0, NULL, NULL };

void __attribute__((noinline)) __jit_debug_register_code(void)
{
   __asm__ __volatile__("" ::: "memory");
}

/* int jit_gdb_leaf(const int* p): return *p ? 1 : 2 */
static const unsigned char leaf_code[] = {
   0x8b, 0x07,                    /*  0: mov  (%rdi),%eax   line 3 */
   0x85, 0xc0,                    /*  2: test %eax,%eax     line 3 */
   0x74, 0x06,                    /*  4: je   12            line 4 */
   0xb8, 0x01, 0x00, 0x00, 0x00,  /*  6: mov  $1,%eax       line 5 */
   0xc3,                          /* 11: ret                       */
   0xb8, 0x02, 0x00, 0x00, 0x00,  /* 12: mov  $2,%eax       line 6 */
   0xc3                           /* 17: ret                       */
};

/* int jit_gdb_frameless(const int* p): the same, with %rbp saved and
   cleared and 16 bytes of stack whose lowest word is 0. */
static const unsigned char frameless_code[] = {
   0x55,                          /*  0: push %rbp          line 10 */
   0x31, 0xed,                    /*  1: xor  %ebp,%ebp     line 10 */
   0x48, 0x83, 0xec, 0x10,        /*  3: sub  $16,%rsp      line 10 */
   0x48, 0xc7, 0x04, 0x24,
   0x00, 0x00, 0x00, 0x00,        /*  7: movq $0,(%rsp)     line 11 */
   0x8b, 0x07,                    /* 15: mov  (%rdi),%eax   line 12 */
   0x85, 0xc0,                    /* 17: test %eax,%eax     line 12 */
   0x74, 0x07,                    /* 19: je   28            line 13 */
   0xb8, 0x01, 0x00, 0x00, 0x00,  /* 21: mov  $1,%eax       line 14 */
   0xeb, 0x05,                    /* 26: jmp  33                    */
   0xb8, 0x02, 0x00, 0x00, 0x00,  /* 28: mov  $2,%eax       line 15 */
   0x48, 0x83, 0xc4, 0x10,        /* 33: add  $16,%rsp      line 16 */
   0x5d,                          /* 37: pop  %rbp                  */
   0xc3                           /* 38: ret                        */
};

#define FRAMELESS_OFFSET 32   /* in the code memory */
#define CODE_BYTES       4096

/* Line tables: (offset, line) pairs of each function. */
static const unsigned leaf_lines[][2] = {
   { 0, 3 }, { 4, 4 }, { 6, 5 }, { 12, 6 }
};
static const unsigned frameless_lines[][2] = {
   { 0, 10 }, { 7, 11 }, { 15, 12 }, { 19, 13 }, { 21, 14 }, { 28, 15 },
   { 33, 16 }
};

/* The object is built here. */
static unsigned char image[8192];
static size_t        used;

static size_t put ( const void* p, size_t n )
{
   size_t at = used;
   if (used + n > sizeof image) {
      fprintf(stderr, "image too small\n");
      exit(1);
   }
   memcpy(image + used, p, n);
   used += n;
   return at;
}

static void put_u8  ( unsigned v ) { unsigned char b = v; put(&b, 1); }
static void put_u16 ( unsigned v ) { uint16_t x = v; put(&x, 2); }
static void put_u32 ( uint32_t v ) { put(&v, 4); }
static void put_u64 ( uint64_t v ) { put(&v, 8); }
static void put_str ( const char* s ) { put(s, strlen(s) + 1); }

static void put_uleb ( uint64_t v )
{
   do {
      unsigned char b = v & 0x7f;
      v >>= 7;
      put_u8(v ? b | 0x80 : b);
   } while (v);
}

static void put_sleb ( int64_t v )
{
   for (;;) {
      unsigned char b = v & 0x7f;
      v >>= 7;   /* arithmetic */
      if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
         put_u8(b);
         return;
      }
      put_u8(b | 0x80);
   }
}

static void align ( size_t a )
{
   while (used % a)
      put_u8(0);
}

static void patch_u32 ( size_t at, uint32_t v ) { memcpy(image + at, &v, 4); }

/* A line-number program sequence for one function at addr. */
static void put_line_sequence ( uintptr_t addr, size_t size,
                                const unsigned (*lines)[2], size_t n )
{
   size_t   i;
   unsigned off = 0, line = 1;
   put_u8(0); put_uleb(9); put_u8(DW_LNE_set_address); put_u64(addr);
   for (i = 0; i < n; i++) {
      if (lines[i][0] != off) {
         put_u8(DW_LNS_advance_pc); put_uleb(lines[i][0] - off);
      }
      put_u8(DW_LNS_advance_line);
      put_sleb((int64_t)lines[i][1] - (int64_t)line);
      put_u8(DW_LNS_copy);
      off  = lines[i][0];
      line = lines[i][1];
   }
   put_u8(DW_LNS_advance_pc); put_uleb(size - off);
   put_u8(0); put_uleb(1); put_u8(DW_LNE_end_sequence);
}

/* An FDE for [addr, addr+size), after the CIE at cie (absolute
   pointers: the code may lie further than 2GB from the object). */
static size_t fde_start ( size_t cie, uintptr_t addr, size_t size )
{
   size_t len = used;
   put_u32(0);                              /* length, patched */
   put_u32((uint32_t)(used - cie));         /* CIE pointer */
   put_u64(addr);                           /* pc_begin */
   put_u64(size);                           /* pc_range */
   put_uleb(0);                             /* augmentation data */
   return len;
}

static void record_end ( size_t len )
{
   align(8);
   patch_u32(len, (uint32_t)(used - len - 4));
}

enum { S_NULL, S_TEXT, S_SYMTAB, S_STRTAB, S_ABBREV, S_INFO, S_LINE,
       S_EH_FRAME, S_SHSTRTAB, N_SECTIONS };

static Elf64_Shdr shdr[N_SECTIONS];

static void section ( int i, uint32_t type, uint64_t flags,
                      size_t off, size_t end )
{
   shdr[i].sh_type   = type;
   shdr[i].sh_flags  = flags;
   shdr[i].sh_offset = off;
   shdr[i].sh_size   = end - off;
   shdr[i].sh_addralign = 1;
}

/* .text: a copy of the code, at its load address. */
static void put_text ( const unsigned char* code )
{
   size_t off = put(code, FRAMELESS_OFFSET + sizeof frameless_code);
   section(S_TEXT, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, off, used);
   shdr[S_TEXT].sh_addr = (uintptr_t)code;
   shdr[S_TEXT].sh_addralign = 16;
}

/* .strtab and .symtab: the null symbol, the file, the two functions. */
static void put_symbols ( uintptr_t leaf, uintptr_t frameless )
{
   Elf64_Sym sym;
   size_t    off = used;
   size_t    str_file, str_leaf, str_frameless;

   put_u8(0);
   str_file      = put("jit_gdb.src", 12) - off;
   str_leaf      = put("jit_gdb_leaf", 13) - off;
   str_frameless = put("jit_gdb_frameless", 18) - off;
   section(S_STRTAB, SHT_STRTAB, 0, off, used);

   align(8);
   off = used;
   memset(&sym, 0, sizeof sym);
   put(&sym, sizeof sym);
   sym.st_name  = str_file;
   sym.st_info  = ELF64_ST_INFO(STB_LOCAL, STT_FILE);
   sym.st_shndx = SHN_ABS;
   put(&sym, sizeof sym);
   sym.st_name  = str_leaf;
   sym.st_info  = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
   sym.st_shndx = S_TEXT;
   sym.st_value = leaf;
   sym.st_size  = sizeof leaf_code;
   put(&sym, sizeof sym);
   sym.st_name  = str_frameless;
   sym.st_value = frameless;
   sym.st_size  = sizeof frameless_code;
   put(&sym, sizeof sym);
   section(S_SYMTAB, SHT_SYMTAB, 0, off, used);
   shdr[S_SYMTAB].sh_link = S_STRTAB;
   shdr[S_SYMTAB].sh_info = 2;   /* first global */
   shdr[S_SYMTAB].sh_entsize = sizeof sym;
   shdr[S_SYMTAB].sh_addralign = 8;
}

/* .debug_abbrev and .debug_info: one DWARF 2 compile unit with a name
   and a line table. */
static void put_compile_unit ( void )
{
   size_t off = used;
   put_uleb(1); put_uleb(DW_TAG_compile_unit); put_u8(DW_CHILDREN_no);
   put_uleb(DW_AT_name);      put_uleb(DW_FORM_string);
   put_uleb(DW_AT_stmt_list); put_uleb(DW_FORM_data4);
   put_uleb(0); put_uleb(0);
   put_uleb(0);
   section(S_ABBREV, SHT_PROGBITS, 0, off, used);

   off = used;
   put_u32(0);          /* unit_length, patched */
   put_u16(2);          /* version */
   put_u32(0);          /* debug_abbrev_offset */
   put_u8(8);           /* address_size */
   put_uleb(1);
   put_str("jit_gdb.src");
   put_u32(0);          /* DW_AT_stmt_list */
   patch_u32(off, (uint32_t)(used - off - 4));
   section(S_INFO, SHT_PROGBITS, 0, off, used);
}

/* .debug_line: a DWARF 2 line-number program, one sequence per
   function. */
static void put_line_program ( uintptr_t leaf, uintptr_t frameless )
{
   static const unsigned char lengths[12] =
      { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
   size_t off = used, len, hdr_len;

   put_u32(0);          /* unit_length, patched */
   put_u16(2);          /* version */
   len = used;
   put_u32(0);          /* header_length, patched */
   hdr_len = used;
   put_u8(1);           /* minimum_instruction_length */
   put_u8(1);           /* default_is_stmt */
   put_u8((unsigned char)-5);   /* line_base */
   put_u8(14);          /* line_range */
   put_u8(13);          /* opcode_base */
   put(lengths, sizeof lengths);
   put_u8(0);           /* no include_directories */
   put_str("jit_gdb.src"); put_uleb(0); put_uleb(0); put_uleb(0);
   put_u8(0);           /* end of file_names */
   patch_u32(len, (uint32_t)(used - hdr_len));
   put_line_sequence(leaf, sizeof leaf_code, leaf_lines,
                     sizeof leaf_lines / sizeof leaf_lines[0]);
   put_line_sequence(frameless, sizeof frameless_code, frameless_lines,
                     sizeof frameless_lines / sizeof frameless_lines[0]);
   patch_u32(off, (uint32_t)(used - off - 4));
   section(S_LINE, SHT_PROGBITS, 0, off, used);
}

/* .eh_frame: a CIE (CFA = %rsp + 8, return address at CFA - 8) and an
   FDE per function. */
static void put_eh_frame ( uintptr_t leaf, uintptr_t frameless )
{
   size_t off, cie, fde;

   align(8);
   off = cie = used;
   put_u32(0);          /* length, patched */
   put_u32(0);          /* CIE id */
   put_u8(1);           /* version */
   put_str("zR");
   put_uleb(1);         /* code alignment */
   put_sleb(-8);        /* data alignment */
   put_uleb(16);        /* return address column (%rip) */
   put_uleb(1);         /* augmentation data: */
   put_u8(DW_EH_PE_absptr);   /* FDE pointer encoding */
   put_u8(DW_CFA_def_cfa); put_uleb(7); put_uleb(8);   /* %rsp + 8 */
   put_u8(DW_CFA_offset + 16); put_uleb(1);            /* %rip at cfa-8 */
   record_end(cie);

   fde = fde_start(cie, leaf, sizeof leaf_code);
   record_end(fde);

   fde = fde_start(cie, frameless, sizeof frameless_code);
   put_u8(DW_CFA_advance_loc + 1);                     /* after push */
   put_u8(DW_CFA_def_cfa_offset); put_uleb(16);
   put_u8(DW_CFA_offset + 6); put_uleb(2);             /* %rbp at cfa-16 */
   put_u8(DW_CFA_advance_loc + 6);                     /* after sub */
   put_u8(DW_CFA_def_cfa_offset); put_uleb(32);
   put_u8(DW_CFA_advance_loc + 30);                    /* after add */
   put_u8(DW_CFA_def_cfa_offset); put_uleb(16);
   put_u8(DW_CFA_advance_loc + 1);                     /* after pop */
   put_u8(DW_CFA_def_cfa_offset); put_uleb(8);
   put_u8(DW_CFA_restore + 6);
   record_end(fde);
   put_u32(0);          /* terminator */
   section(S_EH_FRAME, SHT_PROGBITS, SHF_ALLOC, off, used);
   shdr[S_EH_FRAME].sh_addr = (uintptr_t)(image + off);
   shdr[S_EH_FRAME].sh_addralign = 8;
}

/* .shstrtab, the section headers, then the ELF header at the start. */
static void put_headers ( void )
{
   static const char* const sec_names[N_SECTIONS] = {
      "", ".text", ".symtab", ".strtab", ".debug_abbrev", ".debug_info",
      ".debug_line", ".eh_frame", ".shstrtab"
   };
   Elf64_Ehdr eh;
   size_t     off = used, i;

   for (i = 0; i < N_SECTIONS; i++)
      shdr[i].sh_name = put(sec_names[i], strlen(sec_names[i]) + 1) - off;
   section(S_SHSTRTAB, SHT_STRTAB, 0, off, used);

   align(8);
   memset(&eh, 0, sizeof eh);
   eh.e_shoff = put(shdr, sizeof shdr);
   memcpy(eh.e_ident, ELFMAG, SELFMAG);
   eh.e_ident[EI_CLASS]   = ELFCLASS64;
   eh.e_ident[EI_DATA]    = ELFDATA2LSB;
   eh.e_ident[EI_VERSION] = EV_CURRENT;
   eh.e_type      = ET_EXEC;
   eh.e_machine   = EM_X86_64;
   eh.e_version   = EV_CURRENT;
   eh.e_ehsize    = sizeof eh;
   eh.e_shentsize = sizeof(Elf64_Shdr);
   eh.e_shnum     = N_SECTIONS;
   eh.e_shstrndx  = S_SHSTRTAB;
   memcpy(image, &eh, sizeof eh);
}

/* Builds the object describing the two functions at code: room for the
   ELF header (written last), then each section in turn. */
static void build_object ( unsigned char* code )
{
   uintptr_t  leaf = (uintptr_t)code;
   uintptr_t  frameless = (uintptr_t)code + FRAMELESS_OFFSET;
   Elf64_Ehdr room;

   used = 0;
   memset(&room, 0, sizeof room);
   put(&room, sizeof room);
   put_text(code);
   put_symbols(leaf, frameless);
   put_compile_unit();
   put_line_program(leaf, frameless);
   put_eh_frame(leaf, frameless);
   put_headers();
}

static struct jit_code_entry entry;

static void notify ( jit_actions_t action )
{
   __jit_debug_descriptor.relevant_entry = &entry;
   __jit_debug_descriptor.action_flag    = action;
   __jit_debug_register_code();
}
#endif

int main ( void )
{
#if defined(__x86_64__) && defined(__linux__)
   unsigned char* code;
   int (*leaf)(const int*);
   int (*frameless)(const int*);
   int* uninit;
   volatile int result;

   code = mmap(NULL, CODE_BYTES, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (code == MAP_FAILED) {
      perror("mmap");
      return 1;
   }
   memcpy(code, leaf_code, sizeof leaf_code);
   memcpy(code + FRAMELESS_OFFSET, frameless_code, sizeof frameless_code);
   build_object(code);

   /* Register: link the entry, then notify; then make the code
      executable, as LLVM's JIT does. */
   entry.symfile_addr = (const char*)image;
   entry.symfile_size = used;
   __jit_debug_descriptor.first_entry = &entry;
   notify(JIT_REGISTER_FN);
   if (mprotect(code, CODE_BYTES, PROT_READ | PROT_EXEC) != 0) {
      perror("mprotect");
      return 1;
   }
   printf("registered the object\n");

   leaf      = (int (*)(const int*))(void*)code;
   frameless = (int (*)(const int*))(void*)(code + FRAMELESS_OFFSET);
   uninit = malloc(sizeof *uninit);
   result = leaf(uninit);
   printf("jit_gdb_leaf returned\n");
   result = frameless(uninit);
   printf("jit_gdb_frameless returned\n");

   /* Unregister: unlink the entry, then notify. */
   __jit_debug_descriptor.first_entry = NULL;
   notify(JIT_UNREGISTER_FN);
   result = leaf(uninit);
   printf("jit_gdb_leaf returned after unregistering\n");
   (void)result;
   free(uninit);
   munmap(code, CODE_BYTES);
#endif
   return 0;
}
