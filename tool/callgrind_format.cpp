// callgrind_format.cpp: the Callgrind profile reader and writer helpers
// (rules in callgrind_format.hpp).
#include "callgrind_format.hpp"

#include <cctype>
#include <charconv>
#include <sstream>
#include <utility>

namespace vgjit {
namespace callgrind {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

bool is_key_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

/// The white space that separates words (what std::isspace takes in the C
/// locale).
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// Splits `s` at blanks (space, tab) into `out` (cleared first).
void split_view(std::string_view s, std::vector<std::string_view>& out) {
    out.clear();
    std::size_t i = 0;
    const std::size_t n = s.size();
    for (;;) {
        while (i < n && is_space(s[i])) ++i;
        if (i == n) return;
        const std::size_t b = i;
        while (i < n && !is_space(s[i])) ++i;
        out.push_back(s.substr(b, i - b));
    }
}

}  // namespace

std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string_view> v;
    split_view(s, v);
    return std::vector<std::string>(v.begin(), v.end());
}

ParseError::ParseError(const std::string& source, unsigned long line, const std::string& message)
    : std::runtime_error(source + (line ? ":" + std::to_string(line) : std::string()) +
                         ": error: " + message),
      line_(line) {}

Reader::Reader(Handler& handler, std::string source)
    : handler_(handler), source_(std::move(source)) {}

void Reader::fail(const std::string& message) const { throw ParseError(source_, lineno_, message); }

int Reader::position_index(const std::string& name) const {
    for (std::size_t i = 0; i < positions_.size(); ++i)
        if (positions_[i] == name) return static_cast<int>(i);
    return -1;
}

bool Reader::parse_number(std::string_view text, std::uint64_t& value) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (hex && !std::isxdigit(static_cast<unsigned char>(text[2]))) return false;
    const char* b = text.data() + (hex ? 2 : 0);
    const char* e = text.data() + text.size();
    std::uint64_t v = 0;
    const auto r = std::from_chars(b, e, v, hex ? 16 : 10);
    if (r.ec != std::errc() || r.ptr != e) return false;
    value = v;
    return true;
}

void Reader::read(std::istream& in) {
    std::string raw;
    while (std::getline(in, raw)) {
        ++lineno_;
        if (!raw.empty() && raw.back() == '\r') raw.pop_back();
        line(raw);
    }
    if (in.bad()) throw ParseError(source_, 0, "read error");
    if (pending_ != Pending::None) fail("the profile ends after a calls=/jump=/jcnd= line");
    if (events_.empty())
        throw ParseError(source_, 0, "not a Callgrind profile (no \"events:\" line)");
}

void Reader::line(const std::string& raw) {
    std::size_t b = 0;
    while (b < raw.size() && is_blank(raw[b])) ++b;
    if (b == raw.size() || raw[b] == '#') return;
    const char c = raw[b];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '*') {
        cost_line(raw);
        return;
    }
    std::size_t k = b;
    while (k < raw.size() && is_key_char(raw[k])) ++k;
    if (k > b && k < raw.size() && raw[k] == '=') {
        const std::string_view view(raw);
        position_line(view.substr(b, k - b), view.substr(k + 1));
        return;
    }
    if (k > b && k < raw.size() && raw[k] == ':') {
        if (pending_ != Pending::None)
            fail("header line where the line after calls=/jump=/jcnd= was expected");
        std::size_t v = k + 1, e = raw.size();
        while (v < e && is_blank(raw[v])) ++v;
        while (e > v && is_blank(raw[e - 1])) --e;
        header_line(raw.substr(b, k - b), raw.substr(v, e - v), raw);
        return;
    }
    fail(
        "malformed line (neither a header line \"key: value\", a specification \"key=value\" "
        "nor a cost line)");
}

void Reader::header_line(const std::string& key, const std::string& value, const std::string& raw) {
    const bool trailer = key == "totals" || key == "summary";
    if (!any_part_ || (in_body_ && !trailer)) {
        // A new part: its own header and positions; the name compression
        // ids stay defined (Callgrind's --combine-dumps=yes writes parts
        // that use the ids of earlier ones).
        any_part_ = true;
        in_body_ = false;
        events_.clear();
        positions_ = {"line"};
        last_.clear();
        object_.clear();
        fn_file_ = file_ = "???";
        fn_.clear();
        have_fn_ = false;
        reset_call_spec();
        handler_.part();
    }
    if (key == "events") {
        events_ = split_words(value);
        if (events_.empty()) fail("\"events:\" names no event");
    } else if (key == "positions") {
        positions_ = split_words(value);
        if (positions_.empty()) fail("\"positions:\" names no subposition");
        for (const std::string& p : positions_)
            if (p != "line" && p != "instr" && p != "addr" && p != "bb")
                fail("unknown subposition '" + p + "' in \"positions:\"");
    } else if (trailer) {
        if (events_.empty()) fail("\"" + key + ":\" before the \"events:\" header line");
        const auto words = split_words(value);
        if (words.size() > events_.size())
            fail("\"" + key + ":\" has " + std::to_string(words.size()) +
                 " costs but \"events:\" names " + std::to_string(events_.size()));
        std::uint64_t v = 0;
        for (const std::string& w : words)
            if (!parse_number(w, v)) fail("bad cost '" + w + "' in \"" + key + ":\"");
    }
    handler_.header(key, value, raw);
}

void Reader::start_body() {
    if (in_body_) return;
    if (events_.empty()) fail("cost data before the \"events:\" header line");
    in_body_ = true;
    last_.assign(positions_.size(), 0);
}

void Reader::reset_call_spec() {
    for (Given* g : {&cob_, &cfi_, &cfn_, &jfi_, &jfn_}) g->set = false;
}

const std::string& Reader::name(NameTable& table, std::string_view v) {
    auto plain = [&]() -> const std::string& {
        plain_.assign(v.data(), v.size());
        return plain_;
    };
    if (v.size() < 3 || v[0] != '(') return plain();
    const std::size_t close = v.find(')');
    if (close == std::string_view::npos || close == 1) return plain();
    std::uint64_t id = 0;
    for (std::size_t i = 1; i < close; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(v[i]))) return plain();  // "(anonymous ...)"
        if (id > (UINT64_MAX - 9) / 10)
            fail("name compression id too large in '" + std::string(v) + "'");
        id = id * 10 + static_cast<std::uint64_t>(v[i] - '0');
    }
    std::size_t rest = close + 1;
    while (rest < v.size() && is_blank(v[rest])) ++rest;
    if (rest == v.size()) {
        const auto it = table.find(id);
        if (it == table.end())
            fail("name compression id (" + std::to_string(id) + ") used before it was defined");
        return it->second;
    }
    std::string& n = table[id];
    n.assign(v.data() + rest, v.size() - rest);
    return n;
}

std::size_t Reader::subpos(std::size_t first, Subpos& out) const {
    const std::vector<std::string_view>& words = words_;
    const std::size_t n = positions_.size();
    if (words.size() < first + n)
        fail("fewer than the " + std::to_string(n) + " subpositions of \"positions:\"");
    out.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::string_view w = words[first + k];
        std::uint64_t v = 0;
        if (w == "*") {
            out[k] = last_[k];
        } else if (w[0] == '+' || w[0] == '-') {
            if (!parse_number(w.substr(1), v))
                fail("bad relative subposition '" + std::string(w) + "'");
            out[k] = w[0] == '+' ? last_[k] + v : last_[k] - v;
        } else if (parse_number(w, v)) {
            out[k] = v;
        } else {
            fail("bad subposition '" + std::string(w) + "'");
        }
    }
    return first + n;
}

void Reader::position_line(std::string_view key, std::string_view value) {
    start_body();
    if (pending_ != Pending::None)
        fail("\"" + std::string(key) + "=\" where the line after calls=/jump=/jcnd= was expected");
    auto give = [](Given& g, const std::string& n) {
        g.set = true;
        g.name = n;
    };
    if (key == "ob") {
        object_ = name(objects_, value);
    } else if (key == "fl") {
        fn_file_ = name(files_, value);
        file_ = fn_file_;
    } else if (key == "fi" || key == "fe") {
        file_ = name(files_, value);
    } else if (key == "fn") {
        fn_ = name(functions_, value);
        file_ = fn_file_;
        have_fn_ = true;
        reset_call_spec();
        handler_.function(object_, fn_file_, fn_);
    } else if (key == "cob") {
        give(cob_, name(objects_, value));
    } else if (key == "cfi" || key == "cfl") {
        give(cfi_, name(files_, value));
    } else if (key == "cfn") {
        give(cfn_, name(functions_, value));
    } else if (key == "jfi") {
        give(jfi_, name(files_, value));
    } else if (key == "jfn") {
        give(jfn_, name(functions_, value));
    } else if (key == "calls") {
        if (!have_fn_) fail("calls= before any fn=");
        if (!cfn_.set) fail("calls= without a preceding cfn=");
        split_view(value, words_);
        if (words_.empty() || !parse_number(words_[0], call_.count))
            fail("bad call count in calls=" + std::string(value));
        subpos(1, call_.target);
        call_.object = cob_.set ? cob_.name : object_;
        call_.file = cfi_.set ? cfi_.name : file_;
        call_.name = cfn_.name;
        cob_.set = cfi_.set = cfn_.set = false;
        pending_ = Pending::Call;
    } else if (key == "jump" || key == "jcnd") {
        if (!have_fn_) fail(std::string(key) + "= before any fn=");
        split_view(value, words_);
        if (words_.empty()) fail("empty " + std::string(key) + "=");
        jump_.conditional = key == "jcnd";
        const std::string_view w0 = words_[0];
        if (jump_.conditional) {
            const std::size_t slash = w0.find('/');
            if (slash == std::string_view::npos ||
                !parse_number(w0.substr(0, slash), jump_.followed) ||
                !parse_number(w0.substr(slash + 1), jump_.executed))
                fail("bad jcnd=FOLLOWED/EXECUTED count '" + std::string(w0) + "'");
        } else {
            if (!parse_number(w0, jump_.followed)) fail("bad jump count '" + std::string(w0) + "'");
            jump_.executed = 0;
        }
        subpos(1, jump_.target);
        jump_.file = jfi_.set ? jfi_.name : file_;
        jump_.function = jfn_.set ? jfn_.name : fn_;
        jfi_.set = jfn_.set = false;
        pending_ = Pending::Jump;
    } else if (key == "frfn") {
        name(functions_, value);  // may define an id used later
    } else if (key != "rec") {
        fail("unknown specification \"" + std::string(key) + "=\"");
    }
}

void Reader::cost_line(std::string_view raw) {
    start_body();
    if (!have_fn_) fail("cost line before any fn=");
    split_view(raw, words_);
    const std::size_t i = subpos(0, pos_.subpos);
    pos_.file = file_;
    if (pending_ == Pending::Jump) {
        if (i != words_.size()) fail("the line after jump=/jcnd= holds only the source position");
        pending_ = Pending::None;
        jump_.site = pos_;
        handler_.jump(jump_);
        return;
    }
    if (words_.size() - i > events_.size())
        fail("cost line has " + std::to_string(words_.size() - i) +
             " costs but \"events:\" names " + std::to_string(events_.size()));
    costs_.assign(events_.size(), 0);
    for (std::size_t k = i; k < words_.size(); ++k)
        if (!parse_number(words_[k], costs_[k - i]))
            fail("bad cost '" + std::string(words_[k]) + "'");
    if (pending_ == Pending::Call) {
        pending_ = Pending::None;
        call_.site = pos_;
        call_.inclusive = costs_;
        handler_.call(call_);
        return;
    }
    last_ = pos_.subpos;
    handler_.cost(pos_, costs_);
}

ContextName split_context_name(const std::string& name) {
    ContextName out;
    std::vector<std::string> pieces;
    std::size_t b = 0;
    for (;;) {
        const std::size_t q = name.find('\'', b);
        pieces.push_back(name.substr(b, q == std::string::npos ? std::string::npos : q - b));
        if (q == std::string::npos) break;
        b = q + 1;
    }
    for (const std::string& p : pieces)
        if (p.empty()) {
            out.function = name;
            return out;
        }
    out.function = pieces[0];
    std::size_t i = 1;
    if (pieces.size() > 1 && pieces[1].find_first_not_of("0123456789") == std::string::npos &&
        pieces[1].size() < 10) {
        out.recursion = std::stoul(pieces[1]);
        i = 2;
    }
    out.callers.assign(pieces.begin() + static_cast<std::ptrdiff_t>(i), pieces.end());
    return out;
}

std::string NameWriter::operator()(const std::string& n) {
    if (n.empty()) return n;  // "(N) " would read back as a reference to N
    const auto it = ids_.find(n);
    if (it != ids_.end()) return "(" + std::to_string(it->second) + ")";
    const std::size_t id = ids_.size() + 1;
    ids_.emplace(n, id);
    return "(" + std::to_string(id) + ") " + n;
}

std::string format_subpos(const std::vector<std::string>& positions, const Subpos& s) {
    std::ostringstream o;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) o << ' ';
        if (i < positions.size() && (positions[i] == "instr" || positions[i] == "addr"))
            o << "0x" << std::hex << s[i] << std::dec;
        else
            o << s[i];
    }
    return o.str();
}

std::string format_costs(const Costs& c) {
    std::string s;
    std::size_t n = c.size();
    while (n > 1 && c[n - 1] == 0) --n;
    for (std::size_t i = 0; i < n; ++i) {
        s += ' ';
        s += std::to_string(c[i]);
    }
    return s;
}

}  // namespace callgrind
}  // namespace vgjit
