/* Regression test of --dump-jit-code: generated code named by a perf
   map (/tmp/perf-<pid>.map, read with --jit-perf-map=yes) before it
   runs is jit_dumped_sum.  After it ran, the program asks Callgrind for
   a dump (CALLGRIND_DUMP_STATS), which writes the code of each JIT
   object into an ELF file next to the profile (callgrind.out.*.elf),
   then checks that file: an x86-64 ELF file with a function symbol
   jit_dumped_sum at the code's address, whose section holds the bytes
   that ran.  It prints what it found. */

#include <elf.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../callgrind.h"

#if defined(__x86_64__)
/* long sum(long n): n + (n-1) + ... + 1 */
static const unsigned char code_bytes[] = {
   0x31, 0xc0,                    /* xor  %eax,%eax     */
   0x48, 0x85, 0xff,              /* test %rdi,%rdi     */
   0x74, 0x08,                    /* je   +8 (ret)      */
   0x48, 0x01, 0xf8,              /* add  %rdi,%rax     */
   0x48, 0xff, 0xcf,              /* dec  %rdi          */
   0xeb, 0xf3,                    /* jmp  -13 (test)    */
   0xc3                           /* ret                */
};

/* The contents of the file at path (its size in *size), or NULL. */
static unsigned char* read_file(const char* path, long* size)
{
   FILE* f = fopen(path, "rb");
   unsigned char* buf;
   if (f == NULL) return NULL;
   if (fseek(f, 0, SEEK_END) != 0 || (*size = ftell(f)) <= 0
       || fseek(f, 0, SEEK_SET) != 0) {
      fclose(f);
      return NULL;
   }
   buf = malloc((size_t)*size);
   if (buf != NULL && fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
      free(buf);
      buf = NULL;
   }
   fclose(f);
   return buf;
}

/* Checks the ELF file at path for the function name at code; prints
   what it finds. */
static void check_elf(const char* path, const unsigned char* code,
                      const char* name)
{
   long size = 0;
   unsigned char* b = read_file(path, &size);
   const Elf64_Ehdr* eh = (const Elf64_Ehdr*)b;
   const Elf64_Shdr* sh;
   int i, found = 0;

   if (b == NULL || size < (long)sizeof *eh
       || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0
       || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64
       || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof *sh > (uint64_t)size) {
      printf("not a 64-bit x86-64 ELF file\n");
      free(b);
      return;
   }
   printf("64-bit x86-64 ELF file\n");
   sh = (const Elf64_Shdr*)(b + eh->e_shoff);
   for (i = 0; i < eh->e_shnum; i++) {
      const Elf64_Sym* syms;
      const char* strs;
      uint64_t k;
      if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum
          || sh[i].sh_offset + sh[i].sh_size > (uint64_t)size)
         continue;
      syms = (const Elf64_Sym*)(b + sh[i].sh_offset);
      strs = (const char*)(b + sh[sh[i].sh_link].sh_offset);
      for (k = 0; k < sh[i].sh_size / sizeof *syms; k++) {
         const Elf64_Shdr* text;
         if (syms[k].st_name >= sh[sh[i].sh_link].sh_size
             || strcmp(strs + syms[k].st_name, name) != 0)
            continue;
         found = 1;
         printf("function symbol %s: %s\n", name,
                ELF64_ST_TYPE(syms[k].st_info) == STT_FUNC
                && syms[k].st_value == (uint64_t)(uintptr_t)code
                ? "at the code's address" : "elsewhere");
         if (syms[k].st_shndx == 0 || syms[k].st_shndx >= eh->e_shnum)
            continue;
         text = &sh[syms[k].st_shndx];
         if (syms[k].st_value < text->sh_addr
             || syms[k].st_value - text->sh_addr + sizeof code_bytes
                > text->sh_size
             || text->sh_offset + text->sh_size > (uint64_t)size)
            printf("its section does not hold the code\n");
         else
            printf("its section holds %s\n",
                   memcmp(b + text->sh_offset
                          + (syms[k].st_value - text->sh_addr),
                          code_bytes, sizeof code_bytes) == 0
                   ? "the bytes that ran" : "other bytes");
      }
   }
   if (!found)
      printf("no symbol %s\n", name);
   free(b);
}
#endif

int main(void)
{
#if defined(__x86_64__)
   unsigned char* code;
   long (*sum)(long);
   long total = 0;
   char path[64];
   FILE* f;
   DIR* dir;
   struct dirent* e;
   int i, files = 0;

   code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (code == MAP_FAILED) {
      perror("mmap");
      return 1;
   }
   memcpy(code, code_bytes, sizeof code_bytes);
   sum = (long (*)(long))(void*)code;

   /* The name, before the code runs: "START SIZE name", hexadecimal. */
   snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
   f = fopen(path, "w");
   if (f == NULL) {
      perror(path);
      return 1;
   }
   fprintf(f, "%lx %lx jit_dumped_sum\n", (unsigned long)(uintptr_t)code,
           (unsigned long)sizeof code_bytes);
   fclose(f);

   for (i = 0; i < 10; i++)
      total += sum(100);
   printf("sum: %ld\n", total);

   CALLGRIND_DUMP_STATS;
   unlink(path);

   dir = opendir(".");
   while (dir != NULL && (e = readdir(dir)) != NULL) {
      size_t len = strlen(e->d_name);
      if (strncmp(e->d_name, "callgrind.out.", 14) != 0 || len < 4
          || strcmp(e->d_name + len - 4, ".elf") != 0)
         continue;
      files++;
      check_elf(e->d_name, code, "jit_dumped_sum");
   }
   if (dir != NULL)
      closedir(dir);
   printf("ELF files: %d\n", files);
#endif
   return 0;
}
