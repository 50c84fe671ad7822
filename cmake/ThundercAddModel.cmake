# thunderc_add_model(): compile an exported PyTorch program into a bundle as part of a CMake
# build, and define the model's library and runner targets.
#
#   find_package(thunderc REQUIRED)
#   thunderc_add_model(<target> MODEL <model.pt2> [TARGET cpu|cuda] [NAME <name>]
#                      [GOLDEN <dir>] [OPTIONS <thunderc options>...])
#   target_link_libraries(my_service PRIVATE <target>)
#
# <target> is a static library exposing the bundle's header (<name>.h: <name>_load,
# <name>_context_create, <name>_run, ...), and <target>_run the bundle's command-line runner.
# NAME is the C prefix of the generated API (default: <target>, made an identifier); TARGET
# the device (default cpu); GOLDEN a folder of reference inputs/outputs (thunderc --golden) that
# adds the bundle's golden CTest; OPTIONS more thunderc arguments (-O1, --cuda-emulation, ...).
#
# thunderc runs as an ordinary build step: again when the model file or the thunderc executable
# change, or when the arguments change (a re-configure notices), and never on a rebuild
# otherwise. The first configure compiles the model once so that the bundle's own CMake
# project (out/CMakeLists.txt) can be added; its sources are then the build step's outputs. The
# bundle lives in <build dir>/<target>.thunderc/ and its weights.bin is what <target>_run loads
# by default; a service passes the path to <name>_load.
#
# Needs THUNDERC_EXECUTABLE (set by the package's config file) or a thunderc on the PATH.
include_guard(GLOBAL)

function(thunderc_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "MODEL;TARGET;NAME;GOLDEN" "OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "thunderc_add_model(${target}): unknown arguments "
                        "'${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "thunderc_add_model(${target}): MODEL <file.pt2> is required")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}")
    message(FATAL_ERROR "thunderc_add_model(${target}): MODEL '${model}' does not exist")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET cpu)
  endif()
  if(NOT ARG_TARGET MATCHES "^(cpu|cuda)$")
    message(FATAL_ERROR "thunderc_add_model(${target}): TARGET must be cpu or cuda, "
                        "not '${ARG_TARGET}'")
  endif()
  set(name "${ARG_NAME}")
  if(NOT name)
    string(MAKE_C_IDENTIFIER "${target}" name)
  endif()
  if(NOT THUNDERC_EXECUTABLE)
    find_program(THUNDERC_EXECUTABLE thunderc)
    if(NOT THUNDERC_EXECUTABLE)
      message(FATAL_ERROR "thunderc_add_model(${target}): no thunderc executable "
                          "(find_package(thunderc) sets THUNDERC_EXECUTABLE)")
    endif()
  endif()

  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}.thunderc")
  set(command "${THUNDERC_EXECUTABLE}" "${model}" -o "${out}" --name "${name}"
              --target "${ARG_TARGET}" -q)
  if(ARG_GOLDEN)
    get_filename_component(golden "${ARG_GOLDEN}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND command --golden "${golden}")
  endif()
  list(APPEND command ${ARG_OPTIONS})

  # The arguments, recorded: the build step depends on this file, which changes (and so
  # re-runs thunderc) only when the arguments do. Written before the first compile so that
  # the bundle is newer than it.
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${target}.thunderc.args")
  string(REPLACE ";" "\n" recorded "${command}")
  set(previous "")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" previous)
  endif()
  if(NOT previous STREQUAL recorded)
    file(WRITE "${stamp}" "${recorded}")
  endif()
  if(NOT EXISTS "${out}/CMakeLists.txt" OR NOT previous STREQUAL recorded)
    execute_process(COMMAND ${command} RESULT_VARIABLE status ERROR_VARIABLE errors)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "thunderc_add_model(${target}): thunderc failed (exit ${status}):\n"
                          "${errors}")
    endif()
  endif()

  add_custom_command(
    OUTPUT "${out}/${name}.cpp" "${out}/${name}.h" "${out}/weights.bin"
    COMMAND ${command}
    DEPENDS "${model}" "${THUNDERC_EXECUTABLE}" "${stamp}"
    COMMENT "thunderc: compiling ${ARG_MODEL} into ${target}.thunderc/"
    VERBATIM)
  add_custom_target(${target}_thunderc DEPENDS "${out}/${name}.cpp" "${out}/${name}.h"
                                               "${out}/weights.bin")

  add_subdirectory("${out}" "${CMAKE_CURRENT_BINARY_DIR}/${target}.thunderc.build")
  add_dependencies(${name} ${target}_thunderc)
  add_dependencies(${name}_run ${target}_thunderc)
  # The bundle's runtime sources are also rewritten when thunderc runs again: compile them after.
  if(TARGET thunderc_runtime)
    add_dependencies(thunderc_runtime ${target}_thunderc)
  endif()
  if(NOT name STREQUAL target)
    add_library(${target} ALIAS ${name})
    add_executable(${target}_run ALIAS ${name}_run)
  endif()
endfunction()
