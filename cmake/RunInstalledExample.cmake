# Checks that the INSTALLED vcgmm works for a downstream CMake project:
#   1. `cmake --install` this build into a fresh prefix;
#   2. check the installed package refers to nothing in the source/build tree;
#   3. configure cpp/examples against that prefix only (same generator and
#      compiler), check find_package(vcgmm) found the fresh copy;
#   4. build the example and run it (it exits non-zero on a wrong answer).
# Any failing step fails the test; every step's output is printed.
#
# Run by ctest (see tests/cpp/CMakeLists.txt) as
#   cmake -DVCGMM_BUILD_DIR=... -DVCGMM_SOURCE_DIR=... -DVCGMM_EXAMPLE_SOURCE_DIR=...
#         -DVCGMM_INSTALL_PREFIX=... -DVCGMM_EXAMPLE_BINARY_DIR=...
#         -DVCGMM_GENERATOR=... [-DVCGMM_GENERATOR_PLATFORM=...]
#         [-DVCGMM_GENERATOR_TOOLSET=...] [-DVCGMM_MAKE_PROGRAM=...]
#         -DVCGMM_CXX_COMPILER=... -DVCGMM_CONFIG=... -DVCGMM_MULTI_CONFIG=ON|OFF
#         -P cmake/RunInstalledExample.cmake
cmake_minimum_required(VERSION 3.18...4.4)

foreach(var IN ITEMS VCGMM_BUILD_DIR VCGMM_SOURCE_DIR VCGMM_EXAMPLE_SOURCE_DIR VCGMM_INSTALL_PREFIX
                     VCGMM_EXAMPLE_BINARY_DIR VCGMM_GENERATOR VCGMM_CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "RunInstalledExample.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT VCGMM_CONFIG)
  set(VCGMM_CONFIG Release)
endif()

set(prefix "${VCGMM_INSTALL_PREFIX}")
set(example_build "${VCGMM_EXAMPLE_BINARY_DIR}")

# run_step(<description> <command>...): runs the command, prints its output,
# stops the script with an error if it fails.
function(run_step description)
  message(STATUS "==> ${description}")
  string(REPLACE ";" " " pretty "${ARGN}")
  message(STATUS "    ${pretty}")
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)  # same variable: stdout and stderr interleaved
  message("${output}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "FAILED (${result}): ${description}")
  endif()
endfunction()

# A clean slate: nothing left over from an earlier run may satisfy find_package.
file(REMOVE_RECURSE "${prefix}" "${example_build}")

# 1. Install.
set(config_args)
if(VCGMM_MULTI_CONFIG)
  set(config_args --config "${VCGMM_CONFIG}")
endif()
run_step("install vcgmm into ${prefix}"
  "${CMAKE_COMMAND}" --install "${VCGMM_BUILD_DIR}" --prefix "${prefix}" ${config_args})

# 2. The installed package must be relocatable: no path into the source tree
#    (headers, vendored Eigen) or the build tree (the library).
file(GLOB_RECURSE package_files "${prefix}/*.cmake")
if(NOT package_files)
  message(FATAL_ERROR "no CMake package files were installed under ${prefix}")
endif()
foreach(f IN LISTS package_files)
  file(READ "${f}" text)
  foreach(forbidden IN ITEMS "${VCGMM_SOURCE_DIR}/cpp" "${VCGMM_SOURCE_DIR}/third_party"
                             "${VCGMM_BUILD_DIR}/cpp")
    string(FIND "${text}" "${forbidden}" pos)
    if(NOT pos EQUAL -1)
      message(FATAL_ERROR "installed file ${f} refers to ${forbidden}")
    endif()
  endforeach()
endforeach()

# 3. Configure the example against the fresh prefix only.
set(generator_args -G "${VCGMM_GENERATOR}")
if(VCGMM_GENERATOR_PLATFORM)
  list(APPEND generator_args -A "${VCGMM_GENERATOR_PLATFORM}")
endif()
if(VCGMM_GENERATOR_TOOLSET)
  list(APPEND generator_args -T "${VCGMM_GENERATOR_TOOLSET}")
endif()
set(cache_args
  "-DCMAKE_CXX_COMPILER=${VCGMM_CXX_COMPILER}"
  "-DCMAKE_PREFIX_PATH=${prefix}"
  # No package registries (they could point at some other vcgmm build); the
  # vcgmm_DIR check below makes sure the fresh prefix was the one used.
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(VCGMM_MAKE_PROGRAM)
  list(APPEND cache_args "-DCMAKE_MAKE_PROGRAM=${VCGMM_MAKE_PROGRAM}")
endif()
if(NOT VCGMM_MULTI_CONFIG)
  list(APPEND cache_args "-DCMAKE_BUILD_TYPE=${VCGMM_CONFIG}")
endif()
run_step("configure the example"
  "${CMAKE_COMMAND}" -S "${VCGMM_EXAMPLE_SOURCE_DIR}" -B "${example_build}"
  ${generator_args} ${cache_args})

file(STRINGS "${example_build}/CMakeCache.txt" found_dir REGEX "^vcgmm_DIR:")
string(REGEX REPLACE "^vcgmm_DIR:[A-Z]+=" "" found_dir "${found_dir}")
file(REAL_PATH "${prefix}" real_prefix)
if(EXISTS "${found_dir}")
  file(REAL_PATH "${found_dir}" found_dir)
endif()
string(FIND "${found_dir}" "${real_prefix}/" pos)
if(NOT pos EQUAL 0)
  message(FATAL_ERROR "find_package(vcgmm) used '${found_dir}', not the fresh install in ${prefix}")
endif()
message(STATUS "find_package(vcgmm) found ${found_dir}")

# 4. Build and run.
run_step("build the example" "${CMAKE_COMMAND}" --build "${example_build}" ${config_args})

set(exe_dir "${example_build}")
if(VCGMM_MULTI_CONFIG)
  set(exe_dir "${example_build}/${VCGMM_CONFIG}")
endif()
set(exe "")
foreach(candidate IN ITEMS "${exe_dir}/kmeans_example" "${exe_dir}/kmeans_example.exe")
  if(EXISTS "${candidate}" AND NOT IS_DIRECTORY "${candidate}")
    set(exe "${candidate}")
    break()
  endif()
endforeach()
if(NOT exe)
  message(FATAL_ERROR "the example executable was not found in ${exe_dir}")
endif()
run_step("run the example" "${exe}")
message(STATUS "installed example: OK")
