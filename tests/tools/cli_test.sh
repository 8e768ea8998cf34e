#!/usr/bin/env bash
# Drives the `weft` CLI: one named case per invocation (one CTest test each).
#
#   cli_test.sh WEFT_BINARY DATA_DIR CASE [SHARED_MODELS_DIR]
#
# Runs from DATA_DIR so that file names in the output are stable. Text and
# JSON reports are compared byte for byte with DATA_DIR/expected/<case>.*;
# regenerate them with WEFT_CLI_UPDATE=1 after an intended change (and read
# the diff). Exit 0 pass, 1 fail, 77 skip (shared models absent).
set -u
weft="$1"
data="$2"
case_name="$3"
shared="${4:-}"
cd "$data" || exit 1
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL [$case_name]: $*" >&2
  failures=$((failures + 1))
}

# run ARGS...: runs weft, leaving the exit code in $rc and output in files.
run() {
  "$weft" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  last_cmd="weft $*"
}

expect_rc() {
  if [[ $rc -ne $1 ]]; then
    fail "'$last_cmd' exited $rc, expected $1"
    sed 's/^/  stdout: /' "$tmp/out" >&2
    sed 's/^/  stderr: /' "$tmp/err" >&2
  fi
}
# expect_in out|err STRING...: each fixed string occurs in stdout/stderr
# (one spanning lines as a whole: grep -F would take each line apart).
expect_in() {
  local stream="$1" text="" s
  shift
  for s in "$@"; do
    if [[ "$s" == *$'\n'* ]]; then
      [[ -n "$text" ]] || text="$(cat "$tmp/$stream"; echo .)"
      [[ "$text" == *"$s"* ]] && continue
    elif grep -qF -- "$s" "$tmp/$stream"; then
      continue
    fi
    fail "'$last_cmd': $stream lacks '$s': $(head -c 600 "$tmp/$stream")"
  done
}
expect_empty() {
  [[ -s "$tmp/$1" ]] && fail "'$last_cmd': $1 is not empty: $(head -c 300 "$tmp/$1")"
  return 0
}
# expect_golden NAME: stdout equals expected/NAME.
expect_golden() {
  local want="expected/$1"
  if [[ "${WEFT_CLI_UPDATE:-}" == 1 ]]; then
    cp "$tmp/out" "$want"
    return
  fi
  diff -u "$want" "$tmp/out" >"$tmp/diff" || fail "'$last_cmd': stdout differs from $want:
$(cat "$tmp/diff")"
}
# expect_json: stdout parses as JSON (when a checker is installed).
expect_json() {
  if command -v jq >/dev/null 2>&1; then
    jq -e . "$tmp/out" >/dev/null 2>&1 || fail "'$last_cmd': stdout is not valid JSON"
  elif command -v python3 >/dev/null 2>&1; then
    python3 -m json.tool "$tmp/out" >/dev/null 2>&1 || fail "'$last_cmd': stdout is not valid JSON"
  fi
}
# expect_usage_error ARGS...: exit 2, usage on stderr, nothing on stdout.
expect_usage_error() {
  local want="$1"
  shift
  run "$@"
  expect_rc 2
  expect_in err "$want" "usage: weft inspect"
  expect_empty out
}
# expect_lib_error ARGS... -- STRINGS...: exit 1, message on stderr only.
expect_lib_error() {
  local args=()
  while [[ "$1" != "--" ]]; do args+=("$1"); shift; done
  shift
  run "${args[@]}"
  expect_rc 1
  expect_empty out
  expect_in err "error:" "$@"
}

# npy_header FILE SHAPE: the header of a little-endian float32 .npy of the
# given shape ("(2,)", "(2, 3)"), written by hand so the test needs no NumPy.
npy_header() {
  local dict="{'descr': '<f4', 'fortran_order': False, 'shape': $2, }"
  while (( (10 + ${#dict} + 1) % 64 != 0 )); do dict+=" "; done
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( (${#dict} + 1) & 255 )))\\x$(printf %02x $(( (${#dict} + 1) >> 8 )))"
    printf '%s\n' "$dict"; } >"$1"
}
# make_npy FILE HEXBYTES: a float32 .npy of shape (2,) with the given 8 data
# bytes (little endian).
make_npy() {
  npy_header "$1" "(2,)"
  printf "$2" >>"$1"
}
# make_npy_f32 FILE SHAPE VALUE...: a float32 .npy holding the values (perl
# packs them).
make_npy_f32() {
  local file="$1" shape="$2"
  shift 2
  npy_header "$file" "$shape"
  perl -e 'print pack("f<*", @ARGV)' "$@" >>"$file"
}
# npy_values FILE: the float32 values after a .npy file's header.
npy_values() {
  local hlen
  hlen=$(od -An -tu2 -j8 -N2 "$1" | tr -d ' ')
  od -An -tf4 -j$((10 + hlen)) "$1" | xargs
}

# expect_values FILE V...: FILE's float32 values equal V... within 1e-5
# (relative to max(1, |V|)).
expect_values() {
  local file="$1"
  shift
  local got
  got="$(npy_values "$file")"
  awk -v got="$got" -v want="$*" 'BEGIN {
    n = split(got, g, " "); m = split(want, w, " ")
    if (n != m) exit 1
    for (i = 1; i <= n; i++) { d = g[i] - w[i]; if (d < 0) d = -d; s = w[i] < 0 ? -w[i] : w[i]
      if (d > 1e-5 * (s > 1 ? s : 1)) exit 1 }
  }' || fail "$file holds '$got', expected '$*'"
}
case "$case_name" in
  version)
    run --version
    expect_rc 0
    grep -qE '^weft [0-9]+\.[0-9]+\.[0-9]+ \(C ABI [0-9]+\)$' "$tmp/out" || fail "bad version line: $(cat "$tmp/out")"
    expect_empty err
    ;;
  help)
    run --help
    expect_rc 0
    expect_in out "usage: weft inspect FILE.json" "weft ops [--json]" "COMMAND --help"
    expect_empty err
    # Every subcommand is listed with its synopsis and its description.
    for cmd in inspect run plan train predict place export ops im2rec; do
      expect_in out "weft $cmd " $'\n'"$cmd "
    done
    ;;
  help_subcommands)
    # `weft CMD --help` and `-h` print CMD's own usage (not the others') and
    # exit 0, wherever the flag stands and whatever else is given.
    for cmd in inspect run plan train predict place export ops im2rec; do
      for flag in --help -h; do
        run "$cmd" "$flag"
        expect_rc 0
        expect_empty err
        expect_in out "usage: weft $cmd "
        [[ $(grep -c "weft " "$tmp/out") -le 3 ]] || fail "'$last_cmd' prints more than $cmd's usage"
      done
      run help "$cmd"
      expect_rc 0
      expect_in out "usage: weft $cmd "
    done
    run run --symbol abc.json --input a=x.npy --help
    expect_rc 0; expect_in out "usage: weft run " "--init" "--seed" "auxiliary state"
    expect_empty err
    run inspect --frob -h
    expect_rc 0; expect_in out "usage: weft inspect "
    run ops -h
    expect_rc 0; expect_in out "aliases"
    for args in "version --help" "--version -h" "help --help" "-h -h"; do
      run $args
      expect_rc 0
      expect_empty err
      expect_in out "usage: weft --"
    done
    run help frobnicate
    expect_rc 2; expect_in err "help: unknown command 'frobnicate'"
    ;;
  usage_errors)
    expect_usage_error "no command given"
    expect_usage_error "unknown command 'frobnicate'" frobnicate
    expect_usage_error "no symbol file given" inspect
    expect_usage_error "no symbol file given" inspect --json
    expect_usage_error "more than one file" inspect abc.json mlp.json
    expect_usage_error "unknown option '--shapes'" inspect abc.json --shapes a=1
    expect_usage_error "--shape needs a value" inspect abc.json --shape
    expect_usage_error "expects NAME=VALUE, got 'a'" inspect abc.json --shape a
    expect_usage_error "extent 'x' is not a non-negative integer" inspect abc.json --shape a=2,x
    expect_usage_error "extent '-2'" inspect abc.json --shape a=-2
    expect_usage_error "extent ''" inspect abc.json --shape a=2,,3
    expect_usage_error "unknown dtype 'float8'" inspect abc.json --dtype a=float8
    expect_usage_error "--shape a given twice" inspect abc.json --shape a=1 --shape a=2
    expect_usage_error "--dtype a given twice" inspect abc.json --dtype a=int8 --dtype=a=int8
    expect_usage_error "ops: unexpected argument 'extra'" ops extra
    expect_usage_error "--version takes no arguments" --version now
    ;;
  inspect_text)
    # MXNet's mutual inference: a (2,0), c (0,3) => everything (2,3).
    run inspect abc.json --shape a=2,0 --shape c=0,3
    expect_rc 0
    expect_empty err
    expect_golden inspect_abc.txt
    # Shapes from data and hints, dtype from one input: complete.
    run inspect mlp.json --shape data=4,5 --dtype data=float32
    expect_rc 0
    expect_golden inspect_mlp.txt
    ;;
  inspect_json)
    run inspect mlp.json --shape data=4,5 --dtype data=float32 --json
    expect_rc 0
    expect_empty err
    expect_json
    expect_golden inspect_mlp.json
    run --json 2>/dev/null  # sanity: --json is no command
    expect_rc 2
    ;;
  inspect_partial)
    # Nothing given for data: hints still fill w1 and b1, the rest is unknown.
    run inspect mlp.json
    expect_rc 0
    expect_golden inspect_mlp_partial.txt
    expect_in out "shapes: partial" "data  ?" "relu1_output  ?"
    run inspect mlp.json --json
    expect_rc 0
    expect_json
    expect_golden inspect_mlp_partial.json
    expect_in out '"shapes_complete": false' '{"name":"data","shape":null' '"unknown_shapes": ["data"'
    # A partly known input: unknown extents print as ? (0 in JSON).
    run inspect mlp.json --shape data=0,5
    expect_rc 0
    expect_in out "data  (?,5)" "shapes: partial"
    run inspect mlp.json --shape 'data=?,5' --json
    expect_rc 0
    expect_in out '{"name":"data","shape":[0,5],"dtype":"float32"}'
    ;;
  inspect_dtype)
    run inspect abc.json --dtype b=float64 --shape=b=7
    expect_rc 0
    expect_in out "dtypes: complete" "shapes: complete" "a     (7,)   float64" "sum_output  (7,)   float64"
    run inspect abc.json --dtype b=int32 --json
    expect_rc 0
    expect_json
    expect_in out '"dtypes_complete": true' '{"name":"c","shape":null,"dtype":"int32"}'
    # A scalar input (nothing after '=').
    run inspect abc.json --shape a=
    expect_rc 0
    expect_in out "a     ()     ?" "sum_output  ()     ?"
    ;;
  inspect_legacy_08)
    run inspect legacy_08.json --shape x=2,2
    expect_rc 0
    expect_empty err
    expect_golden inspect_legacy_08.txt
    expect_in out "format: 0.8" "mxnet_version: 800 (not recorded in the file)" "upgraded: yes"
    run inspect legacy_08.json --json
    expect_rc 0
    expect_json
    expect_in out '"format": "0.8"' '"has_version": false' '"upgraded": true'
    ;;
  inspect_legacy_09)
    run inspect legacy_09.json --json
    expect_rc 0
    expect_json
    expect_golden inspect_legacy_09.json
    expect_in out '"format": "0.9"' '"mxnet_version": 903' '{"name":"s_output","shape":[1,4],"dtype":null}'
    ;;
  inspect_aux_states)
    # An old (pre-0.9.0) BatchNorm without its moving_mean/var inputs: the
    # loader adds them as auxiliary states. Until BatchNorm is registered the
    # error must name it and the node.
    run inspect batchnorm_09.json --shape data=2,3
    if [[ $rc -eq 0 ]]; then
      expect_in out "format: 0.9" "upgraded: yes" "auxiliary states (2):" \
        "bn0_moving_mean  (3,)" "bn0_moving_var   (3,)" "bn0_gamma  (3,)"
      run inspect batchnorm_09.json --shape data=2,3 --json
      expect_rc 0
      expect_json
      expect_in out '"auxiliary_states": [' '{"name":"bn0_moving_mean","shape":[3]'
    else
      expect_rc 1
      expect_empty out
      expect_in err "batchnorm_09.json" "'BatchNorm'" "node 3 'bn0'"
    fi
    ;;
  inspect_shape_conflict)
    expect_lib_error inspect abc.json --shape a=2,3 --shape b=3,2 -- \
      "node 'ab'" "elemwise_mul" "input 'rhs'" "expected (2,3), given (3,2)"
    expect_lib_error inspect abc.json --shape a=2,3 --shape c=2,3,1 -- "(2,3)" "(2,3,1)"
    ;;
  inspect_dtype_conflict)
    expect_lib_error inspect abc.json --dtype a=float32 --dtype b=float64 -- \
      "node 'ab'" "elemwise_mul" "input 'rhs'" "expected float32, given float64"
    ;;
  inspect_unknown_name)
    expect_lib_error inspect abc.json --shape zz=1 -- "no input named 'zz'" "inputs are: a, b, c"
    expect_lib_error inspect abc.json --dtype zz=int8 -- "'zz'" "a, b, c"
    ;;
  inspect_malformed)
    expect_lib_error inspect malformed.json -- "malformed.json" "not valid JSON"
    ;;
  inspect_missing_file)
    expect_lib_error inspect does-not-exist.json -- "cannot open 'does-not-exist.json'" "No such file"
    ;;
  inspect_unknown_op)
    expect_lib_error inspect unknown_op.json -- "unknown_op.json" "not registered" \
      "'NoSuchConvolution'" "node 2 'conv7'"
    expect_lib_error inspect unknown_op.json --json -- "'NoSuchConvolution'"
    ;;
  ops_text)
    run ops
    expect_rc 0
    expect_empty err
    grep -qE '^[0-9]+ operators$' "$tmp/out" || fail "no operator count line"
    expect_in out $'\nquadratic\n' "    Elementwise quadratic" "  a : float, default 0" \
      $'\nElementWiseSum\n' "  num_args : int, required" $'\nelemwise_add\n' \
      $'\nquadratic\n  aliases: _contrib_quadratic\n' "  aliases: add_n, _ElementWiseSum"
    ;;
  ops_load)  # the operator libraries of tests/CMakeLists.txt (WEFT_TEST_PLUGIN*)
    run ops --load "$WEFT_TEST_PLUGIN"
    expect_rc 0
    expect_empty err
    expect_in out $'\nplugin_softplus\n  from an operator library\n' \
      $'\n_backward_plugin_softplus\n  from an operator library\n' "  attrs : string"
    run ops --json --load "$WEFT_TEST_PLUGIN"
    expect_rc 0
    expect_json
    expect_in out '"name": "plugin_softplus"' '"library": true'
    run ops --load "$WEFT_TEST_PLUGIN_V2"
    expect_rc 1
    expect_in err "softplus_plugin_v2" "version 2" "this Weft supports version 1"
    ;;
  ops_json)
    run ops --json
    expect_rc 0
    expect_empty err
    expect_json
    expect_in out $'"name": "quadratic",\n    "doc": "Elementwise quadratic' \
      '{"name":"a","type":"float","required":false,"default":"0","doc":' \
      '{"name":"num_args","type":"int","required":true,"default":null' \
      $'"aliases": ["_contrib_quadratic"],\n    "params": [' '"aliases": ["add_n","_ElementWiseSum"]'
    if command -v jq >/dev/null 2>&1; then
      n_text=$("$weft" ops | head -1 | cut -d' ' -f1)
      n_json=$(jq length "$tmp/out")
      [[ "$n_text" == "$n_json" ]] || fail "ops: text lists $n_text operators, JSON $n_json"
      # Every op has an aliases list; quadratic's is exactly its one alias,
      # and no alias is also listed as an operator.
      jq -e 'all(.[]; .aliases | type == "array")' "$tmp/out" >/dev/null || fail "ops --json: an op lacks aliases"
      [[ $(jq -c '.[] | select(.name == "quadratic") | .aliases' "$tmp/out") == '["_contrib_quadratic"]' ]] ||
        fail "ops --json: quadratic's aliases are not [\"_contrib_quadratic\"]"
      [[ $(jq '[.[].name] as $n | [.[].aliases[] | select(. as $a | $n | index($a))] | length' "$tmp/out") == 0 ]] ||
        fail "ops --json: an alias is also an operator name"
    fi
    ;;
  shared_models)
    # Every shared MXNet model either loads and is reported, or fails with a
    # clear error naming each unregistered operator and a node using it.
    if [[ -z "$shared" || ! -d "$shared" ]]; then
      echo "SKIP: shared models not found at '$shared'"
      exit 77
    fi
    shopt -s nullglob
    files=("$shared"/*.json)
    [[ ${#files[@]} -gt 0 ]] || { echo "SKIP: no .json in $shared"; exit 77; }
    for f in "${files[@]}"; do
      run inspect "$f"
      if [[ $rc -eq 0 ]]; then
        expect_in out "format: " "arguments (" "outputs ("
        expect_empty err
      elif [[ $rc -eq 1 ]]; then
        expect_empty out
        expect_in err "weft inspect: error:" "$(basename "$f")" "not registered: operator '"
        grep -qE "used by node [0-9]+ '" "$tmp/err" || fail "$f: error names no node: $(cat "$tmp/err")"
        echo "$(basename "$f"): $(sed 's/.*not registered: //' "$tmp/err")"
      else
        fail "$f: exit code $rc (crash?): $(cat "$tmp/err")"
      fi
    done
    # The 0.8-format MXNet test file: reported as 0.8 once it loads; until
    # its NN operators exist, the error names FullyConnected and fc1.
    run inspect "$shared/apache__save_000800.json" --json
    if [[ $rc -eq 0 ]]; then
      expect_in out '"format": "0.8"' '"upgraded": true'
    else
      expect_rc 1
      expect_in err "'FullyConnected'" "'fc1'"
    fi
    ;;
  run_abc)
    # sum = a*b + b*c with a=(1,2), b=(3,4), c=(5,6): (18, 32).
    make_npy "$tmp/a.npy" '\x00\x00\x80\x3f\x00\x00\x00\x40'
    make_npy "$tmp/b.npy" '\x00\x00\x40\x40\x00\x00\x80\x40'
    make_npy "$tmp/c.npy" '\x00\x00\xa0\x40\x00\x00\xc0\x40'
    run run --symbol abc.json --input a="$tmp/a.npy" --input b="$tmp/b.npy" --input=c="$tmp/c.npy" \
      --output-dir "$tmp"
    expect_rc 0
    expect_empty err
    expect_in out "sum_output (2,) float32 -> $tmp/sum_output.npy" "memory: planned"
    [[ "$(npy_values "$tmp/sum_output.npy")" == "18 32" ]] ||
      fail "sum_output holds '$(npy_values "$tmp/sum_output.npy")', expected '18 32'"
    ;;
  run_errors)
    make_npy "$tmp/a.npy" '\x00\x00\x80\x3f\x00\x00\x00\x40'
    printf 'not a npy file' >"$tmp/bad.npy"
    run run --input a="$tmp/a.npy"
    expect_rc 2; expect_in err "run: --symbol S.json is required"
    run run --symbol abc.json
    expect_rc 2; expect_in err "at least one --input"
    run run --symbol abc.json --input z="$tmp/a.npy" --input a="$tmp/a.npy" --input b="$tmp/a.npy" --input c="$tmp/a.npy"
    expect_rc 2; expect_in err "--input z: the model has no argument or auxiliary state of that name"
    run run --symbol abc.json --input a="$tmp/a.npy" --input a="$tmp/a.npy"
    expect_rc 2; expect_in err "--input a given twice"
    # Without weights or --init: every missing name, and the way out.
    expect_lib_error run --symbol abc.json --input a="$tmp/a.npy" -- \
      "2 argument(s)/auxiliary state(s) have no value: b, c" "--input NAME=FILE.npy" "--init xavier"
    expect_lib_error run --symbol abc.json --input a="$tmp/bad.npy" -- "weft run --input a: error:"
    expect_lib_error run --symbol abc.json --input a="$tmp/nope.npy" -- "nope.npy"
    expect_lib_error run --symbol abc.json --params "$tmp/bad.npy" --input a="$tmp/a.npy" -- "bad.npy"
    expect_lib_error run --symbol malformed.json --input a="$tmp/a.npy" -- "malformed.json"
    # An output directory that cannot be made (a file is in the way).
    : >"$tmp/afile"
    expect_lib_error run --symbol abc.json --input a="$tmp/a.npy" --input b="$tmp/a.npy" --input c="$tmp/a.npy" \
      --output-dir "$tmp/afile/sub" -- "cannot create output directory '$tmp/afile/sub'"
    run run --symbol abc.json --input a="$tmp/a.npy" --seed -3
    expect_rc 2; expect_in err "--seed expects a non-negative integer, given '-3'"
    run run --symbol abc.json --init
    expect_rc 2; expect_in err "--init needs a value"
    expect_lib_error run --symbol abc.json --input a="$tmp/a.npy" --init bogus -- "unknown initializer 'bogus'"
    # The shapes --init needs must follow from what is given.
    expect_lib_error run --symbol mlp.json --init xavier -- "cannot infer the shape of data" "--input"
    ;;
  run_output_dir)
    # A fresh nested output directory is created with its parents, before
    # the model runs; an existing one is reused.
    make_npy "$tmp/a.npy" '\x00\x00\x80\x3f\x00\x00\x00\x40'
    for dir in "$tmp/new/nested/dir" "$tmp/new/nested/dir" "$tmp/new/other"; do
      run run --symbol abc.json --input a="$tmp/a.npy" --input b="$tmp/a.npy" --input c="$tmp/a.npy" --output-dir "$dir"
      expect_rc 0
      expect_empty err
      expect_in out "sum_output (2,) float32 -> $dir/sum_output.npy"
      expect_values "$dir/sum_output.npy" 2 8   # a*b + b*c with a = b = c = (1, 2)
    done
    ;;
  run_aux_input)
    # BatchNorm (eps 0.001, fix_gamma) in inference: (x - moving_mean) /
    # sqrt(moving_var + eps) + beta. --init gives mean 0, var 1, beta 0;
    # --input overrides the auxiliary states moving_mean and moving_var.
    make_npy_f32 "$tmp/x.npy" "(2, 3)" 1 2 3 4 5 6
    make_npy_f32 "$tmp/mean.npy" "(3,)" 1 2 3
    make_npy_f32 "$tmp/var.npy" "(3,)" 3.999 0.999 8.999
    run run --symbol batchnorm_09.json --input data="$tmp/x.npy" --init xavier --output-dir "$tmp/plain"
    expect_rc 0
    expect_in out "init: xavier (seed 1) filled 4 of 5"
    scale=$(awk 'BEGIN { printf "%.7f", 1 / sqrt(1.001) }')
    expect_values "$tmp/plain/bn0_output.npy" $(awk -v s="$scale" 'BEGIN { for (i = 1; i <= 6; i++) printf "%.7f ", i * s }')
    run run --symbol batchnorm_09.json --input data="$tmp/x.npy" --input bn0_moving_mean="$tmp/mean.npy" \
      --init xavier --output-dir "$tmp/mean"
    expect_rc 0
    expect_empty err
    expect_in out "filled 3 of 5"
    expect_values "$tmp/mean/bn0_output.npy" 0 0 0 $(awk -v s="$scale" 'BEGIN { printf "%.7f %.7f %.7f", 3 * s, 3 * s, 3 * s }')
    # Both statistics given: sqrt(var + eps) = (2, 1, 3).
    run run --symbol batchnorm_09.json --input data="$tmp/x.npy" --input bn0_moving_mean="$tmp/mean.npy" \
      --input bn0_moving_var="$tmp/var.npy" --init xavier --output-dir "$tmp/both"
    expect_rc 0
    expect_values "$tmp/both/bn0_output.npy" 0 0 0 1.5 3 1
    ;;
  run_init)
    # --init fills what is not given (w1 (5,3) and b1 (1,3) from the hints):
    # the same seed gives identical outputs, another seed different ones.
    make_npy_f32 "$tmp/x.npy" "(4, 5)" 1 -2 3 -4 5 0.5 1.5 -2.5 3.5 4.5 -1 -1 2 2 3 0.25 0 0 1 -1
    for run_dir in 7a 7b 8a; do
      seed=${run_dir%?}
      run run --symbol mlp.json --input data="$tmp/x.npy" --init xavier --seed $seed --output-dir "$tmp/$run_dir"
      expect_rc 0
      expect_empty err
      expect_in out "init: xavier (seed $seed) filled 2 of 3 arguments/auxiliary states" "relu1_output (4,3) float32"
    done
    cmp -s "$tmp/7a/relu1_output.npy" "$tmp/7b/relu1_output.npy" || fail "--init xavier --seed 7 twice: outputs differ"
    cmp -s "$tmp/7a/total_output.npy" "$tmp/7b/total_output.npy" || fail "--seed 7 twice: total_output differs"
    cmp -s "$tmp/7a/relu1_output.npy" "$tmp/8a/relu1_output.npy" && fail "--seed 7 and --seed 8 give the same output"
    # The outputs are those of a real initialisation: not all zero.
    [[ "$(npy_values "$tmp/7a/total_output.npy")" != "0 0 0 0" ]] || fail "xavier-initialised output is all zeros"
    for init in uniform normal; do
      run run --symbol mlp.json --input data="$tmp/x.npy" --init $init --output-dir "$tmp/$init"
      expect_rc 0
      expect_in out "init: $init (seed 1)"
    done
    cmp -s "$tmp/uniform/relu1_output.npy" "$tmp/normal/relu1_output.npy" && fail "uniform and normal give the same output"
    # --init one: relu(x . ones + 1) summed over 3 columns.
    run run --symbol mlp.json --input data="$tmp/x.npy" --init one --output-dir "$tmp/one"
    expect_rc 0
    expect_values "$tmp/one/total_output.npy" 12 25.5 18 3.75
    # A parameter given with --input is kept; only the rest is filled.
    make_npy_f32 "$tmp/b1.npy" "(1, 3)" 100 100 100
    run run --symbol mlp.json --input data="$tmp/x.npy" --input b1="$tmp/b1.npy" --init one --output-dir "$tmp/b1"
    expect_rc 0
    expect_in out "filled 1 of 3"
    expect_values "$tmp/b1/total_output.npy" 309 322.5 315 300.75
    ;;
  run_init_attr)
    # __init__ attributes win over the name's rule: fc_bias (constant 0.5,
    # where *bias would get 0) and s_gamma (constant 2, where *gamma would
    # get 1); fc_weight has none and gets the rule (zero here).
    make_npy_f32 "$tmp/x.npy" "(2, 3)" 1 2 3 4 5 6
    run run --symbol init_attr.json --input data="$tmp/x.npy" --init zero --output-dir "$tmp"
    expect_rc 0
    expect_empty err
    expect_in out "filled 3 of 4 arguments/auxiliary states; by __init__: fc_bias, s_gamma"
    expect_values "$tmp/out_output.npy" 3 5 7 9 11 13
    ;;
  run_resnet50_init)
    # ResNet-50 without weights: --init fills its 260 parameters and
    # statistics (softmax_label gets zeros); outputs go to a fresh nested
    # directory. Then an output that cannot be written (a directory in its
    # place) is an error, not a crash, although forward work is pending.
    model="$shared/pathak-ashutosh__resnet-50-symbol.json"
    [[ -f "$model" ]] || { echo "SKIP: no $model"; exit 77; }
    command -v perl >/dev/null || { echo "SKIP: no perl to write the input"; exit 77; }
    npy_header "$tmp/x.npy" "(1, 3, 224, 224)"
    perl -e 'print pack("f<*", map { ($_ % 17) / 8 - 1 } 0 .. 150527)' >>"$tmp/x.npy"
    run run --symbol "$model" --input data="$tmp/x.npy" --init xavier --seed 3 --output-dir "$tmp/a/b"
    expect_rc 0
    expect_empty err
    expect_in out "init: xavier (seed 3) filled 260 of 261 arguments/auxiliary states; zeros for inputs: softmax_label" \
      "softmax_output (1,11586) float32 -> $tmp/a/b/softmax_output.npy"
    [[ $(stat -c %s "$tmp/a/b/softmax_output.npy") -eq $((128 + 11586 * 4)) ]] || fail "softmax_output.npy has the wrong size"
    mkdir -p "$tmp/blocked/softmax_output.npy"
    for i in 1 2; do
      run run --symbol "$model" --input data="$tmp/x.npy" --init xavier --output-dir "$tmp/blocked"
      expect_rc 1
      expect_in err "weft run: error:" "cannot open '$tmp/blocked/softmax_output.npy' for writing"
    done
    ;;
  run_det1)
    # MTCNN P-Net with its real .params; values are checked against PyTorch
    # in tests/core/executor/det1_forward_test.cc, shapes and files here.
    [[ -f "$shared/deepinsight__det1-0001.params" ]] || { echo "SKIP: no det1 params"; exit 77; }
    run run --symbol "$shared/deepinsight__det1-symbol.json" --params "$shared/deepinsight__det1-0001.params" \
      --input data=../../data/det1/input_24x36.npy --output-dir "$tmp"
    expect_rc 0
    expect_in out "conv4_2_output (1,4,7,13) float32" "prob1_output (1,2,7,13) float32" "memory: planned"
    [[ $(stat -c %s "$tmp/conv4_2_output.npy") == $(stat -c %s ../../data/det1/conv4_2_24x36.npy) ]] ||
      fail "conv4_2_output.npy size differs from the reference's"
    ;;
  train_mlp)
    # Two epochs of the example MLP on 2000 Fashion-MNIST images through the
    # module C ABI: progress lines, test accuracy, checkpoint per epoch.
    fm=/usr/share/datasets/fashion-mnist
    [[ -f $fm/train-images-idx3-ubyte.gz ]] || { echo "SKIP: Fashion-MNIST not installed at $fm"; exit 77; }
    run train --symbol ../../../examples/models/mlp-symbol.json --limit 2000 --epochs 2 --batch-size 50 \
      --progress lines --save "$tmp/mlp"
    expect_rc 0
    expect_empty err
    expect_in out "2000 images, batch 50, 2 epoch(s), sgd lr 0.05" "Epoch[0] Batch [40/40]" \
      "Epoch[0] Train: accuracy=" "Epoch[1] Train: accuracy=" "(10000 images)" \
      "checkpoint: $tmp/mlp-symbol.json, $tmp/mlp-0002.params"
    for f in mlp-symbol.json mlp-0001.params mlp-0002.params; do
      [[ -s "$tmp/$f" ]] || fail "checkpoint file $f was not written"
    done
    acc=$(sed -n 's/^test accuracy: \([0-9.]*\) .*/\1/p' "$tmp/out")
    awk -v a="${acc:-0}" 'BEGIN { exit !(a >= 0.6) }' || fail "test accuracy '${acc}' below 0.6 (chance is 0.1)"
    ;;
  predict_mlp)
    # A briefly trained MLP classifies the first 300 test images: the file has
    # one class per image, and the printed accuracy is the file's agreement
    # with the labels (read here from the IDX file, independently of weft).
    fm=/usr/share/datasets/fashion-mnist
    [[ -f $fm/t10k-labels-idx1-ubyte.gz ]] || { echo "SKIP: Fashion-MNIST not installed at $fm"; exit 77; }
    run train --symbol ../../../examples/models/mlp-symbol.json --limit 1000 --epochs 1 --batch-size 50 \
      --progress none --save "$tmp/mlp"
    expect_rc 0
    run predict --checkpoint "$tmp/mlp" --epoch 1 --limit 300 --out "$tmp/pred.txt"
    expect_rc 0
    expect_empty err
    expect_in out "on 300 images ($tmp/mlp-0001.params)"
    [[ $(wc -l <"$tmp/pred.txt") -eq 300 ]] || fail "pred.txt has $(wc -l <"$tmp/pred.txt") lines, expected 300"
    grep -qvE '^[0-9]$' "$tmp/pred.txt" && fail "pred.txt holds a line that is not a class 0-9"
    gzip -dc "$fm/t10k-labels-idx1-ubyte.gz" | tail -c +9 | head -c 300 | od -An -tu1 -v | xargs -n1 >"$tmp/labels.txt"
    correct=$(paste -d' ' "$tmp/pred.txt" "$tmp/labels.txt" | awk '$1 == $2 { n++ } END { print n + 0 }')
    want=$(awk -v c="$correct" 'BEGIN { printf "accuracy %.2f%% on 300 images", 100 * c / 300 }')
    expect_in out "$want"
    (( correct >= 150 )) || fail "only $correct of 300 correct (chance is 30)"
    ;;
  export_onnx)
    # `weft export`: det1 with its real weights (MXNet 0.8 files) written as
    # ONNX at two opsets, the e2e SSD with MultiBoxDetection; a model with an
    # operator ONNX lacks fails naming the node and writes nothing; a missing
    # input shape and a bad opset are errors.
    [[ -f "$shared/deepinsight__det1-0001.params" ]] || { echo "SKIP: no det1 params"; exit 77; }
    for opset in 11 17; do
      run export "$shared/deepinsight__det1-symbol.json" "$shared/deepinsight__det1-0001.params" \
        -o "$tmp/det1.onnx" --shape data=1,3,24,36 --opset $opset --dynamic-batch
      expect_rc 0
      expect_empty err
      expect_in out "to $tmp/det1.onnx (ONNX opset $opset, dynamic batch)"
      [[ -s "$tmp/det1.onnx" ]] || fail "no $tmp/det1.onnx"
    done
    run export ../../data/e2e/mxnet_ssd/symbol.json ../../data/e2e/mxnet_ssd/model.params \
      -o "$tmp/ssd.onnx" --shape data=1,3,16,24
    expect_rc 0
    [[ -s "$tmp/ssd.onnx" ]] || fail "no $tmp/ssd.onnx"
    cat > "$tmp/am-symbol.json" << 'EOF'
{"nodes": [{"op": "null", "name": "data", "inputs": []},
 {"op": "argmax", "name": "am", "attrs": {"axis": "1"}, "inputs": [[0, 0, 0]]}],
 "arg_nodes": [0], "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}
EOF
    run export "$tmp/am-symbol.json" -o "$tmp/am.onnx" --shape data=2,3
    expect_rc 1
    expect_in err "1 node cannot be exported" "op 'argmax' node 'am': no ONNX conversion"
    [[ ! -e "$tmp/am.onnx" ]] || fail "a model was written despite the error"
    run export "$shared/deepinsight__det1-symbol.json" -o "$tmp/x.onnx"
    expect_rc 1
    expect_in err "the shapes of the inputs data"
    run export "$shared/deepinsight__det1-symbol.json" -o "$tmp/x.onnx" --opset 18
    expect_rc 1
    expect_in err "opset 18 is not supported (11 to 17)"
    ;;
  export_onnx_python)
    # The exported files through Python's onnx.checker with full_check (its
    # shape inference too), where Debian's python3-onnx is installed.
    /usr/bin/python3 -c 'import onnx.checker' 2> /dev/null || { echo "SKIP: no python3-onnx"; exit 77; }
    [[ -f "$shared/deepinsight__det1-0001.params" ]] || { echo "SKIP: no det1 params"; exit 77; }
    run export "$shared/deepinsight__det1-symbol.json" "$shared/deepinsight__det1-0001.params" \
      -o "$tmp/det1.onnx" --shape data=1,3,12,12
    expect_rc 0
    run export "$shared/pathak-ashutosh__resnet-50-symbol.json" -o "$tmp/r50.onnx" \
      --shape data=1,3,224,224 --opset 11 --dynamic-batch
    expect_rc 0
    for f in det1 r50; do
      /usr/bin/python3 -c "import onnx, onnx.checker; onnx.checker.check_model(onnx.load('$tmp/$f.onnx'), full_check=True)" \
        2> "$tmp/py_err" || fail "onnx.checker on $f.onnx: $(tail -1 "$tmp/py_err")"
    done
    ;;
  convert_amp)
    # A briefly trained MLP converted for bfloat16 (MXNet's AMP lists): the
    # new symbol casts into the FullyConnected layers, its parameters carry
    # __dtype__, and `weft predict` on it still classifies.
    fm=/usr/share/datasets/fashion-mnist
    [[ -f $fm/t10k-labels-idx1-ubyte.gz ]] || { echo "SKIP: Fashion-MNIST not installed at $fm"; exit 77; }
    run train --symbol ../../../examples/models/mlp-symbol.json --limit 1000 --epochs 1 --batch-size 50 \
      --progress none --save "$tmp/mlp"
    expect_rc 0
    run convert --checkpoint "$tmp/mlp" --epoch 1 --amp bfloat16 --output "$tmp/mlp_bf16"
    expect_rc 0
    expect_empty err
    expect_in out "converted $tmp/mlp-symbol.json for bfloat16" "$tmp/mlp_bf16-0001.params"
    grep -q '"op": "amp_cast"' "$tmp/mlp_bf16-symbol.json" || fail "no amp_cast node in the converted symbol"
    grep -q '"dtype": "bfloat16"' "$tmp/mlp_bf16-symbol.json" || fail "no cast to bfloat16"
    grep -q '"__dtype__": "0"' "$tmp/mlp_bf16-symbol.json" || fail "parameters lack __dtype__"
    run predict --checkpoint "$tmp/mlp_bf16" --epoch 1 --limit 300
    expect_rc 0
    expect_in out "on 300 images ($tmp/mlp_bf16-0001.params)"
    acc=$(sed -n 's/.*accuracy \([0-9.]*\)% .*/\1/p' "$tmp/out")
    awk -v a="${acc:-0}" 'BEGIN { exit !(a >= 50) }' || fail "accuracy '${acc}' below 50% (chance is 10%)"
    run convert --checkpoint "$tmp/mlp" --epoch 1 --amp float32 --output "$tmp/x"
    expect_rc 2
    expect_in err "--amp"
    ;;
  profile_mlp)
    # `weft profile` times the MLP's operators (random weights, zero input):
    # latency line, the per-operator table and a Chrome trace that parses;
    # `--profile` on `run` profiles that command.
    run profile --symbol ../../../examples/models/mlp-symbol.json --init xavier --shape data=8,784 \
      --iters 3 --warmup 1 --threads 1 --output "$tmp/p.json"
    expect_rc 0
    expect_in out "profile: 3 forwards (after 1 warm-up), threads 1" "FullyConnected" "Total Count" \
      "trace written to $tmp/p.json"
    python3 -m json.tool "$tmp/p.json" >/dev/null || fail "the trace is not JSON"
    # fc1 and fc2 carry their relus (_fused_FullyConnected), fc3 runs alone.
    n=$(grep -oE '"name":"(_fused_)?FullyConnected","cat":"operator"' "$tmp/p.json" | wc -l)
    [[ $n -eq 9 ]] || fail "expected 9 dense layer runs (3 layers x 3 forwards), got $n"
    run run --symbol ../../../examples/models/mlp-symbol.json --init xavier --shape data=2,784 \
      --output-dir "$tmp/out_run" --profile "$tmp/r.json"
    expect_rc 0
    expect_in out "softmax_output (2,10) float32" "operator" "trace written to $tmp/r.json"
    python3 -m json.tool "$tmp/r.json" >/dev/null || fail "the run trace is not JSON"
    run profile --symbol ../../../examples/models/mlp-symbol.json --init xavier --shape data=8,784 --iters 0
    expect_rc 2
    expect_in err "--iters"
    ;;
  summary_dot)
    # `weft summary` of LeNet: MXNet's table with the closed-form parameter
    # count (conv1 520 + conv2 25050 + fc1 400500 + fc2 5010); `weft dot`
    # renders through Graphviz when it is installed.
    run summary ../../../examples/models/lenet-symbol.json --shape data=1,1,28,28
    expect_rc 0
    expect_in out "Layer (type)" "conv1(Convolution)" "20x24x24" "Total params: 431080"
    run dot ../../../examples/models/lenet-symbol.json --shape data=1,1,28,28 --memory
    expect_rc 0
    expect_in out 'digraph "plot"' "Convolution" "block 0"
    if command -v dot >/dev/null; then
      run dot ../../../examples/models/lenet-symbol.json --shape data=1,1,28,28 --format svg -o "$tmp/l.svg"
      expect_rc 0
      grep -q "<svg" "$tmp/l.svg" || fail "no SVG written"
    else
      echo "note: Graphviz's dot is not installed; SVG rendering not checked"
    fi
    run dot ../../../examples/models/lenet-symbol.json --format png
    expect_rc 2
    expect_in err "needs -o FILE"
    ;;
  quantize_mlp)
    # A briefly trained MLP quantized to int8 with entropy calibration on 5
    # batches of MNISTIter (MXNet's quantize_model flow): the new symbol holds
    # quantized FullyConnected layers, int8 weights and calibrated ranges, and
    # `weft predict` on it classifies within 2 points of the float32 model.
    fm=/usr/share/datasets/fashion-mnist
    [[ -f $fm/t10k-labels-idx1-ubyte.gz ]] || { echo "SKIP: Fashion-MNIST not installed at $fm"; exit 77; }
    run train --symbol ../../../examples/models/mlp-symbol.json --limit 2000 --epochs 1 --batch-size 50 \
      --progress none --save "$tmp/mlp"
    expect_rc 0
    run predict --checkpoint "$tmp/mlp" --epoch 1 --limit 1000
    expect_rc 0
    fp32=$(sed -n 's/.*accuracy \([0-9.]*\)% .*/\1/p' "$tmp/out")
    run quantize --checkpoint "$tmp/mlp" --epoch 1 --calib-mode entropy --calib-iter MNISTIter \
      --calib-param image=$fm/train-images-idx3-ubyte.gz --calib-param label=$fm/train-labels-idx1-ubyte.gz \
      --calib-param batch_size=100 --num-calib-batches 5 --fuse --output "$tmp/mlp_int8"
    expect_rc 0
    expect_empty err
    expect_in out "quantized $tmp/mlp-symbol.json (calib_mode entropy)" "$tmp/mlp_int8-0001.params"
    grep -q '"op": "_contrib_quantized_fully_connected"' "$tmp/mlp_int8-symbol.json" || fail "no quantized FullyConnected"
    grep -q '"min_calib_range"' "$tmp/mlp_int8-symbol.json" || fail "no calibrated range"
    run predict --checkpoint "$tmp/mlp_int8" --epoch 1 --limit 1000
    expect_rc 0
    int8=$(sed -n 's/.*accuracy \([0-9.]*\)% .*/\1/p' "$tmp/out")
    awk -v a="${int8:-0}" -v b="${fp32:-100}" 'BEGIN { exit !(a >= b - 2) }' || fail "int8 accuracy '${int8}' vs float32 '${fp32}'"
    run quantize --checkpoint "$tmp/mlp" --epoch 1 --calib-mode naive --output "$tmp/x"
    expect_rc 2
    expect_in err "--calib-iter"
    ;;
  quantize_channel_wise)
    # MXNet's quantize_model_mkldnn with quantize_granularity channel-wise:
    # with --fuse each FullyConnected (with its relu) becomes one int8
    # _sg_mkldnn_fully_connected with channel_wise_quantize (float32 weights
    # kept, one scale per output channel), and `weft predict` on it
    # classifies within 2 points of the float32 model. Without calibration
    # the library's refusal comes through; a third granularity is a usage
    # error.
    fm=/usr/share/datasets/fashion-mnist
    [[ -f $fm/t10k-labels-idx1-ubyte.gz ]] || { echo "SKIP: Fashion-MNIST not installed at $fm"; exit 77; }
    run train --symbol ../../../examples/models/mlp-symbol.json --limit 2000 --epochs 1 --batch-size 50 \
      --progress none --save "$tmp/mlp"
    expect_rc 0
    run predict --checkpoint "$tmp/mlp" --epoch 1 --limit 1000
    expect_rc 0
    fp32=$(sed -n 's/.*accuracy \([0-9.]*\)% .*/\1/p' "$tmp/out")
    calib=(--calib-iter MNISTIter --calib-param image=$fm/train-images-idx3-ubyte.gz
      --calib-param label=$fm/train-labels-idx1-ubyte.gz --calib-param batch_size=100 --num-calib-batches 5)
    run quantize --checkpoint "$tmp/mlp" --epoch 1 --calib-mode naive "${calib[@]}" --fuse \
      --quantize-granularity channel-wise --output "$tmp/mlp_cw"
    expect_rc 0
    expect_empty err
    expect_in out "quantized $tmp/mlp-symbol.json (calib_mode naive)" "$tmp/mlp_cw-0001.params"
    n=$(grep -c '"op": "_sg_mkldnn_fully_connected"' "$tmp/mlp_cw-symbol.json")
    [[ $n -ge 3 ]] || fail "$n _sg_mkldnn_fully_connected nodes, expected the MLP's 3"
    grep -q '"channel_wise_quantize": "True"' "$tmp/mlp_cw-symbol.json" || fail "no channel_wise_quantize"
    grep -q '"op": "_contrib_quantized_fully_connected"' "$tmp/mlp_cw-symbol.json" &&
      fail "a tensor-wise quantized FullyConnected is left"
    run predict --checkpoint "$tmp/mlp_cw" --epoch 1 --limit 1000
    expect_rc 0
    int8=$(sed -n 's/.*accuracy \([0-9.]*\)% .*/\1/p' "$tmp/out")
    awk -v a="${int8:-0}" -v b="${fp32:-100}" 'BEGIN { exit !(a >= b - 2) }' || fail "channel-wise int8 accuracy '${int8}' vs float32 '${fp32}'"
    expect_lib_error quantize --checkpoint "$tmp/mlp" --epoch 1 --calib-mode none --fuse \
      --quantize-granularity channel-wise --output "$tmp/x" -- "channel-wise" "calib_mode is none"
    run quantize --checkpoint "$tmp/mlp" --epoch 1 --calib-mode none --quantize-granularity per-channel \
      --output "$tmp/x"
    expect_rc 2
    expect_in err "--quantize-granularity" "per-channel"
    ;;
  predict_not_classifier)
    # A checkpoint whose first output is no (batch, classes) score matrix
    # (here the images themselves, (100,1,28,28)): the error says what
    # predict needs and what the checkpoint gives. The model has no
    # parameters, so its .params file is an empty NDArray list.
    fm=/usr/share/datasets/fashion-mnist
    [[ -f $fm/t10k-images-idx3-ubyte.gz ]] || { echo "SKIP: Fashion-MNIST not installed at $fm"; exit 77; }
    cp not_classifier-symbol.json "$tmp/nc-symbol.json"
    printf '\x12\x01\x00\x00\x00\x00\x00\x00%024d' 0 | tr '0' '\000' >"$tmp/nc-0001.params"
    expect_lib_error predict --checkpoint "$tmp/nc" --epoch 1 --limit 200 -- \
      "not a classifier" "float32 class scores of shape (batch, classes) = (100, C)" \
      "output 'image_output' is float32 (100,1,28,28)"
    ;;
  train_progress)
    # The CLI draws the progress from the module's batch-end callback: a bar
    # that ends its line at the last batch (before the library's epoch
    # summary), lines, the summaries alone, or nothing.
    fm=/usr/share/datasets/fashion-mnist
    [[ -f $fm/train-images-idx3-ubyte.gz ]] || { echo "SKIP: Fashion-MNIST not installed at $fm"; exit 77; }
    args=(train --symbol ../../../examples/models/mlp-symbol.json --limit 200 --epochs 2 --batch-size 20)
    run "${args[@]}" --progress bar
    expect_rc 0
    expect_empty err
    expect_in out $'\rEpoch 1 [==============================] 10/10  ' $'   \nEpoch[1] Train: accuracy=' \
      $'\nEpoch[0] Train: accuracy='
    grep -q "Batch \[" "$tmp/out" && fail "--progress bar printed lines"
    run "${args[@]}" --progress lines
    expect_rc 0
    expect_in out $'\nEpoch[0] Batch [10/10]  ' $'\nEpoch[1] Batch [10/10]  ' "accuracy="
    grep -q $'\r' "$tmp/out" && fail "--progress lines drew a bar"
    run "${args[@]}" --progress epoch
    expect_rc 0
    expect_in out "Epoch[0] Train: accuracy=" "Epoch[1] Train: accuracy=" \
      "Epoch[1] Data wait: " "% of step time ("
    grep -qE $'Batch \\[|\r' "$tmp/out" && fail "--progress epoch printed per-batch progress"
    run "${args[@]}" --progress none
    expect_rc 0
    expect_in out "test accuracy: "
    grep -q "Epoch" "$tmp/out" && fail "--progress none printed progress: $(cat "$tmp/out")"
    # Not a terminal: auto draws lines.
    run "${args[@]}"
    expect_rc 0
    expect_in out "Epoch[1] Batch [10/10]"
    ;;
  predict_errors)
    expect_usage_error "predict: --checkpoint PREFIX is required" predict --epoch 1
    expect_usage_error "predict: --epoch N is required" predict --checkpoint x
    expect_usage_error "--limit expects an integer >= 1, given '0'" predict --checkpoint x --epoch 1 --limit 0
    expect_usage_error "predict: unexpected argument 'extra'" predict --checkpoint x --epoch 1 extra
    # Numeric flags beyond their C type or range are usage errors naming the
    # flag (no silent narrowing: 4294967297 is not epoch 1).
    expect_usage_error "--epoch expects an integer <= 2147483647, given '4294967297'" predict --checkpoint x --epoch 4294967297
    expect_usage_error "--epoch expects a non-negative integer, given '-1'" predict --checkpoint x --epoch -1
    expect_usage_error "--batch-size expects an integer <= 2147483647, given '2147483648'" \
      predict --checkpoint x --epoch 1 --batch-size 2147483648
    expect_usage_error "--limit expects an integer <= 9223372036854775807, given '9223372036854775808'" \
      predict --checkpoint x --epoch 1 --limit 9223372036854775808
    expect_usage_error "--epoch expects a non-negative integer, given '1x'" predict --checkpoint x --epoch 1x
    expect_usage_error "--epoch needs a value" predict --checkpoint x --epoch
    expect_lib_error predict --checkpoint "$tmp/none" --epoch 3 -- "$tmp/none-symbol.json"
    ;;
  train_errors)
    run train --epochs 1
    expect_rc 2; expect_in err "train: --symbol S.json is required"
    run train --symbol abc.json --epochs 0
    expect_rc 2; expect_in err "--epochs expects an integer >= 1, given '0'"
    run train --symbol abc.json --progress fancy
    expect_rc 2; expect_in err "--progress expects auto, bar, lines, epoch or none, given 'fancy'"
    # Out of range for the C type: a usage error naming the flag, not a
    # silent cast (4294967297 epochs used to train one).
    expect_usage_error "--epochs expects an integer <= 2147483647, given '4294967297'" \
      train --symbol abc.json --epochs 4294967297
    expect_usage_error "--batch-size expects an integer <= 2147483647, given '99999999999'" \
      train --symbol abc.json --batch-size 99999999999
    expect_usage_error "--limit expects an integer >= 1, given '-5'" train --symbol abc.json --limit -5
    expect_usage_error "--seed expects a non-negative integer, given '-1'" train --symbol abc.json --seed -1
    expect_usage_error "--seed expects an integer <= 18446744073709551615, given '18446744073709551616'" \
      train --symbol abc.json --seed 18446744073709551616
    expect_lib_error train --symbol abc.json --data-dir "$tmp/none" -- "$tmp/none/train-images-idx3-ubyte.gz"
    expect_lib_error train --symbol malformed.json -- "malformed.json"
    ;;
  plan_text)
    run plan abc.json --shape a=2,3
    expect_rc 0
    expect_empty err
    expect_in out "graph: inference" "memory: planned" "naive" "in place" "sum"
    run plan abc.json --shape a=2,3 --train
    expect_rc 0
    expect_in out "graph: training" "memory: planned"
    run plan abc.json
    expect_rc 2; expect_in err "plan: --shape NAME=D1,D2,... is required"
    run plan abc.json --shape a=2,?
    expect_rc 2; expect_in err "plan needs every extent known"
    run plan
    expect_rc 2; expect_in err "plan: no symbol file given"
    expect_lib_error plan abc.json --shape a=2,3 --shape b=4,3 -- "weft plan: error:"
    ;;
  place_text)
    # The seed's example: a*b in group dev1, +c in group dev2, the arguments
    # bound on cpu(0) as simple_bind would: c and a*b are copied to cpu(1).
    run place ctx_group.json --group2ctx dev1='cpu(0)' --group2ctx dev2='cpu(1)' \
      --bind a='cpu(0)' --bind b='cpu(0)' --bind c='cpu(0)'
    expect_rc 0
    expect_empty err
    expect_golden place_seed.txt
    # Training: the head gradient (on add's device) is copied back once for
    # both gradient nodes of mul.
    run place ctx_group.json --group2ctx dev1=cpu --group2ctx=dev2='cpu(1)' \
      --bind a='cpu(0)' --bind b='cpu(0)' --bind c='cpu(0)' --train
    expect_rc 0
    expect_golden place_seed_train.txt
    # One device: nothing inserted.
    run place ctx_group.json --group2ctx dev1='cpu(2)' --group2ctx dev2='cpu(2)' --default 'cpu(2)'
    expect_rc 0
    expect_in out "5 nodes on 1 device(s), 0 cross-device copies inserted" "cpu(2): 5 nodes"
    ;;
  place_dot)
    # The seed's example as Graphviz: a fill colour per device, the two
    # copies as ellipses, edges through them.
    run place ctx_group.json --group2ctx dev1='cpu(0)' --group2ctx dev2='cpu(1)' \
      --bind a='cpu(0)' --bind b='cpu(0)' --bind c='cpu(0)' --dot
    expect_rc 0
    expect_empty err
    expect_golden place_seed.dot
    if command -v dot >/dev/null 2>&1; then
      dot -Tsvg "$tmp/out" >/dev/null 2>"$tmp/doterr" || fail "dot rejects the output: $(cat "$tmp/doterr")"
    fi
    run place ctx_group.json --group2ctx dev1='cpu(0)' --group2ctx dev2='cpu(1)' --train --dot
    expect_rc 0
    expect_in out "_head_grad_0" "mul_lhs_grad" "shape=ellipse"
    expect_lib_error place ctx_group.json --group2ctx dev1='cpu(0)' --dot -- "node 'add'" "group 'dev2'"
    ;;
  place_errors)
    expect_lib_error place ctx_group.json --group2ctx dev1='cpu(0)' -- \
      "weft place: error:" "node 'add'" "group 'dev2'"
    expect_lib_error place ctx_group.json --group2ctx dev1=cpu --group2ctx dev2=cpu --bind z=cpu -- \
      "'z'" "no variable"
    expect_lib_error place missing.json -- "missing.json"
    run place
    expect_rc 2; expect_in err "place: no symbol file given"
    run place ctx_group.json --group2ctx dev1=tpu
    expect_rc 2; expect_in err "--group2ctx dev1: device 'tpu' is not cpu(N) or gpu(N)"
    run place ctx_group.json --group2ctx 'dev1=cpu(-1)'
    expect_rc 2; expect_in err "device 'cpu(-1)'"
    run place ctx_group.json --group2ctx dev1=cpu --group2ctx dev1=gpu
    expect_rc 2; expect_in err "--group2ctx dev1 given twice"
    run place ctx_group.json --bind a
    expect_rc 2; expect_in err "expects NAME=VALUE"
    run place ctx_group.json --frob
    expect_rc 2; expect_in err "place: unknown option '--frob'"
    ;;
  *)
    echo "unknown case '$case_name'" >&2
    exit 1
    ;;
esac

if [[ $failures -gt 0 ]]; then
  echo "$case_name: $failures failure(s)" >&2
  exit 1
fi
echo "$case_name: ok"
