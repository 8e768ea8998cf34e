package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Symbol is a symbolic graph (MXNet semantics): a list of output entries.
// Close it when done; symbols made from it share nodes and stay valid.
type Symbol struct {
	handle
}

func newSymbol(h uintptr) *Symbol {
	s := &Symbol{handle{h: h, kind: "Symbol"}}
	setFinalizer(s)
	return s
}

// Close releases the symbol; further calls return nil.
func (s *Symbol) Close() error { return s.release(s, capi.Weft_symbol_free) }

// symbolOut runs f with a one-slot out array and wraps the new handle.
func symbolOut(f func(out []uintptr) error) (*Symbol, error) { return owned(newSymbol)(out1(f)) }

// Variable creates a variable named name.
func Variable(name string) (*Symbol, error) {
	return symbolOut(func(out []uintptr) error { return capi.Weft_symbol_create_variable(name, out) })
}

// Atomic creates an uncomposed application of op; Compose it next.
func Atomic(op string, params Params) (*Symbol, error) {
	keys, vals := params.split()
	return symbolOut(func(out []uintptr) error {
		return capi.Weft_symbol_create_atomic(op, keys, vals, uint64(len(keys)), out)
	})
}

// Apply creates op(params)(inputs...) named name ("" = automatic).
func Apply(op, name string, params Params, inputs ...*Symbol) (*Symbol, error) {
	s, err := Atomic(op, params)
	if err != nil {
		return nil, err
	}
	if err := s.Compose(name, inputs...); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// ApplyNamed creates op(params)(key=input...) with inputs by name.
func ApplyNamed(op, name string, params Params, inputs map[string]*Symbol) (*Symbol, error) {
	s, err := Atomic(op, params)
	if err != nil {
		return nil, err
	}
	if err := s.ComposeNamed(name, inputs); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Symbol) compose(name string, keys []string, args []*Symbol) error {
	hs, err := handlesOf(args)
	if err != nil {
		return err
	}
	err = s.call(func(h uintptr) error { return capi.Weft_symbol_compose(h, name, uint64(len(hs)), keys, hs) })
	runtime.KeepAlive(args)
	return err
}

// Compose composes s in place with positional arguments.
func (s *Symbol) Compose(name string, args ...*Symbol) error { return s.compose(name, nil, args) }

// ComposeNamed composes s in place with arguments by input/variable name.
func (s *Symbol) ComposeNamed(name string, args map[string]*Symbol) error {
	keys := make([]string, 0, len(args))
	syms := make([]*Symbol, 0, len(args))
	for k, v := range args {
		keys = append(keys, k)
		syms = append(syms, v)
	}
	return s.compose(name, keys, syms)
}

// Group returns the outputs of symbols, in order.
func Group(symbols ...*Symbol) (*Symbol, error) {
	hs, err := handlesOf(symbols)
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(symbols)
	return symbolOut(func(out []uintptr) error { return capi.Weft_symbol_group(hs, uint64(len(hs)), out) })
}

// derive runs f on s's handle producing a new symbol.
func (s *Symbol) derive(f func(h uintptr, out []uintptr) error) (*Symbol, error) {
	return owned(newSymbol)(result(&s.handle, f))
}

// Copy is a deep copy.
func (s *Symbol) Copy() (*Symbol, error) { return s.derive(capi.Weft_symbol_copy) }

// Internals lists every output of every node.
func (s *Symbol) Internals() (*Symbol, error) { return s.derive(capi.Weft_symbol_get_internals) }

// Children are the inputs of the output nodes.
func (s *Symbol) Children() (*Symbol, error) { return s.derive(capi.Weft_symbol_get_children) }

// Output returns output index alone.
func (s *Symbol) Output(index int) (*Symbol, error) {
	return s.derive(func(h uintptr, out []uintptr) error {
		return capi.Weft_symbol_get_output(h, uint64(index), out)
	})
}

// NumOutputs is the number of outputs.
func (s *Symbol) NumOutputs() (int, error) {
	n, err := result(&s.handle, capi.Weft_symbol_num_outputs)
	return int(n), err
}

func (s *Symbol) strings(f func(h uintptr, out []uintptr) error) ([]string, error) {
	return newStrings(result(&s.handle, f))
}

// ListArguments lists the read-only inputs in topological order.
func (s *Symbol) ListArguments() ([]string, error) { return s.strings(capi.Weft_symbol_list_arguments) }

// ListOutputs lists the output names.
func (s *Symbol) ListOutputs() ([]string, error) { return s.strings(capi.Weft_symbol_list_outputs) }

// ListAuxiliaryStates lists the mutated inputs.
func (s *Symbol) ListAuxiliaryStates() ([]string, error) {
	return s.strings(capi.Weft_symbol_list_auxiliary_states)
}

// ListInputs lists every variable.
func (s *Symbol) ListInputs() ([]string, error) { return s.strings(capi.Weft_symbol_list_inputs) }

func optional(ss []string, err error) (string, bool, error) {
	if err != nil || len(ss) == 0 {
		return "", false, err
	}
	return ss[0], true, nil
}

// Name is the node name (ok false for a grouped symbol).
func (s *Symbol) Name() (name string, ok bool, err error) {
	return optional(s.strings(capi.Weft_symbol_get_name))
}

// Attr is attribute key (ok false when absent).
func (s *Symbol) Attr(key string) (value string, ok bool, err error) {
	return optional(s.strings(func(h uintptr, out []uintptr) error {
		return capi.Weft_symbol_get_attr(h, key, out)
	}))
}

// SetAttr sets attribute key of the single output node.
func (s *Symbol) SetAttr(key, value string) error {
	return s.call(func(h uintptr) error { return capi.Weft_symbol_set_attr(h, key, value) })
}

// ListAttr returns attributes (recursive: every node's, keyed "node$key").
func (s *Symbol) ListAttr(recursive bool) (map[string]string, error) {
	k, v := make([]uintptr, 1), make([]uintptr, 1)
	if err := s.call(func(h uintptr) error { return capi.Weft_symbol_list_attr(h, boolInt(recursive), k, v) }); err != nil {
		return nil, err
	}
	keys, err1 := takeStrings(k[0])
	vals, err2 := takeStrings(v[0])
	if err1 != nil {
		return nil, err1
	}
	if err2 != nil {
		return nil, err2
	}
	m := make(map[string]string, len(keys))
	for i := range keys {
		m[keys[i]] = vals[i]
	}
	return m, nil
}

// JSON is the MXNet 1.x JSON of s.
func (s *Symbol) JSON() (string, error) {
	ss, err := s.strings(capi.Weft_symbol_to_json)
	if err != nil {
		return "", err
	}
	return ss[0], nil
}

// Save writes the JSON of s to path.
func (s *Symbol) Save(path string) error {
	return s.call(func(h uintptr) error { return capi.Weft_symbol_save_file(h, path) })
}

// SymbolFromJSON loads a symbol from MXNet JSON.
func SymbolFromJSON(json string) (*Symbol, error) {
	return symbolOut(func(out []uintptr) error { return capi.Weft_symbol_from_json(json, out) })
}

// LoadSymbol loads a symbol from a JSON file.
func LoadSymbol(path string) (*Symbol, error) {
	return symbolOut(func(out []uintptr) error { return capi.Weft_symbol_from_json_file(path, out) })
}
