package weft

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Params are operator parameters; values are formatted in MXNet syntax
// (slices become "(a,b)", bools "true"/"false", others fmt's %v).
type Params map[string]interface{}

// Format renders one parameter value in MXNet syntax.
func Format(v interface{}) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case DType:
		return [...]string{"float32", "float64", "float16", "uint8", "int32", "int8", "int64"}[x]
	case []int64:
		return tuple(len(x), func(i int) string { return strconv.FormatInt(x[i], 10) })
	case []int:
		return tuple(len(x), func(i int) string { return strconv.Itoa(x[i]) })
	}
	return fmt.Sprint(v)
}

func tuple(n int, at func(int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = at(i)
	}
	if n == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ",") + ")"
}

func (p Params) split() (keys, vals []string) {
	keys = make([]string, 0, len(p))
	vals = make([]string, 0, len(p))
	for k, v := range p {
		keys = append(keys, k)
		vals = append(vals, Format(v))
	}
	return keys, vals
}

// handlesOf returns the raw handles of objs (an error if one is closed).
func handlesOf[T interface{ get() (uintptr, error) }](objs []T) ([]uintptr, error) {
	hs := make([]uintptr, len(objs))
	for i, o := range objs {
		h, err := o.get()
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

// Invoke runs operator op on inputs and returns its new outputs (close them).
func Invoke(op string, params Params, inputs ...*NDArray) ([]*NDArray, error) {
	in, err := handlesOf(inputs)
	if err != nil {
		return nil, err
	}
	keys, vals := params.split()
	outs := make([]uintptr, 16)
	var n [1]uint64
	err = capi.Weft_op_invoke(op, in, uint64(len(in)), keys, vals, uint64(len(keys)), outs,
		uint64(len(outs)), n[:])
	runtime.KeepAlive(inputs)
	if err != nil {
		return nil, wrap(err)
	}
	arrays := make([]*NDArray, n[0])
	for i := range arrays {
		arrays[i] = newNDArray(outs[i])
	}
	return arrays, nil
}

// Call runs a one-output operator.
func Call(op string, params Params, inputs ...*NDArray) (*NDArray, error) {
	outs, err := Invoke(op, params, inputs...)
	if err != nil {
		return nil, err
	}
	for _, o := range outs[1:] {
		o.Close()
	}
	return outs[0], nil
}

// InvokeInto runs op writing into outputs (shapes and dtypes must match).
func InvokeInto(op string, params Params, inputs []*NDArray, outputs ...*NDArray) error {
	in, err := handlesOf(inputs)
	if err != nil {
		return err
	}
	out, err := handlesOf(outputs)
	if err != nil {
		return err
	}
	keys, vals := params.split()
	err = capi.Weft_op_invoke_into(op, in, uint64(len(in)), keys, vals, uint64(len(keys)), out,
		uint64(len(out)), nil)
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(outputs)
	return wrap(err)
}
