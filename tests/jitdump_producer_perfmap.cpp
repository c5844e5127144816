// jitdump_producer_perfmap.cpp: jitdump_producer's perf maps: one written
// line by line with code running between the halves of a line (perfmap),
// and maps the core must not read: a symlink (perfmap-symlink) and a map
// owned by another user (perfmap-foreign).

#include "jitdump_producer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace jitdump_producer {

/// perfmap: /tmp/perf-<pid>.map written line by line, one line in two
/// writes with code running in between.
int mode_perfmap() {
    CodeMemory mem(4096);
    const Fn one = emit_sum("pm_one", mem.at(0), 1);
    const Fn two = emit_sum("pm_two (tier 2) [x.js:7]", mem.at(64), 2);
    const std::string path = perf_map_path();
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) die("open perf map");
    write_str(fd, map_line(one));
    const std::string second = map_line(two);
    const std::size_t cut = second.size() / 2;
    write_str(fd, second.substr(0, cut));  // a line in progress
    let_time_pass();
    long acc = run(one, 1000, 100) + run(two, 1000, 100);
    write_str(fd, second.substr(cut));
    let_time_pass();
    acc += run(one, 1000, 100) + run(two, 1000, 100);
    ::close(fd);
    ::unlink(path.c_str());
    std::printf("perfmap %ld\n", acc);
    return 0;
}

/// perfmap-symlink: /tmp/perf-<pid>.map links to a map elsewhere.
int mode_perfmap_symlink() {
    CodeMemory mem(4096);
    const std::string path = perf_map_path();
    const std::string real = "real-" + std::to_string(getpid()) + ".map";
    const Fn f = emit_sum("symlinked_map", mem.at(0), 1);
    const int fd = ::open(real.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) die("open map");
    write_str(fd, map_line(f));
    ::close(fd);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) die("getcwd");
    ::unlink(path.c_str());
    if (symlink((std::string(cwd) + "/" + real).c_str(), path.c_str()) != 0) die("symlink");
    let_time_pass();
    let_time_pass();
    const long acc = run(f, 1000, 100);
    ::unlink(path.c_str());
    std::printf("symlinked_map %ld\n", acc);
    return 0;
}

/// perfmap-foreign: /tmp/perf-<pid>.map given to another user first.
int mode_perfmap_foreign() {
    CodeMemory mem(4096);
    const Fn f = emit_sum("foreign_map", mem.at(0), 1);
    const std::string path = perf_map_path();
    // Written and given away under another name, then renamed into place
    // (atomically): Valgrind never sees the map owned by this user.
    const std::string temp = path + ".tmp";
    const int fd = ::open(temp.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) die("open perf map");
    write_str(fd, map_line(f));
    if (fchown(fd, 65534, 65534) != 0)
        std::fprintf(stderr, "skip: cannot give the map to another user: %s\n",
                     std::strerror(errno));
    ::close(fd);
    if (rename(temp.c_str(), path.c_str()) != 0) die("rename perf map");
    let_time_pass();
    let_time_pass();
    const long acc = run(f, 1000, 100);
    ::unlink(path.c_str());
    std::printf("foreign_map %ld\n", acc);
    return 0;
}

}  // namespace jitdump_producer
