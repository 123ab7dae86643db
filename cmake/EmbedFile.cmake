# Writes OUTPUT, a C++ file defining SYMBOL, an array of INPUT's bytes (aligned for loaders
# that read it in place, e.g. cuModuleLoadData), and SYMBOLSize. Run at build time:
#   cmake -DINPUT=f -DOUTPUT=f.cpp -DSYMBOL=name -P EmbedFile.cmake
# A source file rather than an assembler .incbin, so that a compiler cache sees the bytes.
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "// Generated at build time from ${name} by cmake/EmbedFile.cmake: do not edit.\n"
  "#include <cstddef>\n"
  "alignas(64) extern const unsigned char ${SYMBOL}[] = {\n${bytes}};\n"
  "extern const size_t ${SYMBOL}Size = sizeof(${SYMBOL});\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
