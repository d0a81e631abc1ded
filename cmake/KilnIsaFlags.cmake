# Compile flags of the per-ISA CPU kernel files, chosen by file-name suffix (as ncnn and MLAS
# do): foo_avx2.cc, foo_avx512.cc, foo_avx512vnni.cc, foo_avx512vbmi.cc. Only x86-64 gets
# them; elsewhere those files compile to nothing (they guard their bodies with the matching
# __AVX* macros).
# -ffp-contract=off: with -mfma GCC would fuse a separate multiply and add into one FMA, and
# kernels that promise the reference's bits (affine, hard-sigmoid, ...) would round differently;
# explicit FMA intrinsics stay FMAs.
# -falign-functions=64: every kernel starts on a cache line, so its loops sit at the same offsets
# whatever the link puts before it. Without it, QGemmRequantAvx512Vnni compiled to the same
# instructions 16 bytes further on ran the int8 pointwise layers 4-6 % slower (Cascade Lake).
set(KILN_AVX2_FLAGS -mavx2 -mfma -mf16c -ffp-contract=off -falign-functions=64)
# GCC 12's avx512fintrin.h trips -Wmaybe-uninitialized and, at -O3, -Wuninitialized on its own
# _mm512_undefined_* (GCC bug 105593: __Y in _mm512_extractf64x4_pd and friends); the warnings
# say nothing about our code, and clang has no such bug.
set(KILN_AVX512_FLAGS ${KILN_AVX2_FLAGS} -mavx512f -mavx512bw -mavx512vl -mavx512dq)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND KILN_AVX512_FLAGS -Wno-maybe-uninitialized -Wno-uninitialized)
endif()
set(KILN_AVX512VNNI_FLAGS ${KILN_AVX512_FLAGS} -mavx512vnni)
# VBMI is no Isa of its own (kernels/cpu_features.h): *_avx512vbmi.cc files hold kernels the
# avx512vnni table adds where the CPU also has VBMI.
set(KILN_AVX512VBMI_FLAGS ${KILN_AVX512VNNI_FLAGS} -mavx512vbmi)

function(kiln_set_isa_flags sources)
  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
    return()
  endif()
  foreach(src ${sources})
    if(src MATCHES "_avx512vbmi(_test)?\\.cc$")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${KILN_AVX512VBMI_FLAGS}")
    elseif(src MATCHES "_avx512vnni(_test)?\\.cc$")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${KILN_AVX512VNNI_FLAGS}")
    elseif(src MATCHES "_avx512(_test)?\\.cc$")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${KILN_AVX512_FLAGS}")
    elseif(src MATCHES "_avx2(_test)?\\.cc$")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${KILN_AVX2_FLAGS}")
    endif()
  endforeach()
endfunction()
