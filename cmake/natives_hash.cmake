# cmake -DDIR=<dir> -DVERSION=<v> -DFILES="a;b" -P natives_hash.cmake
# Writes <dir>/natives.sha256: "version <v>" then "<sha256>  <file>" per file.
# The Java loader keys its native cache directory by this file's hash
# (java/src/main/java/ai/weft/Native.java) and writes it last when extracting.
set(text "version ${VERSION}\n")
foreach(f ${FILES})
  file(SHA256 ${DIR}/${f} h)
  string(APPEND text "${h}  ${f}\n")
endforeach()
file(WRITE ${DIR}/natives.sha256 "${text}")
