module ai.weft/weft

go 1.19
