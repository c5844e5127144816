// fuzz_elfobject.cpp: libFuzzer target for vg-jit's reader of GDB JIT
// interface objects (tool/elfobject.cpp).
//
// Each input is copied to a heap block of exactly its size, so that
// AddressSanitizer catches any read past the object, and read; the
// findings must stay inside the object: every problem's offset lies in it,
// every function's range neither wraps nor is empty, and its section is
// one of the object's executable sections.
#include "elfobject.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::unique_ptr<unsigned char[]> copy(new unsigned char[size ? size : 1]);
    if (size) std::memcpy(copy.get(), data, size);
    const vgjit::ElfObjectInfo info = vgjit::read_elf_object(copy.get(), size);
    for (const vgjit::Problem& p : info.problems)
        if (p.has_where && size > 0 && p.where >= size) std::abort();
    for (const vgjit::ElfFunction& f : info.functions) {
        if (f.size == 0 || f.start + f.size < f.start) std::abort();
        bool in_code = false;
        for (const vgjit::ElfSection& s : info.code_sections)
            if (s.index == f.section) in_code = true;
        if (!in_code) std::abort();
    }
    if (info.errors() + info.warnings() != info.problems.size()) std::abort();
    return 0;
}
