// The Go example's module. The replace path assumes the build directory
// build/ (CMake builds the example from a copy whose replace points at the
// build tree's ai.weft/weft; after `cmake --install`, point it at
// <prefix>/share/weft/go/weft).
module ai.weft/examples

go 1.19

require ai.weft/weft v0.0.0

replace ai.weft/weft => ../../build/bindings/go/weft
