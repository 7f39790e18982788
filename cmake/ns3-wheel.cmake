# The CMake package of the ns-3 wheel (PyPI ns3==3.44.post0, ns3/lib64/cmake/ns3 in
# site-packages) as a build on this machine can use it.
#
# The package was exported on the machine that built the wheel, and its imported targets still
# name that machine's paths: include directories such as /usr/include/gtk-3.0 and
# /opt/python/cp311-cp311/include/python3.11, and link items such as /usr/lib64/libgsl.so and
# /lib64/libsqlite3.so. CMake refuses an imported target whose include directory does not exist,
# and the linker fails on the missing files. What the ns-3 libraries really need of gsl, sqlite
# and libxml2 ships inside the wheel (lib64/libgsl-<hash>.so...), reached through the libraries'
# own RPATH ($ORIGIN). So each ns3::<module> target keeps:
#   include directories  the wheel's ns-3 headers only (include/ns3, through a link in the build
#                        tree): its include/ also holds Boost 1.66, whose boost::heap does not
#                        compile as C++20 (std::allocator lost rebind and reference), so Boost
#                        comes from the system (Debian's 1.74), as in the 3.37 build. ns-3's
#                        headers use Boost in length.h only (units conversions, inline
#                        templates over the double a Length holds)
#   link items           other ns3:: targets and linker flags (-lpthread, -Wl,...)
#   compile definitions  unchanged (NS3_LOG_ENABLE, NS3_ASSERT_ENABLE, HAVE_BOOST_UNITS...:
#                        they must match how the libraries were built)
# ns3_DIR is where find_package(ns3) found the package: <prefix>/lib64/cmake/ns3.
function(metaroce_adapt_ns3_wheel)
  get_filename_component(prefix "${ns3_DIR}/../../.." ABSOLUTE)
  if(NOT EXISTS "${prefix}/include/ns3/core-module.h")
    message(FATAL_ERROR "metaroce: ${prefix}/include/ns3/core-module.h is missing; is ns3_DIR "
                        "(${ns3_DIR}) the ns3 wheel's lib64/cmake/ns3?")
  endif()
  set(include ${CMAKE_BINARY_DIR}/ns3-wheel/include)
  file(MAKE_DIRECTORY ${include})
  file(CREATE_LINK "${prefix}/include/ns3" "${include}/ns3" SYMBOLIC)
  get_property(targets DIRECTORY PROPERTY IMPORTED_TARGETS)
  set(adapted 0)
  foreach(t ${targets})
    if(NOT t MATCHES "^ns3::")
      continue()
    endif()
    get_target_property(type ${t} TYPE)
    if(NOT type STREQUAL "SHARED_LIBRARY")
      continue()
    endif()
    set_target_properties(${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${include}")
    get_target_property(links ${t} INTERFACE_LINK_LIBRARIES)
    set(kept "")
    foreach(item ${links})
      if(item MATCHES "^ns3::" OR item MATCHES "^-")
        list(APPEND kept "${item}")
      endif()
    endforeach()
    set_target_properties(${t} PROPERTIES INTERFACE_LINK_LIBRARIES "${kept}")
    math(EXPR adapted "${adapted} + 1")
  endforeach()
  message(STATUS "metaroce: ns-3 ${ns3_VERSION} from ${prefix} (${adapted} module targets, "
                 "ns-3 headers and links of the wheel only)")
endfunction()
