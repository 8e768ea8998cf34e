// The Go example's module. The replace path assumes the build directory
// build/ (CMake builds the example from a copy whose replace points at the
// build tree's github.com/weft-ai/weft/go; after `cmake --install`, point it at
// <prefix>/share/weft/go/weft).
module ai.weft/examples

go 1.19

require github.com/weft-ai/weft/go v0.0.0

replace github.com/weft-ai/weft/go => ../../build/bindings/go/weft
