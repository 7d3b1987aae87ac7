# Instruction-set levels of the compiled kernels.
#
#   generic  the compiler's default target (x86-64 baseline: SSE2); runs anywhere
#   avx2     AVX2 + FMA (Haswell and later, Zen)
#   avx512   AVX-512 F/DQ/VL/BW + AVX2 + FMA (Skylake-SP and later, Zen 4)
#   native   -march=native: only for a library that never leaves this machine
#
# The Python package builds one extension module per level asked for
# (VCGMM_PYTHON_LEVELS: this CPU's widest, or all for a wheel) and imports the
# best one the running CPU has (see python/vcgmm/_base/loader.py), like faiss
# does: a wheel with every level still runs on an old CPU. The C++ library
# vcgmm::core is built for VCGMM_ARCH (default: generic; opt in to a wider
# level when the library stays on known machines).
include(CheckCXXCompilerFlag)

function(vcgmm_arch_flags arch out_var)
  set(flags "")
  if(arch STREQUAL "generic")
    set(flags "")
  elseif(arch STREQUAL "avx2")
    if(MSVC)
      set(flags /arch:AVX2)
    else()
      set(flags -mavx2 -mfma)
    endif()
  elseif(arch STREQUAL "avx512")
    if(MSVC)
      set(flags /arch:AVX512)
    else()
      set(flags -mavx2 -mfma -mavx512f -mavx512dq -mavx512vl -mavx512bw)
    endif()
  elseif(arch STREQUAL "native")
    if(NOT MSVC)
      set(flags -march=native)
    endif()
  else()
    message(FATAL_ERROR "VCGMM_ARCH: unknown level '${arch}' (generic, avx2, avx512, native)")
  endif()
  set(${out_var} "${flags}" PARENT_SCOPE)
endfunction()

# vcgmm_arch_supported(<arch> <out-var>): can this compiler target <arch>?
function(vcgmm_arch_supported arch out_var)
  vcgmm_arch_flags(${arch} flags)
  if(flags STREQUAL "")
    set(${out_var} ON PARENT_SCOPE)
    return()
  endif()
  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i.86)$" AND NOT arch STREQUAL "native")
    set(${out_var} OFF PARENT_SCOPE)
    return()
  endif()
  string(REPLACE ";" " " flag_string "${flags}")
  string(MAKE_C_IDENTIFIER "VCGMM_HAS_ARCH_${arch}" var)
  check_cxx_compiler_flag("${flag_string}" ${var})
  set(${out_var} ${${var}} PARENT_SCOPE)
endfunction()

# vcgmm_host_levels(<out-var>): the widest level this machine's CPU runs, the
# default of a source build: one copy of the core, the one this CPU imports (the
# package then imports only on CPUs with that level; a wheel for other machines
# asks for "all"). Falls back to every level when the CPU cannot be asked
# (cross-compiling, non-x86).
function(vcgmm_host_levels out_var)
  set(all generic avx2 avx512)
  if(CMAKE_CROSSCOMPILING OR MSVC
     OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(${out_var} ${all} PARENT_SCOPE)
    return()
  endif()
  set(src "${CMAKE_BINARY_DIR}/vcgmm_cpu_level.cpp")
  file(WRITE "${src}" [=[
#include <cstdio>
int main() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    std::puts("avx512");
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    std::puts("avx2");
  } else {
    std::puts("generic");
  }
  return 0;
}
]=])
  try_run(run_result compile_result "${CMAKE_BINARY_DIR}/vcgmm_cpu_level" "${src}"
          RUN_OUTPUT_VARIABLE level)
  string(STRIP "${level}" level)
  if(NOT compile_result OR NOT run_result EQUAL 0 OR NOT level MATCHES "^(generic|avx2|avx512)$")
    set(${out_var} ${all} PARENT_SCOPE)
  elseif(level STREQUAL "generic")
    set(${out_var} generic PARENT_SCOPE)
  else()
    set(${out_var} ${level} PARENT_SCOPE)
  endif()
endfunction()
