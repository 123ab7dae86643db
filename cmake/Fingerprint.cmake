# Writes OUTPUT (from the sources listed in SOURCES_FILE): a header defining LOOM_COMPILER_FINGERPRINT, a hash of every source that
# decides what the compiler emits, so the on-disk compilation cache never serves an object
# built by another version of the compiler. Run by a custom command that depends on them.
file(READ "${SOURCES_FILE}" SOURCES)
set(combined "")
foreach(source IN LISTS SOURCES)
  file(SHA256 "${source}" digest)
  string(APPEND combined "${source}:${digest};")
endforeach()
string(SHA256 fingerprint "${combined}")
file(WRITE "${OUTPUT}.tmp" "#define LOOM_COMPILER_FINGERPRINT \"${fingerprint}\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
