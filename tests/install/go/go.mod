// A module outside the repository that uses the Weft Go module; run_go.sh
// copies it and points the replace at the repository's go/ directory (what
// `go get github.com/weft-ai/weft/go` fetches).
module example.com/weftconsumer

go 1.19

require github.com/weft-ai/weft/go v0.0.0

replace github.com/weft-ai/weft/go => ../../go
