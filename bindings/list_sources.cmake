# Writes the .java files SWIG generated in DIR into the javac @argfile OUT.
file(GLOB srcs ${DIR}/*.java)
list(SORT srcs)
string(REPLACE ";" "\n" text "${srcs}")
file(WRITE ${OUT} "${text}\n")
