# The environment every test runs in (included last by tests/CMakeLists.txt).
#
# - Caches: Kiln's OpenCL program cache, PoCL's kernel cache and anything else that follows
#   XDG_CACHE_HOME live in BUILD/test-cache, never in ~/.cache, so a cache warmed by another run
#   of another tree cannot change what a test sees. Programs are still built once per tree and
#   reused by every test process; scripts/test.sh empties the folder before each suite, so CI
#   meets the cold caches a new machine has.
# - Sanitizer builds: LeakSanitizer reads tests/sanitizer/lsan.supp (leaks inside the OpenCL
#   driver libraries only).
#
# gtest_discover_tests cannot carry these: its PROPERTIES keep only the first entry of an
# ENVIRONMENT list. The discovered tests get them from a CTest include file that runs after the
# discovery files (TEST_INCLUDE_FILES are read in the order they were added).
set(KILN_TEST_CACHE_DIR ${CMAKE_BINARY_DIR}/test-cache)
set(kiln_test_env
    "KILN_CACHE_DIR=${KILN_TEST_CACHE_DIR}/kiln"
    "POCL_CACHE_DIR=${KILN_TEST_CACHE_DIR}/pocl"
    "XDG_CACHE_HOME=${KILN_TEST_CACHE_DIR}/xdg")
set(kiln_opencl_test_env ${kiln_test_env} "KILN_LOG_LEVEL=warn")
if(KILN_SANITIZE)
  set(kiln_lsan_options "LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/sanitizer/lsan.supp")
  list(APPEND kiln_test_env "${kiln_lsan_options}")
  list(APPEND kiln_opencl_test_env "${kiln_lsan_options}")
endif()

# Tests added with add_test in this folder (added to what they set themselves).
get_property(kiln_plain_tests DIRECTORY PROPERTY TESTS)
foreach(test ${kiln_plain_tests})
  get_test_property(${test} LABELS labels)
  if(labels MATCHES "opencl")
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${kiln_opencl_test_env})
  else()
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${kiln_test_env})
  endif()
endforeach()

# Tests found by gtest_discover_tests (their lists, <target>_TESTS, exist once discovered).
set(kiln_env_script "")
foreach(target kiln_runtime_tests kiln_dsp_tests kiln_toolchain_tests kiln_suite_tests
               kiln_opencl_tests)
  set(env ${kiln_test_env})
  if(target STREQUAL "kiln_opencl_tests")
    set(env ${kiln_opencl_test_env})
  endif()
  string(APPEND kiln_env_script "if(DEFINED ${target}_TESTS)\n  set_tests_properties("
         "\${${target}_TESTS} PROPERTIES ENVIRONMENT [==[${env}]==])\nendif()\n")
endforeach()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/kiln_test_environment.cmake "${kiln_env_script}")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES
             ${CMAKE_CURRENT_BINARY_DIR}/kiln_test_environment.cmake)
