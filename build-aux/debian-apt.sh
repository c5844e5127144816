# debian-apt.sh: sourced by the fetch-*.sh scripts (POSIX sh).  Runs apt-get
# on a private sources list, lists directory and cache directory, so that
# packages of other Debian suites can be downloaded without changing the
# machine's own apt configuration.  The mirror URI is read from the
# machine's own Debian entry; no host name is written into the project.
#
#   debian_mirror            prints the mirror URI (e.g. http://.../debian),
#                            or nothing if none is configured
#   debian_apt_begin         checks for apt-get, sets $mirror and $work (a
#                            fresh directory, removed at exit); calls the
#                            caller's `fail MESSAGE` if either is missing
#   private_apt WORK LINE... writes LINE... as WORK/sources.list, runs
#                            `apt-get update` on it and sets $apt to the
#                            apt-get command line that uses it; returns 1
#                            (with the log on stderr) if the update fails

debian_mirror() {
  _m=""
  for _f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$_f" ] || continue
    _m=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$_f")
    [ -n "$_m" ] && break
  done
  if [ -z "$_m" ]; then
    for _f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$_f" ] || continue
      _m=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\// && $i ~ /\/debian\/?$/) { print $i; exit } }' "$_f")
      [ -n "$_m" ] && break
    done
  fi
  printf '%s\n' "$_m"
}

debian_apt_begin() {
  command -v apt-get >/dev/null 2>&1 || fail "apt-get is not available"
  mirror=$(debian_mirror)
  [ -n "$mirror" ] || fail "no Debian mirror found in the machine's apt sources"
  work=$(mktemp -d "${TMPDIR:-/tmp}/vgjit-apt.XXXXXX")
  trap 'rm -rf "$work"' EXIT INT TERM
}

private_apt() {
  _work=$1; shift
  mkdir -p "$_work/lists/partial" "$_work/archives/partial" "$_work/parts" "$_work/cache"
  printf '%s\n' "$@" > "$_work/sources.list"
  apt="apt-get -q -o Dir::Etc::SourceList=$_work/sources.list -o Dir::Etc::SourceParts=$_work/parts \
 -o Dir::State::Lists=$_work/lists -o Dir::Cache::archives=$_work/archives -o Dir::Cache=$_work/cache \
 -o APT::Sandbox::User=root"
  if ! $apt update > "$_work/update.log" 2>&1; then
    cat "$_work/update.log" >&2
    return 1
  fi
}
