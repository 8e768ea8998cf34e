package weft

import (
	"sort"
	"strings"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Executor options: BindOptions of SimpleBind and Bind that set the C ABI's
// WeftExecutorOptions. A call given any of them builds one options handle,
// binds with weft_executor_{simple_bind,bind}_with_options and frees the
// handle before returning; a call given none binds as before. A bad value
// fails the bind with InvalidArgument naming it (checked by the library).

// optionSetting sets one option on a C options handle.
type optionSetting func(h uintptr) error

func withSetting(s optionSetting) BindOption {
	return func(c *bindConfig) { c.settings = append(c.settings, s) }
}

// WithMatchRange sets the memory planner's match range (default 16; 0
// searches for the best; a negative value is an InvalidArgument error).
func WithMatchRange(n int) BindOption {
	return withSetting(func(h uintptr) error { return capi.Weft_executor_options_set_match_range(h, n) })
}

// WithNumGroups sets the colouring groups of the memory plan (default 1; < 1
// is an InvalidArgument error): more groups let independent branches run at
// once but reuse less memory.
func WithNumGroups(n int) BindOption {
	return withSetting(func(h uintptr) error { return capi.Weft_executor_options_set_num_groups(h, n) })
}

// WithBulkMaxNodes pushes runs of at most n consecutive dependent nodes as
// one engine operation; 0 or 1: one per node; negative (the default):
// WEFT_EXEC_BULK_MAX_NODES from the environment, else 64.
func WithBulkMaxNodes(n int) BindOption {
	return withSetting(func(h uintptr) error { return capi.Weft_executor_options_set_bulk_max_nodes(h, n) })
}

// WithOptimizeInference turns the inference passes and constant folding of
// executors without gradients or device groups on (the default) or off.
func WithOptimizeInference(enable bool) BindOption {
	return withSetting(func(h uintptr) error {
		return capi.Weft_executor_options_set_optimize_inference(h, boolInt(enable))
	})
}

// WithAllowFallback turns CPU fallback on (the default: a node whose
// operator has no kernel on the bind device runs on cpu(0) with copies
// around it) or off (such a node fails the bind with NotImplemented naming
// it).
func WithAllowFallback(enable bool) BindOption {
	return withSetting(func(h uintptr) error {
		return capi.Weft_executor_options_set_allow_fallback(h, boolInt(enable))
	})
}

// WithGradReqs gives SimpleBind the gradient request of arguments by name
// (several WithGradReqs merge; a later entry replaces an earlier one).
// Arguments not named get none (GradNull); SimpleBind's gradReq must then be
// "". A name that is not an argument of the symbol fails the bind naming it.
// Bind takes its requests per argument (gradReqs) and fails with
// InvalidArgument when given WithGradReqs.
func WithGradReqs(reqs map[string]GradReq) BindOption {
	return func(c *bindConfig) {
		if c.gradReqs == nil {
			c.gradReqs = make(map[string]GradReq, len(reqs))
		}
		for k, v := range reqs {
			c.gradReqs[k] = v
		}
	}
}

// useOptions reports whether a bind must go through a C options handle.
func (c *bindConfig) useOptions() bool { return len(c.settings) != 0 || c.gradReqs != nil }

// newOptions builds the C options handle of c: its settings in order, then
// its gradient requests and device groups in name order. The caller frees it
// with capi.Weft_executor_options_free.
func (c *bindConfig) newOptions() (uintptr, error) {
	h, err := out1(capi.Weft_executor_options_create)
	if err != nil {
		return 0, err
	}
	if err := c.applyOptions(h); err != nil {
		capi.Weft_executor_options_free(h)
		return 0, err
	}
	return h, nil
}

func (c *bindConfig) applyOptions(h uintptr) error {
	for _, s := range c.settings {
		if err := s(h); err != nil {
			return wrap(err)
		}
	}
	names := make([]string, 0, len(c.gradReqs))
	for k := range c.gradReqs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := capi.Weft_executor_options_set_grad_req(h, k, int(c.gradReqs[k])); err != nil {
			return wrap(err)
		}
	}
	gn, gt, gi := c.groups()
	for i, g := range gn {
		if err := capi.Weft_executor_options_add_group(h, g, int(gt[i]), int(gi[i])); err != nil {
			return wrap(err)
		}
	}
	return nil
}

// simpleBindGradReqs turns SimpleBind's gradReq into per-argument requests
// when the bind goes through an options handle (which takes requests by name
// only): "write" needs none (the default), "null" and "add" name every
// argument of sym except *data/*label ones, as the gradReq of a bind without
// options does.
func (c *bindConfig) simpleBindGradReqs(sym *Symbol, gradReq string) error {
	if len(c.gradReqs) != 0 {
		if gradReq != "" {
			return errorf(InvalidArgument, "SimpleBind: gradReq %q and WithGradReqs both given; pass \"\" with WithGradReqs", gradReq)
		}
		return nil
	}
	var req GradReq
	switch gradReq {
	case "", "write", "inplace":
		return nil
	case "null":
		req = GradNull
	case "add":
		req = GradAdd
	default:
		return errorf(InvalidArgument, "grad_req '%s' is not one of null, write, add, inplace", gradReq)
	}
	args, err := sym.ListArguments()
	if err != nil {
		return err
	}
	reqs := make(map[string]GradReq, len(args))
	for _, a := range args {
		if !strings.HasSuffix(a, "data") && !strings.HasSuffix(a, "label") {
			reqs[a] = req
		}
	}
	c.gradReqs = reqs
	return nil
}

// withOptions runs bind with a fresh C options handle of c and frees it.
func (c *bindConfig) withOptions(bind func(opts uintptr) error) error {
	h, err := c.newOptions()
	if err != nil {
		return err
	}
	err = bind(h)
	capi.Weft_executor_options_free(h)
	return err
}
