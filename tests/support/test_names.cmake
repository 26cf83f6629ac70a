# Catch2 test names that ctest cannot register, refused at configure time. catch_discover_tests makes each TEST_CASE
# a ctest test of the same name after the build; CMake splits a name holding ";" into two list items, so the case
# would be registered as two tests whose filters match no case, and never run under its own name. -w NoTests makes
# such tests fail when they run, but only then, and only for the labels run: this check stops the configure instead,
# naming the file and the case.
#
# dmlbench_check_test_names(FILE...): every TEST_CASE("...") of the files (its name: the adjacent string literals).
# As a script, for its own test: cmake -DDMLBENCH_TEST_NAME_FILES=a.cpp -P tests/support/test_names.cmake

function(dmlbench_check_test_names)
  foreach(file ${ARGN})
    file(READ "${file}" text)
    # CMake lists split at ";" and group by "[...]": both are made plain text first
    string(REPLACE ";" "<semicolon>" text "${text}")
    string(REPLACE "[" "<open>" text "${text}")
    string(REPLACE "]" "<close>" text "${text}")
    set(literal "\"([^\"\\\\]|\\\\.)*\"")
    string(REGEX MATCHALL "TEST_CASE\\([ \t\r\n]*${literal}([ \t\r\n]*${literal})*" cases "${text}")
    foreach(c IN LISTS cases)
      if(c MATCHES "<semicolon>")
        string(REGEX REPLACE "^TEST_CASE\\([ \t\r\n]*\"" "" name "${c}")
        string(REGEX REPLACE "\"[ \t\r\n]*\"" "" name "${name}")
        string(REGEX REPLACE "\"$" "" name "${name}")
        string(REPLACE "<semicolon>" ";" name "${name}")
        string(REPLACE "<open>" "[" name "${name}")
        string(REPLACE "<close>" "]" name "${name}")
        message(FATAL_ERROR "${file}: the test case \"${name}\" holds a ';', which ctest cannot register (CMake splits "
                            "the name in two): write it without one")
      endif()
    endforeach()
  endforeach()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED DMLBENCH_TEST_NAME_FILES)
  dmlbench_check_test_names(${DMLBENCH_TEST_NAME_FILES})
  message(STATUS "test names: every case of ${DMLBENCH_TEST_NAME_FILES} can be registered")
endif()
