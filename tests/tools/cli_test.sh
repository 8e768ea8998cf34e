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
# expect_in out|err STRING...: each fixed string occurs in stdout/stderr.
expect_in() {
  local stream="$1"
  shift
  for s in "$@"; do
    grep -qF -- "$s" "$tmp/$stream" || fail "'$last_cmd': $stream lacks '$s': $(head -c 600 "$tmp/$stream")"
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
    expect_in out "usage: weft inspect FILE.json" "weft ops [--json]"
    expect_empty err
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
    expect_in out '"shapes_complete": false' '{"name": "data", "shape": null' '"unknown_shapes": ["data"'
    # A partly known input: unknown extents print as ? (0 in JSON).
    run inspect mlp.json --shape data=0,5
    expect_rc 0
    expect_in out "data  (?,5)" "shapes: partial"
    run inspect mlp.json --shape 'data=?,5' --json
    expect_rc 0
    expect_in out '{"name": "data", "shape": [0, 5], "dtype": "float32"}'
    ;;
  inspect_dtype)
    run inspect abc.json --dtype b=float64 --shape=b=7
    expect_rc 0
    expect_in out "dtypes: complete" "shapes: complete" "a     (7,)   float64" "sum_output  (7,)   float64"
    run inspect abc.json --dtype b=int32 --json
    expect_rc 0
    expect_json
    expect_in out '"dtypes_complete": true' '{"name": "c", "shape": null, "dtype": "int32"}'
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
    expect_in out '"format": "0.9"' '"mxnet_version": 903' '{"name": "s_output", "shape": [1, 4], "dtype": null}'
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
      expect_in out '"auxiliary_states": [' '{"name": "bn0_moving_mean", "shape": [3]'
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
    expect_lib_error inspect does-not-exist.json -- "cannot open symbol file 'does-not-exist.json'"
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
      $'\nElementWiseSum\n' "  num_args : int, required" $'\nelemwise_add\n'
    ;;
  ops_json)
    run ops --json
    expect_rc 0
    expect_empty err
    expect_json
    expect_in out '{"name": "quadratic", "doc": "Elementwise quadratic' \
      '{"name": "a", "type": "float", "required": false, "default": "0", "doc": ' \
      '{"name": "num_args", "type": "int", "required": true, "default": null'
    if command -v jq >/dev/null 2>&1; then
      n_text=$("$weft" ops | head -1 | cut -d' ' -f1)
      n_json=$(jq length "$tmp/out")
      [[ "$n_text" == "$n_json" ]] || fail "ops: text lists $n_text operators, JSON $n_json"
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
