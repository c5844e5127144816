// json.cpp: see json.hpp.
#include "json.hpp"
#include "text.hpp"

#include <cstdio>

namespace vgjit {

namespace {

void append_u(std::string& out, unsigned v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", v);
    out += buf;
}

}  // namespace

void json_quote(std::string& out, const std::string& s) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '"': out += "\\\""; ++i; continue;
        case '\\': out += "\\\\"; ++i; continue;
        case '\n': out += "\\n"; ++i; continue;
        case '\r': out += "\\r"; ++i; continue;
        case '\t': out += "\\t"; ++i; continue;
        case '\b': out += "\\b"; ++i; continue;
        case '\f': out += "\\f"; ++i; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7F) {
            append_u(out, c);
            ++i;
            continue;
        }
        const std::size_t n = utf8_sequence_length(s, i);
        if (n == 0) {
            append_u(out, c);  // not UTF-8: the byte as U+0080..U+00FF
            ++i;
            continue;
        }
        out.append(s, i, n);
        i += n;
    }
    out += '"';
}

void JsonWriter::address(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    value(std::string(buf));
}

}  // namespace vgjit
