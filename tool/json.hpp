// json.hpp: a minimal streaming JSON writer for `vg-jit dump --json`.
//
// Strings are written as JSON (RFC 8259) strings: '"' and '\\' are escaped,
// control characters become \n, \t, ... or \u00XX, valid UTF-8 passes
// through unchanged, and every byte that is not part of a valid UTF-8
// sequence is written as the code point of the same value (\u0080 ..
// \u00ff, i.e. read as Latin-1), so any byte string yields valid JSON.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace vgjit {

/// Appends `s` to `out` as a quoted JSON string (see the file comment).
void json_quote(std::string& out, const std::string& s);

/// Writes nested objects and arrays with commas handled automatically.
/// Usage: begin_object(); key("a"); value(1); end_object();
class JsonWriter {
public:
    explicit JsonWriter(std::ostream& os) : os_(os) {}
    void begin_object() { prefix(); os_ << '{'; stack_.push_back(true); }
    void end_object() { stack_.pop_back(); os_ << '}'; }
    void begin_array() { prefix(); os_ << '['; stack_.push_back(true); }
    void end_array() { stack_.pop_back(); os_ << ']'; }
    /// Writes an object key; the next value call supplies its value.
    void key(const std::string& k) {
        prefix();
        std::string q;
        json_quote(q, k);
        os_ << q << ':';
        after_key_ = true;
    }
    void value(const std::string& s) {
        prefix();
        std::string q;
        json_quote(q, s);
        os_ << q;
    }
    void value(const char* s) { value(std::string(s)); }
    void value(std::uint64_t v) { prefix(); os_ << v; }
    void value(std::uint32_t v) { value(static_cast<std::uint64_t>(v)); }
    void value(bool b) { prefix(); os_ << (b ? "true" : "false"); }
    /// A 64-bit address as a "0x..." string (JSON numbers lose precision
    /// above 2^53 in many readers).
    void address(std::uint64_t v);

private:
    void prefix() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (!stack_.empty()) {
            if (!stack_.back()) os_ << ',';
            stack_.back() = false;
        }
    }
    std::ostream& os_;
    std::vector<bool> stack_;  // per open container: "no element yet"
    bool after_key_ = false;
};

}  // namespace vgjit
