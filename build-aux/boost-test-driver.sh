#! /bin/sh
# boost-test-driver.sh: an Automake test driver (see "Custom Test Drivers" in
# the Automake manual) that reports every Boost.Test test case as its own
# result, so `make check`, test-suite.log and .ci/run count test cases, not
# test programs.
#
# Usage (by the Automake harness):
#   boost-test-driver.sh --test-name NAME --log-file LOG --trs-file TRS
#     [--color-tests yes|no] [--expect-failure yes|no]
#     [--enable-hard-errors yes|no] [--collect-skipped-logs yes|no] -- CMD [ARGS]
#
# The report is requested through Boost.Test's environment variables, so a
# program that is not a Boost.Test program is simply judged by its exit
# status like Automake's own driver does (0 PASS, 77 SKIP, 99 ERROR, else
# FAIL).  A Boost.Test program that exits non-zero although every case passed
# (a crash after the last case, say) gets an extra ERROR result, and failed
# assertions of a suite's fixtures (the check of tests/test_support.cpp's
# global fixture, after the last case) a FAIL result of their own.
set -u

test_name= log_file= trs_file= color_tests=no expect_failure=no
while test $# -gt 0; do
  case $1 in
    --test-name) test_name=$2; shift ;;
    --log-file) log_file=$2; shift ;;
    --trs-file) trs_file=$2; shift ;;
    --color-tests) color_tests=$2; shift ;;
    --expect-failure) expect_failure=$2; shift ;;
    --enable-hard-errors|--collect-skipped-logs) shift ;;
    --) shift; break ;;
    *) echo "$0: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if test -z "$test_name" || test -z "$log_file" || test -z "$trs_file" || test $# -eq 0; then
  echo "$0: usage: --test-name NAME --log-file LOG --trs-file TRS -- CMD [ARGS]" >&2
  exit 2
fi

if test "$color_tests" = yes; then
  e=$(printf '\033')
  red="$e[0;31m" grn="$e[0;32m" lgn="$e[1;32m" blu="$e[1;34m" mgn="$e[0;35m" std="$e[m"
else
  red= grn= lgn= blu= mgn= std=
fi

report=$trs_file.boost.xml
rm -f "$report" "$trs_file"
trap 'rm -f "$report" "$trs_file.results"' EXIT

BOOST_TEST_LOG_LEVEL=${BOOST_TEST_LOG_LEVEL:-test_suite}
BOOST_TEST_REPORT_LEVEL=detailed
BOOST_TEST_REPORT_FORMAT=XML
BOOST_TEST_REPORT_SINK=$report
BOOST_TEST_COLOR_OUTPUT=no
export BOOST_TEST_LOG_LEVEL BOOST_TEST_REPORT_LEVEL BOOST_TEST_REPORT_FORMAT \
  BOOST_TEST_REPORT_SINK BOOST_TEST_COLOR_OUTPUT

"$@" > "$log_file" 2>&1
status=$?

# One "RESULT name" line per test case, from the XML report.
if test -s "$report"; then
  sed 's/></>\n</g' "$report" | awk '
    function attr(s, a,   m) {
      if (match(s, a "=\"[^\"]*\"")) return substr(s, RSTART + length(a) + 2, RLENGTH - length(a) - 3)
      return ""
    }
    # own[d]: the failed assertions of the suite at depth d not counted
    # in its test cases and suites, i.e. those of its fixtures (the global
    # fixture of test_support.cpp for the module): a FAIL of their own.
    function prefix_to(d,   i, p) { p = ""; for (i = 2; i <= d; i++) p = p path[i] "/"; return p }
    /^<TestSuite / {
      if (depth > 0) own[depth] -= attr($0, "assertions_failed")
      depth++; if (depth > 1) path[depth] = attr($0, "name")
      own[depth] = attr($0, "assertions_failed"); next
    }
    /^<\/TestSuite>/ {
      if (own[depth] > 0)
        print "FAIL", prefix_to(depth) (depth > 1 ? "(suite fixture)" : "(module fixture)")
      depth--; next
    }
    /^<TestCase / {
      name = attr($0, "name"); r = attr($0, "result")
      own[depth] -= attr($0, "assertions_failed")
      res = (r == "passed") ? "PASS" : (r == "skipped") ? "SKIP" : (r == "failed") ? "FAIL" : "ERROR"
      print res, prefix_to(depth) name
    }' > "$trs_file.results"
else
  : > "$trs_file.results"
fi

if ! test -s "$trs_file.results"; then
  case $status in
    0) res=PASS ;; 77) res=SKIP ;; 99) res=ERROR ;; *) res=FAIL ;;
  esac
  echo "$res $test_name" > "$trs_file.results"
elif test $status -ne 0 && ! grep -q '^\(FAIL\|ERROR\) ' "$trs_file.results"; then
  echo "ERROR $test_name (exit status $status although every test case passed)" >> "$trs_file.results"
fi

if test "$expect_failure" = yes; then
  sed -e 's/^PASS /XPASS /' -e 's/^FAIL /XFAIL /' "$trs_file.results" > "$trs_file.results.x"
  mv "$trs_file.results.x" "$trs_file.results"
fi

global=PASS
if grep -q '^\(FAIL\|XPASS\|ERROR\) ' "$trs_file.results"; then global=FAIL
elif ! grep -qv '^SKIP ' "$trs_file.results"; then global=SKIP
fi

{
  while read -r res name; do
    echo ":test-result: $res $name"
  done < "$trs_file.results"
  echo ":global-test-result: $global"
  echo ":recheck: $(test $global = FAIL && echo yes || echo no)"
  echo ":copy-in-global-log: $(test $global = PASS && echo no || echo yes)"
} > "$trs_file"

while read -r res name; do
  case $res in
    PASS) col=$grn ;; FAIL|XPASS) col=$red ;; ERROR) col=$mgn ;; SKIP) col=$blu ;; XFAIL) col=$lgn ;; *) col= ;;
  esac
  case $name in
    "$test_name"*) echo "${col}${res}${std}: $name" ;;
    *) echo "${col}${res}${std}: $test_name: $name" ;;
  esac
done < "$trs_file.results"
exit 0
