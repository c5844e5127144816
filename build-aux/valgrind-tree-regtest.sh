# valgrind-tree-regtest.sh: sourced by valgrind-tree.sh (its variables and helper
# functions are in scope): upstream's regression tests, stock against
# patched, for `make regtest-upstream`.

# ---------------------------------------------------------------------------
# Upstream regression tests
# ---------------------------------------------------------------------------

REGTEST_DIRS=(none callgrind cachegrind memcheck)

# regtest_one NAME TREE: build upstream's test programs in TREE and run
# vg_regtest; leave "test<TAB>result" lines in $REGTEST_DIR/NAME.results.
regtest_one() {
  local name=$1 tree=$2
  # The docs' own check validates the manual against DTDs fetched from the
  # network; naming a missing xmllint makes it skip that (docs/Makefile.am).
  (cd "$tree" && run_logged "$REGTEST_DIR/$name-build.log" "building upstream's tests in $tree" \
     $MAKE_CMD -j"$VGJIT_JOBS" check XMLLINT=/nonexistent/xmllint) \
     || die "building the regression tests failed in $tree (see $REGTEST_DIR/$name-build.log)"
  rm -f "$tree/test-suite-overall.log"
  note "running vg_regtest ${REGTEST_DIRS[*]} in $tree (log: $REGTEST_DIR/$name.log)"
  # vg_regtest exits 1 when any test fails; the comparison decides.
  (cd "$tree" && perl tests/vg_regtest "${REGTEST_DIRS[@]}" > "$REGTEST_DIR/$name.log" 2>&1) || true
  [ -f "$tree/test-suite-overall.log" ] || die "vg_regtest left no test-suite-overall.log in $tree"
  cp "$tree/test-suite-overall.log" "$REGTEST_DIR/$name-overall.log"
  sed -n 's/.* result: \([A-Z]*\) \(.*\)\.log$/\2\t\1/p' "$tree/test-suite-overall.log" \
    | LC_ALL=C sort > "$REGTEST_DIR/$name.results"
  grep -E '^== ' "$REGTEST_DIR/$name.log" | sed "s/^/  $name: /" || true
}

cmd_regtest() {
  cmd_stock
  cmd_stage
  rm -rf "$REGTEST_DIR"
  mkdir -p "$REGTEST_DIR"
  regtest_one stock "$STOCK_TREE"
  regtest_one patched "$TREE"
  local s=$REGTEST_DIR/stock.results p=$REGTEST_DIR/patched.results
  LC_ALL=C join -t$'\t' "$s" "$p" | awk -F'\t' '$2 == "PASS" && $3 != "PASS" { print $1 }' > "$REGTEST_DIR/regressions"
  LC_ALL=C join -t$'\t' "$s" "$p" | awk -F'\t' '$2 != "PASS" && $3 == "PASS" { print $1 }' > "$REGTEST_DIR/fixed"
  LC_ALL=C join -t$'\t' -v1 "$s" "$p" | cut -f1 > "$REGTEST_DIR/only-stock"
  # Tests the series adds (memcheck/tests/jit_*) run in the patched tree
  # only: each must pass there.
  LC_ALL=C join -t$'\t' -v2 "$s" "$p" > "$REGTEST_DIR/only-patched"
  awk -F'\t' '$2 != "PASS" { print $1 }' "$REGTEST_DIR/only-patched" > "$REGTEST_DIR/only-patched-failing"
  echo
  echo "upstream regression tests (${REGTEST_DIRS[*]}):"
  local side f
  for side in stock patched; do
    f=$REGTEST_DIR/$side.results
    printf '  %-8s %4d tests: %4d PASS, %4d FAIL, %4d other\n' "$side" "$(wc -l < "$f")" \
      "$(awk -F'\t' '$2 == "PASS"' "$f" | wc -l)" "$(awk -F'\t' '$2 == "FAIL"' "$f" | wc -l)" \
      "$(awk -F'\t' '$2 != "PASS" && $2 != "FAIL"' "$f" | wc -l)"
  done
  if [ -s "$REGTEST_DIR/fixed" ]; then
    echo "  failing in stock, passing when patched: $(wc -l < "$REGTEST_DIR/fixed")"
  fi
  if [ -s "$REGTEST_DIR/only-stock" ]; then
    echo "  run in stock only (missing from the patched run): $(wc -l < "$REGTEST_DIR/only-stock")"
    sed 's/^/    /' "$REGTEST_DIR/only-stock"
  fi
  if [ -s "$REGTEST_DIR/only-patched" ]; then
    echo "  run in the patched tree only (tests the series adds): $(wc -l < "$REGTEST_DIR/only-patched"), failing: $(wc -l < "$REGTEST_DIR/only-patched-failing")"
    sed 's/^/    /' "$REGTEST_DIR/only-patched-failing"
  fi
  echo "  results: $REGTEST_DIR"
  if [ -s "$REGTEST_DIR/regressions" ] || [ -s "$REGTEST_DIR/only-stock" ]; then
    echo "  REGRESSIONS (pass in stock, fail when patched): $(wc -l < "$REGTEST_DIR/regressions")"
    sed 's/^/    /' "$REGTEST_DIR/regressions"
    echo "  see $TREE/<test dir>/<test>.stdout.diff and .stderr.diff"
    exit 1
  fi
  if [ -s "$REGTEST_DIR/only-patched-failing" ]; then
    echo "  FAILING tests of the series: $(wc -l < "$REGTEST_DIR/only-patched-failing")"
    exit 1
  fi
  echo "  no regressions"
}

