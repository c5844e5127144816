// text.hpp: checking and escaping the names and file names that producer
// files (jitdump, perf map) carry.  Those are byte strings: the formats say
// nothing about their encoding, and producers have been seen to write
// garbage into them.  vg-jit treats valid UTF-8 (RFC 3629) without control
// characters as text; everything else is flagged by `check` and escaped by
// `dump`.
#pragma once

#include <cstddef>
#include <string>

namespace vgjit {

/// Length in bytes (1..4) of the valid UTF-8 sequence that starts at
/// s[i], or 0 if none does there: overlong forms, UTF-16 surrogates
/// (U+D800..U+DFFF), code points above U+10FFFF, stray continuation bytes
/// and sequences cut off by the end of `s` are invalid.  Requires i < s.size().
std::size_t utf8_sequence_length(const std::string& s, std::size_t i);

/// Whether code point `cp` is a control character: C0 (U+0000..U+001F),
/// DEL (U+007F) or C1 (U+0080..U+009F).
bool is_control(unsigned long cp);

/// What is wrong with `s` as text, or "" if it is valid UTF-8 without
/// control characters.  Names the first offending byte and its offset in
/// `s`, e.g. "byte 0xff at offset 3 is not UTF-8" or "control character
/// 0x0a at offset 5".
std::string text_problem(const std::string& s);

/// `s` with every byte that is not part of a valid UTF-8 sequence, and
/// every byte of a control character, written as \xHH (two lowercase hex
/// digits), and each backslash doubled; valid UTF-8 passes through.  The
/// result is valid UTF-8 without control characters, and tells every
/// input apart (the escaping is reversible).
std::string escape_text(const std::string& s);

/// `s` made valid UTF-8 for a JSON string (nlohmann::json refuses other
/// bytes): valid UTF-8 sequences pass through, and every byte that is not
/// part of one becomes the code point of the same value, U+0080..U+00FF
/// (the byte read as Latin-1), written in UTF-8.  Unlike escape_text() this
/// does not tell every input apart (an invalid byte 0xff and a valid "\u00ff"
/// give the same result); control characters are left to the JSON writer.
std::string utf8_for_json(const std::string& s);

}  // namespace vgjit
