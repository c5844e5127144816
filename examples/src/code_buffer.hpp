// code_buffer.hpp - RAII owner of one anonymous mapping holding JIT code.
//
// Part of the valgrind-jit example JIT (minijit).

#ifndef MINIJIT_CODE_BUFFER_HPP
#define MINIJIT_CODE_BUFFER_HPP

#include <cstddef>
#include <cstdint>

namespace minijit {

/// A private anonymous mapping (mmap) of whole pages that receives the code of
/// one compiled function.  It starts readable and writable; after the code has
/// been emitted, make_executable() flips it to read+execute (W^X: it is never
/// writable and executable at once).  The destructor unmaps it.  Move-only.
///
/// Each compilation gets a fresh mapping, so Valgrind never sees code written
/// over code it has already translated (no --smc-check option is needed).
class CodeBuffer {
public:
    /// An empty buffer (no mapping).
    CodeBuffer() = default;
    /// Maps at least `capacity` bytes (rounded up to whole pages), read+write.
    /// Throws std::system_error if mmap fails.
    explicit CodeBuffer(std::size_t capacity);
    ~CodeBuffer();
    CodeBuffer(CodeBuffer&& other) noexcept;
    CodeBuffer& operator=(CodeBuffer&& other) noexcept;
    CodeBuffer(const CodeBuffer&) = delete;
    CodeBuffer& operator=(const CodeBuffer&) = delete;

    /// First byte of the mapping (nullptr if empty).
    std::uint8_t* data() const { return data_; }
    /// Size of the mapping in bytes (a multiple of the page size).
    std::size_t capacity() const { return capacity_; }
    /// Makes the mapping read+execute (no longer writable).  Throws
    /// std::system_error if mprotect fails.
    void make_executable();

private:
    void release() noexcept;
    std::uint8_t* data_ = nullptr;
    std::size_t capacity_ = 0;
};

}  // namespace minijit

#endif
