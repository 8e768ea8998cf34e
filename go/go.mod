module github.com/weft-ai/weft/go

go 1.19
