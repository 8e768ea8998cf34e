#!/usr/bin/env bash
# End-to-end sequence models through `weft run`: one named case per
# invocation (one CTest test each).
#
#   e2e_seq_test.sh WEFT_BINARY E2E_DATA_DIR CASE
#
# E2E_DATA_DIR is tests/data/e2e, written by scripts/gen_e2e_refs_seq.py:
# MXNet-style symbol JSON, .params, inputs and the outputs of an independent
# PyTorch model. Every output weft writes must have the reference's shape and
# values within 1e-5 (relative to max(1, |reference|)). Exit 0 pass, 1 fail.
set -u
weft="$1"
data="$2"
case_name="$3"
cd "$data" || exit 1
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL [$case_name]: $*" >&2
  failures=$((failures + 1))
}

# run_model ARGS...: `weft run ARGS... --output-dir $tmp`; must exit 0.
run_model() {
  "$weft" run "$@" --output-dir "$tmp" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    fail "'weft run $*' exited $rc: $(head -c 600 "$tmp/err")"
  fi
}

# npy_shape FILE / npy_values FILE: the shape in a float32 .npy's header and
# its values after the header (as tests/tools/cli_test.sh reads them).
npy_hlen() { od -An -tu2 -j8 -N2 "$1" | tr -d ' '; }
npy_shape() { head -c $((10 + $(npy_hlen "$1"))) "$1" | grep -ao "'shape': ([0-9, ]*)"; }
npy_values() { od -An -tf4 -v -j$((10 + $(npy_hlen "$1"))) "$1" | xargs; }

# expect_close OUTPUT REFERENCE: same header shape, values within 1e-5.
expect_close() {
  local got="$tmp/$1.npy" want="$2"
  [[ -f "$got" ]] || { fail "weft wrote no $1.npy: $(cat "$tmp/out")"; return; }
  grep -aq "'descr': '<f4'" "$got" || fail "$1.npy is not little-endian float32"
  [[ "$(npy_shape "$got")" == "$(npy_shape "$want")" ]] ||
    fail "$1.npy has $(npy_shape "$got"), the reference $want $(npy_shape "$want")"
  awk -v got="$(npy_values "$got")" -v want="$(npy_values "$want")" 'BEGIN {
    n = split(got, g, " "); m = split(want, w, " ")
    if (n != m) { print "holds " n " values, the reference " m; exit 1 }
    worst = 0; at = 0
    for (i = 1; i <= n; i++) { d = g[i] - w[i]; if (d < 0) d = -d; s = w[i] < 0 ? -w[i] : w[i]
      d /= (s > 1 ? s : 1); if (d > worst) { worst = d; at = i } }
    if (worst > 1e-5) { print "differs by " worst " at value " at ": " g[at] " vs " w[at]; exit 1 }
  }' >"$tmp/cmp" || fail "$1.npy vs $want: $(cat "$tmp/cmp")"
}

lm="lstm_lm"
case "$case_name" in
  lstm_lm)
    # PTB bucketing example's model: `_zeros` begin states, SoftmaxOutput
    # over (batch*seq, vocab).
    run_model --symbol $lm/lstm_lm-symbol.json --params $lm/lstm_lm-0000.params \
      --input data=$lm/data.npy --input softmax_label=$lm/softmax_label.npy
    expect_close softmax_output $lm/softmax_output.npy
    ;;
  lstm_lm_states)
    # The same weights with the begin states as inputs and the final states
    # as outputs (state_outputs=True).
    run_model --symbol $lm/lstm_lm-states-symbol.json --params $lm/lstm_lm-0000.params \
      --input data=$lm/data.npy --input softmax_label=$lm/softmax_label.npy \
      --input lstm_begin_state_0=$lm/begin_state_0.npy --input lstm_begin_state_1=$lm/begin_state_1.npy
    expect_close softmax_output $lm/states_softmax_output.npy
    expect_close lstm_rnn_state_output $lm/states_state_output.npy
    expect_close lstm_rnn_statecell_output $lm/states_statecell_output.npy
    ;;
  lstm_lm_gluon)
    # The same weights as example/gluon/word_language_model exports them:
    # time-major, _rnn_param_concat of the flattened Gluon parameters,
    # logits and the final states out.
    run_model --symbol $lm/lstm_lm-gluon-symbol.json --params $lm/lstm_lm-gluon-0000.params \
      --input data0=$lm/data_tn.npy --input data1=$lm/begin_state_0.npy --input data2=$lm/begin_state_1.npy
    expect_close rnnmodel0_dense0_fwd_output $lm/gluon_logits.npy
    expect_close rnnmodel0_lstm0_rnn0_state_output $lm/gluon_state_output.npy
    expect_close rnnmodel0_lstm0_rnn0_statecell_output $lm/gluon_statecell_output.npy
    ;;
  lstm_lm_gluon_init)
    # Without weights: the layer-0 i2h weight's `__shape__` (48, 0) is
    # completed through Reshape and _rnn_param_concat from RNN's parameter
    # size, so --init can fill all 11 parameters.
    run_model --symbol $lm/lstm_lm-gluon-symbol.json --init xavier \
      --input data0=$lm/data_tn.npy --input data1=$lm/begin_state_0.npy --input data2=$lm/begin_state_1.npy
    grep -qF "filled 11 of 14 arguments/auxiliary states" "$tmp/out" || fail "init line: $(cat "$tmp/out")"
    for f in rnnmodel0_dense0_fwd_output:"'shape': (15, 20)" rnnmodel0_lstm0_rnn0_state_output:"'shape': (2, 3, 12)"; do
      [[ -f "$tmp/${f%%:*}.npy" && "$(npy_shape "$tmp/${f%%:*}.npy")" == "${f#*:}" ]] ||
        fail "${f%%:*}.npy missing or not ${f#*:}"
    done
    ;;
  transformer)
    # Two BERT encoder cells (length-masked softmax, where-masked softmax,
    # erf and LeakyReLU GELU, LayerNorm); valid lengths 6 and 4.
    run_model --symbol transformer/transformer-symbol.json --params transformer/transformer-0000.params \
      --input data=transformer/data.npy --input valid_length=transformer/valid_length.npy
    expect_close enc1_ln1_output transformer/output.npy
    ;;
  transformer_interleaved)
    # Layer 0's weights as GluonNLP 0.10's fused attention exports them: one
    # projection to per-head [q, k, v] blocks and the interleaved matmuls.
    run_model --symbol transformer/transformer-interleaved-symbol.json \
      --params transformer/transformer-interleaved-0000.params \
      --input data=transformer/data.npy --input valid_length=transformer/valid_length.npy
    expect_close enc0_ln1_output transformer/interleaved_output.npy
    ;;
  *)
    echo "unknown case '$case_name'" >&2
    exit 1
    ;;
esac
[[ $failures -eq 0 ]] || exit 1
exit 0
