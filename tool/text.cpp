// text.cpp: see text.hpp.
#include "text.hpp"

#include <cstdint>
#include <cstdio>

namespace vgjit {

std::size_t utf8_sequence_length(const std::string& s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n;
    std::uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else
        return 0;
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0;  // overlong
    if (cp >= 0xD800 && cp <= 0xDFFF) return 0;                        // surrogate
    if (cp > 0x10FFFF) return 0;
    return n;
}

bool is_control(unsigned long cp) { return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F); }

namespace {

/// The code point of the valid `n`-byte UTF-8 sequence at s[i].
unsigned long code_point(const std::string& s, std::size_t i, std::size_t n) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    if (n == 1) return b(i);
    unsigned long cp = b(i) & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(i + k) & 0x3F);
    return cp;
}

std::string hex_byte(unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%02x", c);
    return buf;
}

}  // namespace

std::string text_problem(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence_length(s, i);
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (n == 0)
            return "byte 0x" + hex_byte(c) + " at offset " + std::to_string(i) + " is not UTF-8";
        const unsigned long cp = code_point(s, i, n);
        if (is_control(cp)) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "U+%04lX", cp);
            return std::string("control character ") + buf + " at offset " + std::to_string(i);
        }
        i += n;
    }
    return "";
}

std::string escape_text(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence_length(s, i);
        if (n == 0 || is_control(code_point(s, i, n))) {
            const std::size_t bytes = n == 0 ? 1 : n;
            for (std::size_t k = 0; k < bytes; ++k)
                out += "\\x" + hex_byte(static_cast<unsigned char>(s[i + k]));
            i += bytes;
        } else if (s[i] == '\\') {
            out += "\\\\";
            ++i;
        } else {
            out.append(s, i, n);
            i += n;
        }
    }
    return out;
}

std::string utf8_for_json(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence_length(s, i);
        if (n == 0) {
            const unsigned char c = static_cast<unsigned char>(s[i]);
            out += static_cast<char>(0xC0 | (c >> 6));  // c >= 0x80: two bytes
            out += static_cast<char>(0x80 | (c & 0x3F));
            ++i;
        } else {
            out.append(s, i, n);
            i += n;
        }
    }
    return out;
}

}  // namespace vgjit
