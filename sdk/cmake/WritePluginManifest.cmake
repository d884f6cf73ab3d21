# Writes a plugin manifest (run by switchyard_add_plugin after each build).
# Inputs: NAME, ABI_MAJOR, ABI_MINOR, LIBRARY (absolute path), DEVICE_TYPES (comma-separated),
# PIN_SHA256 (ON/OFF), OUTPUT (manifest path). The library is named relative
# to the manifest, so the pair can be moved or installed together.
get_filename_component(library_name ${LIBRARY} NAME)
string(REPLACE "," "\", \"" device_list "${DEVICE_TYPES}")
set(sha_line "")
if(PIN_SHA256)
  file(SHA256 ${LIBRARY} digest)
  set(sha_line ",\n  \"sha256\": \"${digest}\"")
endif()
file(WRITE ${OUTPUT}.tmp "{
  \"format_version\": 1,
  \"name\": \"${NAME}\",
  \"library\": \"${library_name}\",
  \"abi\": {\"major\": ${ABI_MAJOR}, \"minor\": ${ABI_MINOR}},
  \"device_types\": [\"${device_list}\"]${sha_line}
}
")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
