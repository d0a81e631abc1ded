# A test-only accelerator (issue 38): claims f32 Relu and Add and runs them with the reference
# kernels on host memory. It proves that a backend is one folder plus one entry in
# KILN_BACKEND_DIRS: tests/null_backend_test.cc places it with the compiler, writes, loads and
# runs the file. Built with the tests (KILN_NULL_BACKEND).
kiln_add_backend(NAME null
  FACTORY kiln::test::MakeNullBackend
  RUNTIME_SOURCES ${CMAKE_SOURCE_DIR}/tests/null_backend/null_backend.cc)
