# npugen's CMake package (docs/embedding.md), installed by `make install`:
#   find_package(npugen CONFIG REQUIRED)
# gives the imported targets npugen::npugen (libnpugen: the C API, npugen.h),
# npugen::npusim (libnpusim, with npu_intrinsics.h and npusim.h on its include
# path) and npugen::cli (the npugen command), and the functions
# npugen_add_kernels and npugen_add_check below.
cmake_minimum_required(VERSION 3.16)
get_filename_component(_npugen_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET npugen::npusim)
  add_library(npugen::npusim STATIC IMPORTED)
  set_target_properties(npugen::npusim PROPERTIES
    IMPORTED_LOCATION "${_npugen_prefix}/lib/libnpusim.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_npugen_prefix}/include/npugen"
    INTERFACE_LINK_LIBRARIES "inih;m")
  add_library(npugen::npugen STATIC IMPORTED)
  set_target_properties(npugen::npugen PROPERTIES
    IMPORTED_LOCATION "${_npugen_prefix}/lib/libnpugen.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_npugen_prefix}/include/npugen"
    INTERFACE_LINK_LIBRARIES "npugen::npusim;tree-sitter;tcc;dl;isl;gmp;inih;m")
  add_executable(npugen::cli IMPORTED)
  set_target_properties(npugen::cli PROPERTIES IMPORTED_LOCATION "${_npugen_prefix}/bin/npugen")
endif()
set(NPUGEN_EXECUTABLE "${_npugen_prefix}/bin/npugen")

# npugen_add_kernels(<target> SOURCES <kernel files>
#                    [SCHEDULES <schedule files>] [TARGET_INI <file>])
# Emits every variant of each kernel file into the build tree
# (${CMAKE_CURRENT_BINARY_DIR}/npugen_<target>) when the target is built,
# adds the .c files to <target>, puts the headers on its include path and
# links npugen::npusim (NPU variants call its intrinsics). The i-th schedule
# file is the i-th kernel file's (NONE for one without). It emits again when
# a kernel file, a schedule file, the target file or npugen changes; the
# files' names come from the pragmas, so npugen lists them at configure time
# (emit --list-outputs) and CMake configures again when those inputs change.
function(npugen_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "TARGET_INI" "SOURCES;SCHEDULES")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_SOURCES)
    message(FATAL_ERROR "npugen_add_kernels(${target} SOURCES <kernel files> [SCHEDULES <files>] [TARGET_INI <file>])")
  endif()
  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/npugen_${target}")
  set(common)
  set(inputs "${NPUGEN_EXECUTABLE}")
  if(ARG_TARGET_INI)
    get_filename_component(ini "${ARG_TARGET_INI}" ABSOLUTE)
    list(APPEND common --target "${ini}")
    list(APPEND inputs "${ini}")
  endif()
  list(LENGTH ARG_SCHEDULES nsched)
  set(i 0)
  set(sources)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE)
    # npugen runs in the source directory and is given the kernel file's
    # path from there: the emitted comments say "from mm.c", not a path
    # of this machine
    file(RELATIVE_PATH shown "${CMAKE_CURRENT_SOURCE_DIR}" "${src}")
    set(args "${shown}" ${common})
    set(deps "${src}" ${inputs})
    if(i LESS nsched)
      list(GET ARG_SCHEDULES ${i} sched)
      if(NOT sched STREQUAL "NONE")
        get_filename_component(sched "${sched}" ABSOLUTE)
        list(APPEND args --schedule "${sched}")
        list(APPEND deps "${sched}")
      endif()
    endif()
    math(EXPR i "${i} + 1")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${deps})
    execute_process(COMMAND "${NPUGEN_EXECUTABLE}" emit ${args} --list-outputs
                    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
                    OUTPUT_VARIABLE names ERROR_VARIABLE errors RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "npugen emit ${src} --list-outputs failed:\n${errors}")
    endif()
    string(REGEX REPLACE "\n$" "" names "${names}")
    string(REPLACE "\n" ";" names "${names}")
    # all kernel files of a target emit into one directory: a name two of
    # them emit would leave one file's code out (its rule never runs), so
    # refuse it (a global property per output: also across two calls)
    set(outputs)
    set(clashes)
    set(owner)
    foreach(name IN LISTS names)
      get_property(earlier GLOBAL PROPERTY "_npugen_emits:${outdir}/${name}")
      if(earlier)
        list(APPEND clashes "${name}")
        set(owner "${earlier}")
      endif()
      set_property(GLOBAL PROPERTY "_npugen_emits:${outdir}/${name}" "${shown}")
      list(APPEND outputs "${outdir}/${name}")
    endforeach()
    if(clashes)
      list(JOIN clashes ", " clashes)
      message(FATAL_ERROR "npugen_add_kernels(${target}): ${owner} and ${shown} both emit "
        "${clashes} into ${outdir}; rename the variants (schedule(kernel, name)) "
        "or give the files to two targets")
    endif()
    # the stamp is the kernel file's own: two files of one base name in two
    # directories (a/k.c, b/k.c) get two, named by a hash of the full path
    get_filename_component(base "${src}" NAME)
    string(MAKE_C_IDENTIFIER "${base}" stamp)
    string(SHA1 path_hash "${src}")
    string(SUBSTRING "${path_hash}" 0 12 path_hash)
    set(stamp "${outdir}/.${stamp}_${path_hash}.stamp")
    # the emitted files are byproducts, not outputs: npugen leaves a file
    # whose text is unchanged alone (its time too), and CMake's Makefile
    # generator touches every OUTPUT after the rule runs, which would
    # rebuild all of them on every emit
    add_custom_command(
      OUTPUT "${stamp}"
      BYPRODUCTS ${outputs}
      COMMAND "${NPUGEN_EXECUTABLE}" emit ${args} -o "${outdir}"
      COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
      DEPENDS ${deps}
      WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
      COMMENT "npugen emit ${shown}"
      VERBATIM)
    # the stamp too: the target needs every kernel file's rule to run
    list(APPEND sources "${stamp}" ${outputs})
  endforeach()
  target_sources(${target} PRIVATE ${sources})
  target_include_directories(${target} PUBLIC "${outdir}")
  target_link_libraries(${target} PUBLIC npugen::npusim)
endfunction()

# npugen_add_check(<name> <kernel file> [SCHEDULE <file>] [TARGET_INI <file>])
# A CTest test that runs `npugen check` on the kernel file: every variant
# against the kernel as written.
function(npugen_add_check name kernel)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "SCHEDULE;TARGET_INI" "")
  get_filename_component(kernel "${kernel}" ABSOLUTE)
  set(args check "${kernel}")
  if(ARG_SCHEDULE)
    get_filename_component(s "${ARG_SCHEDULE}" ABSOLUTE)
    list(APPEND args --schedule "${s}")
  endif()
  if(ARG_TARGET_INI)
    get_filename_component(t "${ARG_TARGET_INI}" ABSOLUTE)
    list(APPEND args --target "${t}")
  endif()
  add_test(NAME ${name} COMMAND "${NPUGEN_EXECUTABLE}" ${args})
endfunction()
