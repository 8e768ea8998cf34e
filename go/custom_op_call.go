package weft

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/weft-ai/weft/go/internal/capi"
)

// customOpCall is one dispatch from the library: its flat inputs
// (weft_custom_op_call_*, layouts in c_api_custom_op.h) decoded for the Go
// callbacks, and their results encoded back.
type customOpCall struct {
	call uintptr
	v    []int64
}

func (c *customOpCall) ints() ([]int64, error) {
	if c.v != nil {
		return c.v, nil
	}
	buf := make([]int64, 64)
	n, err := out1(func(out []uint64) error {
		return capi.Weft_custom_op_call_ints(c.call, buf, uint64(len(buf)), out)
	})
	if err == nil && n > uint64(len(buf)) {
		buf = make([]int64, n)
		_, err = out1(func(out []uint64) error {
			return capi.Weft_custom_op_call_ints(c.call, buf, uint64(len(buf)), out)
		})
	}
	if err != nil {
		return nil, err
	}
	c.v = buf[:n]
	return c.v, nil
}

func (c *customOpCall) strings() ([]string, error) {
	n, err := out1(func(out []uint64) error { return capi.Weft_custom_op_call_num_strings(c.call, out) })
	if err != nil {
		return nil, err
	}
	s := make([]string, n)
	for i := range s {
		if s[i], err = out1(func(out []string) error {
			return capi.Weft_custom_op_call_string(c.call, uint64(i), out)
		}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (c *customOpCall) setInts(v ...int64) error {
	return wrap(capi.Weft_custom_op_call_set_ints(c.call, v, uint64(len(v))))
}

func (c *customOpCall) addStrings(names []string) error {
	for _, s := range names {
		if err := wrap(capi.Weft_custom_op_call_add_string(c.call, s)); err != nil {
			return err
		}
	}
	return nil
}

// shapes reads n entries of rank and extents from v[*at:].
func shapes(v []int64, at *int, n int) [][]int64 {
	r := make([][]int64, n)
	for i := range r {
		nd := int(v[*at])
		*at++
		if nd >= 0 {
			r[i] = append([]int64{}, v[*at:*at+nd]...)
			*at += nd
		}
	}
	return r
}

func (c *customOpCall) inferShape(p CustomOpProp) error {
	v, err := c.ints()
	if err != nil {
		return err
	}
	args, outs, aux, at := int(v[0]), int(v[1]), int(v[2]), 3
	in := shapes(v, &at, args)
	rest, err := p.InferShape(in)
	if err != nil {
		return err
	}
	if len(rest) != outs+aux {
		return fmt.Errorf("InferShape gave %d shapes, expected %d outputs + %d auxiliary states", len(rest), outs, aux)
	}
	var r []int64
	for _, s := range append(in, rest...) {
		if s == nil {
			r = append(r, -1)
			continue
		}
		r = append(append(r, int64(len(s))), s...)
	}
	return c.setInts(r...)
}

func (c *customOpCall) inferType(p CustomOpProp) error {
	v, err := c.ints()
	if err != nil {
		return err
	}
	args, outs, aux := int(v[0]), int(v[1]), int(v[2])
	in := make([]DType, args)
	for i := range in {
		in[i] = DType(v[3+i])
	}
	rest, err := p.InferType(in, outs, aux)
	if err != nil {
		return err
	}
	if len(rest) != outs+aux {
		return fmt.Errorf("InferType gave %d types, expected %d", len(rest), outs+aux)
	}
	r := append([]int64{}, v[3:3+args]...)
	for _, t := range rest {
		r = append(r, int64(t))
	}
	return c.setInts(r...)
}

func ids(v []int64) []int {
	r := make([]int, len(v))
	for i, x := range v {
		r[i] = int(x)
	}
	return r
}

func (c *customOpCall) backwardDependency(p CustomOpProp) error {
	v, err := c.ints()
	if err != nil {
		return err
	}
	outs, args := int(v[0]), int(v[1])
	deps := p.DeclareBackwardDependency(ids(v[2:2+outs]), ids(v[2+outs:2+outs+args]),
		ids(v[2+outs+args:2+2*outs+args]))
	r := make([]int64, len(deps))
	for i, d := range deps {
		r[i] = int64(d)
	}
	return c.setInts(r...)
}

func (c *customOpCall) createOperator(p CustomOpProp) (CustomOp, error) {
	v, err := c.ints()
	if err != nil {
		return nil, err
	}
	s, err := c.strings()
	if err != nil {
		return nil, err
	}
	n, at := int(v[0]), 1
	sh := shapes(v, &at, n)
	types := make([]DType, n)
	for i := range types {
		types[i] = DType(v[at+i])
	}
	ctx, err := parseContext(s[0])
	if err != nil {
		return nil, err
	}
	return p.CreateOperator(ctx, sh, types)
}

// parseContext reads "cpu(0)" / "gpu(1)".
func parseContext(s string) (Context, error) {
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return Context{}, fmt.Errorf("bad context %q", s)
	}
	id, err := strconv.Atoi(s[open+1 : len(s)-1])
	if err != nil {
		return Context{}, err
	}
	if s[:open] == "gpu" {
		return GPU(id), nil
	}
	return CPU(id), nil
}

func reqs(v []int64) []GradReq {
	r := make([]GradReq, len(v))
	for i, x := range v {
		r[i] = GradReq(x)
	}
	return r
}

// views wraps the call's arrays as borrowed NDArrays (no finalizer); release
// forgets them when the callback returns, so a kept view reports closed.
func (c *customOpCall) views() ([]*NDArray, func(), error) {
	h := make([]uintptr, 16)
	n, err := out1(func(out []uint64) error { return capi.Weft_custom_op_call_arrays(c.call, h, uint64(len(h)), out) })
	if err == nil && n > uint64(len(h)) {
		h = make([]uintptr, n)
		_, err = out1(func(out []uint64) error { return capi.Weft_custom_op_call_arrays(c.call, h, uint64(len(h)), out) })
	}
	if err != nil {
		return nil, nil, err
	}
	a := make([]*NDArray, n)
	for i := range a {
		if h[i] != 0 {
			a[i] = &NDArray{handle{h: h[i], kind: "custom operator view"}}
		}
	}
	release := func() {
		for _, x := range a {
			if x != nil {
				x.take()
			}
		}
	}
	return a, release, nil
}

func (c *customOpCall) forward(op CustomOp) error {
	v, err := c.ints()
	if err != nil {
		return err
	}
	in, out, aux := int(v[1]), int(v[2]), int(v[3])
	a, release, err := c.views()
	if err != nil {
		return err
	}
	defer release()
	return op.Forward(v[0] != 0, reqs(v[4:4+out]), a[:in], a[in:in+out], a[in+out:in+out+aux])
}

func (c *customOpCall) backward(op CustomOp) error {
	v, err := c.ints()
	if err != nil {
		return err
	}
	in, out, aux := int(v[0]), int(v[1]), int(v[2])
	a, release, err := c.views()
	if err != nil {
		return err
	}
	defer release()
	return op.Backward(reqs(v[3:3+in]), a[:out], a[out:out+in], a[out+in:2*out+in],
		a[2*out+in:2*out+2*in], a[2*out+2*in:2*out+2*in+aux])
}
