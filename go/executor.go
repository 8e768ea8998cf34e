package weft

import (
	"runtime"
	"sort"
	"strconv"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Named is an array with its name (ordered results: outputs, file entries).
type Named struct {
	Name  string
	Array *NDArray
}

// takeList reads and frees a WeftNDArrayList: its arrays in order, named
// ("0", "1", ... for an unnamed list); entries without an array (a null
// gradient) are left out. On error the arrays taken so far are closed.
func takeList(list uintptr) ([]Named, error) {
	defer capi.Weft_ndarray_list_free(list)
	var n [1]uint64
	var named [1]int32
	if err := capi.Weft_ndarray_list_size(list, n[:], named[:]); err != nil {
		return nil, wrap(err)
	}
	out := make([]Named, 0, n[0])
	for i := uint64(0); i < n[0]; i++ {
		key, err := strconv.FormatUint(i, 10), error(nil)
		if named[0] != 0 {
			key, err = out1(func(s []string) error { return capi.Weft_ndarray_list_name(list, i, s) })
		}
		var h uintptr
		if err == nil {
			h, err = out1(func(a []uintptr) error { return capi.Weft_ndarray_list_get(list, i, a) })
		}
		if err != nil {
			CloseNamed(out)
			return nil, err
		}
		if h != 0 {
			out = append(out, Named{key, newNDArray(h)})
		}
	}
	return out, nil
}

// takeMap is takeList as a map.
func takeMap(list uintptr) (map[string]*NDArray, error) { return toMap(takeList(list)) }

// newMap is takeMap for a new list unless the call that made it failed.
func newMap(list uintptr, err error) (map[string]*NDArray, error) {
	if err != nil {
		return nil, err
	}
	return takeMap(list)
}

// CloseNamed closes every array of l.
func CloseNamed(l []Named) {
	for _, e := range l {
		e.Array.Close()
	}
}

// CloseAll closes every array of m (nil entries are skipped).
func CloseAll(m map[string]*NDArray) {
	for _, a := range m {
		if a != nil {
			a.Close()
		}
	}
}

// namedHandles returns m's names (sorted) and handles in that order.
func namedHandles(m map[string]*NDArray) ([]string, []uintptr, error) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	hs := make([]uintptr, len(names))
	for i, k := range names {
		h, err := m[k].get()
		if err != nil {
			return nil, nil, err
		}
		hs[i] = h
	}
	return names, hs, nil
}

// csrShapes packs named shapes CSR-style.
func csrShapes(shapes map[string][]int64) (names []string, indPtr []uint64, dims []int64) {
	for k := range shapes {
		names = append(names, k)
	}
	sort.Strings(names)
	indPtr = make([]uint64, 1, len(names)+1)
	for _, k := range names {
		dims = append(dims, shapes[k]...)
		indPtr = append(indPtr, uint64(len(dims)))
	}
	if dims == nil {
		dims = []int64{}
	}
	return names, indPtr, dims
}

// SaveParams saves named arrays to an MXNet NDArray-list file (".params").
func SaveParams(path string, arrays map[string]*NDArray) error {
	names, hs, err := namedHandles(arrays)
	if err != nil {
		return err
	}
	err = capi.Weft_ndarray_save_file(path, hs, names, uint64(len(hs)))
	runtime.KeepAlive(arrays)
	return wrap(err)
}

// LoadParams loads an NDArray-list file by name (unnamed files: "0", "1", ...).
func LoadParams(path string) (map[string]*NDArray, error) {
	return newMap(out1(func(out []uintptr) error { return capi.Weft_ndarray_load_file(path, out) }))
}

// Executor is a symbol bound to arrays. It shares every array bound to it:
// writes through ArgArrays are seen by the next Forward and Outputs show the
// latest run. Returned arrays are new handles the caller closes. One
// executor must not be used by two goroutines at once; distinct executors
// may run concurrently.
type Executor struct {
	handle
	monitor monitorSlot
}

func newExecutor(h uintptr) *Executor {
	e := &Executor{handle: handle{h: h, kind: "Executor"}}
	setFinalizer(e)
	return e
}

// Close releases the executor; further calls return nil.
func (e *Executor) Close() error {
	err := e.release(e, capi.Weft_executor_free)
	e.monitor.close()
	return err
}

// SetMonitorCallback sets (nil removes) the monitor callback (MXNet's
// set_monitor_callback): while set, Forward and Backward run node by node
// and call fn with each node's output (with monitorAll also its inputs), on
// the calling goroutine; see MonitorFunc.
func (e *Executor) SetMonitorCallback(fn MonitorFunc, monitorAll bool) error {
	return e.monitor.install(&e.handle, fn, monitorAll, capi.Weft_executor_set_monitor_callback)
}

// SimpleBind binds sym on cpu(0) (OnDevice chooses another device),
// allocating (zeroed) every argument, gradient and aux state from the input
// shapes by name. gradReq is "null", "write" or "add" ("" means "write");
// *data/*label arguments get none. WithGradReqs gives requests by name
// instead (gradReq ""); the other executor options (WithMatchRange,
// WithNumGroups, WithBulkMaxNodes, WithOptimizeInference, WithAllowFallback)
// tune the bind.
func SimpleBind(sym *Symbol, shapes map[string][]int64, gradReq string, opts ...BindOption) (*Executor, error) {
	cfg := bindConfigOf(opts)
	devType, devID := cfg.ctx.codes()
	names, indPtr, dims := csrShapes(shapes)
	n := uint64(len(names))
	if cfg.useOptions() {
		if err := cfg.simpleBindGradReqs(sym, gradReq); err != nil {
			return nil, err
		}
		return owned(newExecutor)(result(&sym.handle, func(s uintptr, out []uintptr) error {
			return cfg.withOptions(func(o uintptr) error {
				return capi.Weft_executor_simple_bind_with_options(s, devType, devID, n, names, indPtr, dims, 0, nil,
					nil, o, out)
			})
		}))
	}
	if gradReq == "" {
		gradReq = "write"
	}
	return owned(newExecutor)(result(&sym.handle, func(s uintptr, out []uintptr) error {
		if len(cfg.group2ctx) == 0 {
			return capi.Weft_executor_simple_bind(s, devType, devID, n, names, indPtr, dims, 0, nil, nil, gradReq, out)
		}
		gn, gt, gi := cfg.groups()
		return capi.Weft_executor_simple_bind_group2ctx(s, devType, devID, uint64(len(gn)), gn, gt, gi, n, names,
			indPtr, dims, 0, nil, nil, gradReq, out)
	}))
}

// Bind binds sym to existing arrays (shared) in ListArguments order.
// argGrads may be nil or hold nil where an argument has no gradient;
// gradReqs may be nil (GradWrite where a gradient is given). OnDevice binds
// on another device than cpu(0) (the arrays must live there). The executor
// options of SimpleBind apply too, except WithGradReqs (an InvalidArgument
// error: Bind takes gradReqs).
func Bind(sym *Symbol, args, argGrads []*NDArray, gradReqs []GradReq, aux []*NDArray, opts ...BindOption) (*Executor, error) {
	cfg := bindConfigOf(opts)
	devType, devID := cfg.ctx.codes()
	a, err := handlesOf(args)
	if err != nil {
		return nil, err
	}
	var g []uintptr
	if argGrads != nil {
		if len(argGrads) != len(a) {
			return nil, errorf(InvalidArgument, "Bind: argGrads has %d entries, expected one per argument (%d)", len(argGrads), len(a))
		}
		g = make([]uintptr, len(a))
		for i, x := range argGrads {
			if x != nil {
				if g[i], err = x.get(); err != nil {
					return nil, err
				}
			}
		}
	}
	var r []int32
	if gradReqs != nil {
		if len(gradReqs) != len(a) {
			return nil, errorf(InvalidArgument, "Bind: gradReqs has %d entries, expected one per argument (%d)", len(gradReqs), len(a))
		}
		r = make([]int32, len(a))
		for i, q := range gradReqs {
			r[i] = int32(q)
		}
	}
	x, err := handlesOf(aux)
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive([]interface{}{args, argGrads, aux}) // no finalizer frees a handle in use
	return owned(newExecutor)(result(&sym.handle, func(s uintptr, out []uintptr) error {
		if cfg.useOptions() {
			return cfg.withOptions(func(o uintptr) error {
				return capi.Weft_executor_bind_with_options(s, devType, devID, a, uint64(len(a)), g, r, x,
					uint64(len(x)), o, out)
			})
		}
		if len(cfg.group2ctx) == 0 {
			return capi.Weft_executor_bind(s, devType, devID, a, uint64(len(a)), g, r, x, uint64(len(x)), out)
		}
		gn, gt, gi := cfg.groups()
		return capi.Weft_executor_bind_group2ctx(s, devType, devID, uint64(len(gn)), gn, gt, gi, a,
			uint64(len(a)), g, r, x, uint64(len(x)), out)
	}))
}

// Forward runs the forward graph (isTrain selects training behaviour).
func (e *Executor) Forward(isTrain bool) error {
	return e.call(func(h uintptr) error { return capi.Weft_executor_forward(h, boolInt(isTrain)) })
}

// Backward runs the gradient graph with one head gradient per output, or
// none when every output is a loss.
func (e *Executor) Backward(headGrads ...*NDArray) error {
	hs, err := handlesOf(headGrads)
	if err != nil {
		return err
	}
	err = e.call(func(h uintptr) error { return capi.Weft_executor_backward(h, hs, uint64(len(hs))) })
	runtime.KeepAlive(headGrads)
	return err
}

func (e *Executor) list(f func(uintptr, []uintptr) error) ([]Named, error) {
	list, err := result(&e.handle, f)
	if err != nil {
		return nil, err
	}
	return takeList(list)
}

func toMap(l []Named, err error) (map[string]*NDArray, error) {
	if err != nil {
		return nil, err
	}
	m := make(map[string]*NDArray, len(l))
	for _, x := range l {
		m[x.Name] = x.Array
	}
	return m, nil
}

// Outputs are the outputs in ListOutputs order.
func (e *Executor) Outputs() ([]Named, error) { return e.list(capi.Weft_executor_outputs) }

// ArgArrays are the argument arrays by name.
func (e *Executor) ArgArrays() (map[string]*NDArray, error) {
	return toMap(e.list(capi.Weft_executor_arg_arrays))
}

// GradArrays are the gradients by argument name (arguments without one left out).
func (e *Executor) GradArrays() (map[string]*NDArray, error) {
	return toMap(e.list(capi.Weft_executor_grad_arrays))
}

// AuxArrays are the auxiliary states by name.
func (e *Executor) AuxArrays() (map[string]*NDArray, error) {
	return toMap(e.list(capi.Weft_executor_aux_arrays))
}

// Reshape returns a new executor for new input shapes sharing e's arrays.
func (e *Executor) Reshape(shapes map[string][]int64, partialShaping, allowUpSizing bool) (*Executor, error) {
	names, indPtr, dims := csrShapes(shapes)
	return owned(newExecutor)(result(&e.handle, func(h uintptr, out []uintptr) error {
		return capi.Weft_executor_reshape(h, uint64(len(names)), names, indPtr, dims, boolInt(partialShaping),
			boolInt(allowUpSizing), out)
	}))
}

// DebugString lists the nodes in execution order with their storage.
func (e *Executor) DebugString() (string, error) {
	l, err := newStrings(result(&e.handle, capi.Weft_executor_print))
	if err != nil || len(l) == 0 {
		return "", err
	}
	return l[0], nil
}

// Float32Nodes names the nodes computing in float32 between Casts for want of
// a float16/bfloat16 kernel, in graph order.
func (e *Executor) Float32Nodes() ([]string, error) {
	return newStrings(result(&e.handle, capi.Weft_executor_float32_nodes))
}

// ExecutorMemory is the memory plan's figures.
type ExecutorMemory struct {
	NaiveBytes, PlannedBytes, NumStorage, NumInplace, NumReused uint64
	MatchRange                                                  int
}

// Memory returns the memory plan's figures.
func (e *Executor) Memory() (ExecutorMemory, error) {
	var f [6]uint64
	err := e.call(func(h uintptr) error { return capi.Weft_executor_memory(h, f[:]) })
	return ExecutorMemory{f[0], f[1], f[2], f[3], f[4], int(f[5])}, err
}
