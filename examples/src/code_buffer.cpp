// code_buffer.cpp - RAII owner of one anonymous mapping holding JIT code.

#include "code_buffer.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

namespace minijit {

namespace {
std::size_t page_size() {
    static const std::size_t size = [] {
        long s = sysconf(_SC_PAGESIZE);
        return s > 0 ? static_cast<std::size_t>(s) : std::size_t(4096);
    }();
    return size;
}
}  // namespace

CodeBuffer::CodeBuffer(std::size_t capacity) {
    const std::size_t page = page_size();
    const std::size_t rounded = ((capacity ? capacity : 1) + page - 1) / page * page;
    void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        throw std::system_error(errno, std::generic_category(), "mmap of a JIT code buffer");
    data_ = static_cast<std::uint8_t*>(p);
    capacity_ = rounded;
}

CodeBuffer::~CodeBuffer() { release(); }

CodeBuffer::CodeBuffer(CodeBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

CodeBuffer& CodeBuffer::operator=(CodeBuffer&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
}

void CodeBuffer::make_executable() {
    if (mprotect(data_, capacity_, PROT_READ | PROT_EXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "mprotect of a JIT code buffer");
}

void CodeBuffer::release() noexcept {
    if (data_) munmap(data_, capacity_);
    data_ = nullptr;
    capacity_ = 0;
}

}  // namespace minijit
