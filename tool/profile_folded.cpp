// profile_folded.cpp: a converted profile as folded stacks (write_folded,
// profile_export.hpp), one line per distinct stack of function names.
#include "pair_index.hpp"
#include "profile_export.hpp"

#include <algorithm>
#include <ostream>
#include <unordered_map>

namespace vgjit {
namespace exporting {

namespace {

/// A name as folded stacks write it: ';' becomes ':', line breaks ' '.
std::string folded_name(std::string n) {
    for (char& ch : n) {
        if (ch == ';')
            ch = ':';
        else if (ch == '\n' || ch == '\r')
            ch = ' ';
    }
    return n;
}

/// The stacks of a profile by names alone: stacks of the same names
/// (differing in lines or functions' objects) are one line, so each
/// stack's path of names, as a tree.
struct NamePaths {
    struct Path {
        std::size_t parent, name;  ///< the caller's path (kNoStack: none), an index into names
    };
    std::vector<std::string> names;    ///< the distinct folded names
    std::vector<Path> paths;           ///< parents before their children
    std::vector<std::size_t> path_of;  ///< each stack's path
};

/// The NamePaths of c's stack table.
NamePaths name_paths(const Converted& c) {
    NamePaths np;
    // Function names, and one id per name.
    std::unordered_map<std::string, std::size_t> name_ids;
    std::vector<std::size_t> name_of(c.functions.size());
    for (std::size_t i = 0; i < c.functions.size(); ++i) {
        std::string n = folded_name(c.functions[i].name);
        const auto it = name_ids.emplace(n, np.names.size());
        if (it.second) np.names.push_back(std::move(n));
        name_of[i] = it.first->second;
    }
    PairIndex path_index;
    auto& paths = np.paths;
    auto path_key = [&paths](std::size_t k) -> PairIndex::Key {
        return {paths[k].parent, paths[k].name};
    };
    np.path_of.resize(c.stack_table.size());
    for (std::size_t i = 0; i < c.stack_table.size(); ++i) {
        const Stack& s = c.stack_table[i];
        const std::size_t parent = s.parent == kNoStack ? kNoStack : np.path_of[s.parent];
        const std::size_t name = name_of[c.frames[s.frame].function];
        np.path_of[i] = path_index.insert({parent, name}, paths.size(), path_key);
        if (np.path_of[i] == paths.size()) paths.push_back({parent, name});
    }
    return np;
}

/// A folded line's stack and its weight (128 bits: a stack's sum over
/// many parts may pass 2^64).
using FoldedLine = std::pair<std::string, unsigned __int128>;

/// The folded lines of c, unsorted: each process in turn (one pass over
/// all threads when there is one); with several, each stack starts with
/// its process's frame.
std::vector<FoldedLine> folded_lines(const Converted& c, const NamePaths& np) {
    std::vector<FoldedLine> lines;
    std::vector<std::size_t> chain;
    std::vector<unsigned __int128> sums(np.paths.size(), 0);
    const std::size_t nprocs = std::max<std::size_t>(c.processes.size(), 1);
    for (std::size_t pi = 0; pi < nprocs; ++pi) {
        std::string prefix;
        if (nprocs > 1) {
            const Process& proc = c.processes[pi];
            prefix = folded_name((proc.name.empty() ? std::string("process") : proc.name) + " [" +
                                 (proc.pid.empty() ? std::string("?") : proc.pid) + "]");
        }
        std::fill(sums.begin(), sums.end(), 0);
        for (const Thread& t : c.threads)
            if (nprocs == 1 || t.process == pi)
                for (const Sample& s : t.samples) sums[np.path_of[s.stack]] += s.weight;
        for (std::size_t i = 0; i < np.paths.size(); ++i) {
            if (!sums[i]) continue;
            chain.clear();
            for (std::size_t p = i; p != kNoStack; p = np.paths[p].parent)
                chain.push_back(np.paths[p].name);
            std::string text = prefix;
            for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
                if (!text.empty() || it != chain.rbegin()) text += ';';
                text += np.names[*it];
            }
            lines.emplace_back(std::move(text), sums[i]);
        }
    }
    return lines;
}

}  // namespace

void write_folded(const Converted& c, std::ostream& out) {
    std::vector<FoldedLine> lines = folded_lines(c, name_paths(c));
    std::sort(lines.begin(), lines.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string buf;
    for (const auto& [stack, w] : lines) {
        std::string digits;
        unsigned __int128 v = w;
        do {
            digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
            v /= 10;
        } while (v);
        buf += stack;
        buf += ' ';
        buf += digits;
        buf += '\n';
        if (buf.size() >= (1 << 16)) {
            out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
        }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace exporting
}  // namespace vgjit
