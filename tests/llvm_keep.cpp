// llvm_keep.cpp - an LLVM 14 MCJIT client, through LLVM's C API, whose
// memory manager outlives the execution engine, as Mesa's llvmpipe's does:
// MCJIT registers the object it compiled through the GDB JIT interface and
// unregisters it when the engine is disposed of, but the memory manager
// frees nothing, so the code stays mapped and the program keeps calling it.
//
// Usage: llvm_keep MODE MODULE.bc
//   MODULE.bc defines keep_work(const int* p, int n), which calls the
//   noinline keep_leaf(p, i) n times (keep_leaf reads *p through an
//   inlined peek) and returns the number of odd *p + i.
//   run      keep_work(&42, 1000), dispose of the engine, then
//            keep_work(&42, 100000)
//   memerr   as run, then keep_work(freed block, 1) after the disposal:
//            keep_leaf (in peek) reads the freed block
//   rewrite  as run, then make the code writable (mprotect), write
//            `mov eax, 7; ret` over keep_work, make it executable again
//            and call it 100000 times
//   rwx      the code memory is read-write-execute from the start; as
//            run, then write the same bytes over keep_work without any
//            mprotect and call it 100000 times
// Results go to stdout: "before 500", "after 50000", "memerr done",
// "rewritten 700000".

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Target.h>

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr std::size_t kArenaBytes = 1 << 16;

/// Bump allocator over one mapping; never freed (the code outlives the
/// engine).
struct Arena {
    std::uint8_t* base = nullptr;
    std::size_t used = 0;
};

struct Memory {
    Arena code;
    Arena data;
    bool rwx = false;
};

std::uint8_t* bump(Arena& a, std::uintptr_t size, unsigned alignment) {
    const std::size_t align = alignment ? alignment : 16;
    const std::size_t at = (a.used + align - 1) / align * align;
    if (at + size > kArenaBytes) return nullptr;
    a.used = at + size;
    return a.base + at;
}

std::uint8_t* alloc_code(void* opaque, std::uintptr_t size, unsigned alignment, unsigned,
                         const char*) {
    return bump(static_cast<Memory*>(opaque)->code, size, alignment);
}

std::uint8_t* alloc_data(void* opaque, std::uintptr_t size, unsigned alignment, unsigned,
                         const char*, LLVMBool) {
    return bump(static_cast<Memory*>(opaque)->data, size, alignment);
}

LLVMBool finalize(void* opaque, char**) {
    Memory* m = static_cast<Memory*>(opaque);
    if (!m->rwx && mprotect(m->code.base, kArenaBytes, PROT_READ | PROT_EXEC) != 0) return 1;
    return 0;
}

void destroy(void*) {}  // the code stays

std::uint8_t* map(int prot) {
    void* p = mmap(nullptr, kArenaBytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
    }
    return static_cast<std::uint8_t*>(p);
}

[[noreturn]] void fail(const std::string& what, char* msg) {
    std::fprintf(stderr, "llvm_keep: %s: %s\n", what.c_str(), msg ? msg : "?");
    std::exit(1);
}

using Work = int (*)(const int*, int);

/// Writes `mov eax, 7; ret` at fn.
void write_ret7(void* fn) {
    static const unsigned char kCode[] = {0xb8, 0x07, 0x00, 0x00, 0x00, 0xc3};
    std::memcpy(fn, kCode, sizeof kCode);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: llvm_keep run|memerr|rewrite|rwx MODULE.bc\n");
        return 2;
    }
    const std::string mode = argv[1];
    static Memory mem;
    mem.rwx = mode == "rwx";
    mem.code.base = map(PROT_READ | PROT_WRITE | (mem.rwx ? PROT_EXEC : 0));
    mem.data.base = map(PROT_READ | PROT_WRITE);

    LLVMLinkInMCJIT();
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    char* err = nullptr;
    LLVMMemoryBufferRef buf;
    if (LLVMCreateMemoryBufferWithContentsOfFile(argv[2], &buf, &err)) fail(argv[2], err);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef mod;
    if (LLVMParseBitcodeInContext2(ctx, buf, &mod)) fail("bitcode", nullptr);
    LLVMDisposeMemoryBuffer(buf);

    LLVMMCJITCompilerOptions opts;
    LLVMInitializeMCJITCompilerOptions(&opts, sizeof opts);
    opts.MCJMM =
        LLVMCreateSimpleMCJITMemoryManager(&mem, alloc_code, alloc_data, finalize, destroy);
    LLVMExecutionEngineRef ee;
    if (LLVMCreateMCJITCompilerForModule(&ee, mod, &opts, sizeof opts, &err)) fail("mcjit", err);
    const auto work = reinterpret_cast<Work>(LLVMGetFunctionAddress(ee, "keep_work"));
    if (!work) fail("keep_work", nullptr);

    static int value = 42;
    std::printf("before %d\n", work(&value, 1000));
    // MCJIT unregisters its object here (the GDB JIT interface); the
    // memory manager keeps the code.
    LLVMDisposeExecutionEngine(ee);
    LLVMContextDispose(ctx);
    std::printf("after %d\n", work(&value, 100000));

    if (mode == "memerr") {
        int* volatile block = static_cast<int*>(std::malloc(sizeof(int)));
        *block = 1;
        std::free(block);
        volatile int r = work(block, 1);  // what it reads is undefined
        (void)r;
        std::printf("memerr done\n");
    } else if (mode == "rewrite" || mode == "rwx") {
        if (mode == "rewrite" && mprotect(mem.code.base, kArenaBytes, PROT_READ | PROT_WRITE) != 0)
            return 1;
        write_ret7(reinterpret_cast<void*>(work));
        if (mode == "rewrite" && mprotect(mem.code.base, kArenaBytes, PROT_READ | PROT_EXEC) != 0)
            return 1;
        long sum = 0;
        for (int i = 0; i < 100000; ++i) sum += work(&value, i);
        std::printf("rewritten %ld\n", sum);
    }
    return 0;
}
